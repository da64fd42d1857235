#!/usr/bin/env bash
# Nightly, step 2: publishes through git. The data branch follows main: each commit's tree is
# main's tree plus data/live/ (the accepted export.json and supply.json), and its parents are the
# data branch's previous tip and main, so `git log data -- data/live` is the public, diffable
# history of every published input. Netlify's production branch is the data branch: a push
# builds the site there (scripts/netlify/build.sh).
#
#   ACCEPTED holds export.json     → commit it (and supply.json, or none) and push: one commit
#   nothing accepted, main moved   → commit main's tree with the published data/live/ and push
#   nothing new, main as is        → POST the build hook: Netlify rebuilds the same inputs, so
#                                    freshness turns stale honestly
#
# Never force-pushes: a data branch that moved meanwhile makes the push fail.
# Environment: ACCEPTED (directory), WHY (why nothing was accepted, for the messages), MAIN
# (the commit to follow; default HEAD), REMOTE (default origin), DATA_BRANCH (default data),
# BUILD_HOOK_URL (Netlify build hook of the data branch; a secret, never printed), RUN_URL (this
# run, for the commit message). Writes `published=commit|rebuild` to $GITHUB_OUTPUT when set.
set -euo pipefail
accepted=${ACCEPTED:?ACCEPTED is the directory collect.sh wrote}
remote=${REMOTE:-origin}
branch=${DATA_BRANCH:-data}
main=$(git rev-parse "${MAIN:-HEAD}^{commit}")
export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-model-demand nightly}
export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-nightly@model-demand.invalid}
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}
export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}

tip=
if git fetch --quiet "$remote" "+refs/heads/$branch:refs/remotes/$remote/$branch" 2>/dev/null; then
  tip=$(git rev-parse "refs/remotes/$remote/$branch^{commit}")
fi
output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "published=$1" >> "$GITHUB_OUTPUT"; fi; }

rebuild() {
  if [ -z "${BUILD_HOOK_URL:-}" ]; then
    echo "nightly: nothing to commit and no BUILD_HOOK_URL: the live site is not rebuilt" >&2
    exit 1
  fi
  # The hook's address is a secret: curl's own messages never print it, and neither does this.
  curl -fsS --retry 3 --retry-delay 5 --max-time 60 -o /dev/null -X POST -d '{}' \
    "$BUILD_HOOK_URL?trigger_title=nightly%3A+no+new+export+accepted%2C+rebuilding+the+published+inputs"
  echo "nightly: nothing new to commit; the build hook was called: Netlify rebuilds the published inputs"
  output rebuild
}

# The tree: main's, with data/live/ replaced, built in a scratch index (the work tree is untouched).
index=$(mktemp)
trap 'rm -f "$index"' EXIT
export GIT_INDEX_FILE=$index
git read-tree "$main"
git rm --cached --quiet -r --ignore-unmatch data/live
put() { # name file
  git update-index --add --cacheinfo "100644,$(git hash-object -w "$2"),data/live/$1"
}

if [ -f "$accepted/export.json" ]; then
  put export.json "$accepted/export.json"
  [ -f "$accepted/supply.json" ] && put supply.json "$accepted/supply.json"
  subject=$(python3 - "$accepted/export.json" "$accepted/supply.json" <<'PY'
import json, os, sys
export = json.load(open(sys.argv[1]))
supply = "no supply feed"
if os.path.exists(sys.argv[2]):
    collections = json.load(open(sys.argv[2]))["collections"]
    supply = f"supply: {len(collections)} collection(s)"
days = export["days"]
print(f"data: export of {export['evaluation_cutoff'][:10]} ({len(days)} day(s) to {max(d['date'] for d in days) if days else 'none'}, {len(export['models'])} model(s), {supply})")
print()
print(export["demand_source"]["attribution"])
print(f"Generated at {export['generated_at']}; fresh until {export['fresh_until']}.")
PY
)
else
  if [ -z "$tip" ]; then
    git push --quiet "$remote" "$main:refs/heads/$branch"
    echo "nightly: nothing accepted and nothing published yet: the $branch branch starts at main (the no-data site)"
    output commit
    exit 0
  elif git merge-base --is-ancestor "$main" "$tip"; then
    rebuild
    exit 0
  else
    for name in export.json supply.json; do
      if git cat-file -e "$tip:data/live/$name" 2>/dev/null; then
        git update-index --add --cacheinfo "100644,$(git rev-parse "$tip:data/live/$name"),data/live/$name"
      fi
    done
  fi
  subject="data: follow main; no new export accepted (${WHY:-no reason given})"
fi

tree=$(git write-tree)
if [ -n "$tip" ] && [ "$tree" = "$(git rev-parse "$tip^{tree}")" ]; then
  echo "nightly: the accepted inputs are the published ones"
  rebuild
  exit 0
fi
parents=()
[ -n "$tip" ] && parents+=(-p "$tip")
if [ -z "$tip" ] || ! git merge-base --is-ancestor "$main" "$tip"; then parents+=(-p "$main"); fi
message=$(printf '%s\n\nMain at %s.%s\n' "$subject" "$main" "${RUN_URL:+ Run: $RUN_URL}")
commit=$(git commit-tree "$tree" "${parents[@]}" -m "$message")
git push --quiet "$remote" "$commit:refs/heads/$branch"
echo "nightly: pushed ${commit:0:12} to $branch: $(git log -1 --format=%s "$commit")"
output commit
