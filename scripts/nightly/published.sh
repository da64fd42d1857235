#!/usr/bin/env bash
# Nightly: copies the published inputs (data/live/ at the tip of the data branch) into DIR, so
# collect can carry their history forward. Prints what it found; an absent branch or directory
# leaves DIR empty (the first run); a remote it cannot read fails.
# Usage: published.sh DIR   Environment: REMOTE (default origin), DATA_BRANCH (default data).
set -euo pipefail
dir=$1
remote=${REMOTE:-origin}
branch=${DATA_BRANCH:-data}
mkdir -p "$dir"
# An unreachable or unreadable remote fails the run; only a branch that is not there means
# nothing was published (the workflow reads without credentials: the repository is public).
heads=$(git ls-remote --heads "$remote" "refs/heads/$branch") || {
  echo "nightly: cannot read $remote" >&2
  exit 1
}
if [ -z "$heads" ]; then
  echo "nightly: no $branch branch on $remote yet: nothing published"
  exit 0
fi
git fetch --quiet "$remote" "+refs/heads/$branch:refs/remotes/$remote/$branch"
tip=$(git rev-parse "refs/remotes/$remote/$branch^{commit}")
for name in export.json supply.json; do
  if git cat-file -e "$tip:data/live/$name" 2>/dev/null; then
    git cat-file blob "$tip:data/live/$name" > "$dir/$name"
    echo "nightly: published data/live/$name at ${tip:0:12}"
  fi
done
