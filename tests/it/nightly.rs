//! Publishing end to end, offline: the nightly workflow's scripts (published.sh, collect.sh,
//! publish.sh) run against a local bare repository standing in for GitHub and a stand-in for
//! OpenRouter and the Netlify build hook; and `netlify build --offline` (Netlify's own build,
//! edge functions bundled) runs the generated build command over checkouts of the data branch
//! they wrote, giving sites `verify` accepts. The workflow file itself: tests/it/workflows.rs.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::standin::{Reply, StandIn};

/// The build hook's secret part; it must never be printed.
const HOOK_ID: &str = "hook-id-that-must-stay-secret";

/// The files of the repository the publishing path reads: the scripts, the edge functions and
/// the Netlify configuration (the crate itself is not needed: the tests pass a built binary).
const PROJECT_FILES: [&str; 6] = [
    "scripts",
    "netlify",
    "netlify.toml",
    "rust-toolchain.toml",
    "package.json",
    "package-lock.json",
];

/// A bare repository standing in for GitHub, and a clone of its `main` to run the scripts in.
struct Remote {
    tmp: tempfile::TempDir,
    bare: PathBuf,
    work: PathBuf,
}

/// Runs git with no user or system configuration, as a fixed identity.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        common::output_text(&out)
    );
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}

/// `program` run in `dir` with git reading no user or system configuration.
fn isolated(program: &str, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd
}

/// git, as a fixed identity (the scripts use their own default identity).
fn git_command(dir: &Path) -> Command {
    let mut cmd = isolated("git", dir);
    cmd.env("GIT_AUTHOR_NAME", "nightly test")
        .env("GIT_AUTHOR_EMAIL", "nightly@test.invalid")
        .env("GIT_COMMITTER_NAME", "nightly test")
        .env("GIT_COMMITTER_EMAIL", "nightly@test.invalid");
    cmd
}

impl Remote {
    fn new() -> Remote {
        // git stands in for GitHub; the scripts fetch and call hooks with curl and read JSON
        // with python3.
        common::tools::require(&["git", "bash", "curl", "python3"]);
        let tmp = common::tempdir().expect("temp dir");
        let bare = tmp.path().join("remote.git");
        let work = tmp.path().join("work");
        std::fs::create_dir_all(&work).expect("mkdir");
        git(tmp.path(), &["init", "-q", "--bare", "remote.git"]);
        git(&work, &["init", "-q", "-b", "main"]);
        for name in PROJECT_FILES {
            let from = common::crate_path(name);
            if from.is_dir() {
                common::netlify::copy_dir(&from, &work.join(name));
            } else {
                std::fs::copy(&from, work.join(name)).expect("copy");
            }
        }
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "-m", "main"]);
        git(&work, &["remote", "add", "origin", &bare.to_string_lossy()]);
        git(&work, &["push", "-q", "origin", "main"]);
        Remote { tmp, bare, work }
    }

    /// Commits a change to `main` and pushes it.
    fn move_main(&self) -> String {
        std::fs::write(self.work.join("CHANGES"), "main moved\n").expect("write");
        git(&self.work, &["add", "CHANGES"]);
        git(&self.work, &["commit", "-q", "-m", "main moves"]);
        git(&self.work, &["push", "-q", "origin", "main"]);
        git(&self.work, &["rev-parse", "HEAD"])
    }

    /// The data branch's tip on the remote, if any.
    fn data_tip(&self) -> Option<String> {
        let out = git_command(&self.bare)
            .args(["rev-parse", "-q", "--verify", "refs/heads/data"])
            .output()
            .expect("git runs");
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// A file of a commit on the remote, as bytes.
    fn show(&self, commit: &str, path: &str) -> Vec<u8> {
        git_command(&self.bare)
            .args(["cat-file", "blob", &format!("{commit}:{path}")])
            .output()
            .expect("git runs")
            .stdout
    }

    /// A fresh checkout of the data branch (what Netlify clones).
    fn checkout_data(&self, name: &str) -> PathBuf {
        let dir = self.tmp.path().join(name);
        git(
            self.tmp.path(),
            &[
                "clone",
                "-q",
                "-b",
                "data",
                &self.bare.to_string_lossy(),
                &dir.to_string_lossy(),
            ],
        );
        dir
    }

    /// Runs one nightly script in the work tree with `env`; returns its output and what it
    /// wrote to `$GITHUB_OUTPUT`.
    fn script(&self, name: &str, args: &[&str], env: &[(&str, String)]) -> (Output, String) {
        let github_output = self.tmp.path().join(format!("{name}.github-output"));
        let _ = std::fs::remove_file(&github_output);
        let summary = self.tmp.path().join(format!("{name}.step-summary"));
        let _ = std::fs::remove_file(&summary);
        let mut cmd = isolated("bash", &self.work);
        cmd.arg(self.work.join("scripts/nightly").join(name))
            .args(args)
            .env("BIN", env!("CARGO_BIN_EXE_model-demand"))
            .env("GITHUB_OUTPUT", &github_output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env_remove("OPENROUTER_API_KEY")
            .env_remove("HF_TOKEN")
            .env_remove("EXPORT_URL")
            .env_remove("SUPPLY_URL")
            .env_remove("BUILD_HOOK_URL");
        for (key, value) in env {
            cmd.env(key, value);
        }
        let out = cmd.output().expect("bash runs");
        let written = std::fs::read_to_string(&github_output).unwrap_or_default();
        let text = common::output_text(&out);
        assert!(!text.contains(common::sources::KEY), "key printed: {text}");
        assert!(!text.contains(HOOK_ID), "build hook printed: {text}");
        (out, written)
    }

    /// One nightly run: published.sh, collect.sh, publish.sh, as the workflow runs them.
    fn nightly(&self, run: &str, collect_env: &[(&str, String)], standin: &StandIn) -> Run {
        let dir = self.tmp.path().join(run);
        let published = dir.join("published");
        let accepted = dir.join("accepted");
        let common_env = [
            ("WORK", dir.to_string_lossy().into_owned()),
            ("PUBLISHED", published.to_string_lossy().into_owned()),
            ("ACCEPTED", accepted.to_string_lossy().into_owned()),
        ];
        let (out, _) = self.script("published.sh", &[&published.to_string_lossy()], &[]);
        assert!(out.status.success(), "{}", common::output_text(&out));
        let env: Vec<(&str, String)> = common_env
            .iter()
            .cloned()
            .chain(collect_env.iter().cloned())
            .collect();
        let (collect, outputs) = self.script("collect.sh", &[], &env);
        assert!(
            collect.status.success(),
            "{}",
            common::output_text(&collect)
        );
        let why = outputs
            .lines()
            .find_map(|line| line.strip_prefix("why="))
            .unwrap_or_default()
            .to_string();
        let mut publish_env: Vec<(&str, String)> = common_env.to_vec();
        publish_env.push(("WHY", why));
        publish_env.push((
            "BUILD_HOOK_URL",
            format!("{}/build_hooks/{HOOK_ID}", standin.base),
        ));
        let (publish, published_as) = self.script("publish.sh", &[], &publish_env);
        Run {
            dir,
            collect_text: common::output_text(&collect),
            accepted: outputs.contains("accepted=yes\n"),
            publish,
            published_as,
        }
    }
}

/// What one nightly run did.
struct Run {
    dir: PathBuf,
    collect_text: String,
    accepted: bool,
    publish: Output,
    published_as: String,
}

/// The target the build hook is called at.
fn hook_target() -> String {
    format!("/build_hooks/{HOOK_ID}?trigger_title=nightly%3A+no+new+export+accepted%2C+rebuilding+the+published+inputs")
}

/// Collect options pointing at the stand-in, with the test key.
fn collecting(standin: &StandIn) -> Vec<(&'static str, String)> {
    vec![
        ("OPENROUTER_API_KEY", common::sources::KEY.to_string()),
        (
            "COLLECT_ARGS",
            format!(
                "--now {} --days {} --openrouter-url {} --huggingface-url {} --policy {}",
                common::sources::NOW,
                common::sources::DAYS,
                standin.base,
                standin.base,
                common::crate_path("data/policy.json").display()
            ),
        ),
    ]
}

/// Parents of a commit on the remote.
fn parents(remote: &Remote, commit: &str) -> Vec<String> {
    git(&remote.bare, &["rev-list", "--parents", "-n", "1", commit])
        .split_whitespace()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// Runs `netlify build --offline` in `checkout` with the test's binary standing in for the
/// cargo build (measured in benches/netlify_build.sh instead), and the tests' install of the
/// edge functions' npm packages for Netlify's dependency step.
fn netlify_build(checkout: &Path, scratch: &Path) -> Output {
    let modules = checkout.join("node_modules");
    if !modules.exists() {
        std::os::unix::fs::symlink(common::netlify::edge_node_modules(), &modules)
            .expect("link node_modules");
    }
    common::netlify::command(checkout, scratch)
        .args(["build", "--offline"])
        .env("MODEL_DEMAND_BIN", env!("CARGO_BIN_EXE_model-demand"))
        .env("URL", "https://model-demand.example")
        .output()
        .expect("netlify runs")
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("JSON")
}

/// Asserts `verify` accepts the site and returns whether it holds data.
fn verified_has_data(site: &Path) -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_model-demand"))
        .args(["verify", "--dir"])
        .arg(site)
        .output()
        .expect("verify runs");
    assert!(out.status.success(), "{}", common::output_text(&out));
    json(&std::fs::read(site.join("_api/routes.json")).expect("routes"))["has_data"]
        .as_bool()
        .expect("has_data")
}

/// Every edge function was bundled, at the paths the site needs.
fn assert_edge_functions_bundled(checkout: &Path) {
    let manifest = json(
        &std::fs::read(checkout.join(".netlify/edge-functions-dist/manifest.json"))
            .expect("edge manifest"),
    );
    let find = |list: &str, name: &str| {
        manifest[list]
            .as_array()
            .and_then(|routes| routes.iter().find(|r| r["function"] == name).cloned())
    };
    let route = |name: &str| {
        find("routes", name).unwrap_or_else(|| panic!("{name} not bundled: {manifest}"))
    };
    // `cache = "manual"`: Netlify runs the models function behind its CDN cache, so the
    // list answers it assembles may be kept until the next deploy (docs/decisions.md).
    let models = find("post_cache_routes", "models")
        .unwrap_or_else(|| panic!("models not bundled behind the cache: {manifest}"));
    assert_eq!(models["path"], "/api/v1/models");
    assert!(find("routes", "models").is_none(), "{manifest}");
    assert_eq!(route("methods")["path"], "/*");
    assert_eq!(route("mcp")["path"], "/mcp");
    let bundle = manifest["bundles"][0]["asset"].as_str().expect("bundle");
    assert!(checkout
        .join(".netlify/edge-functions-dist")
        .join(bundle)
        .exists());
}

#[test]
fn the_data_branch_is_published_rebuilt_and_built_by_netlify() {
    let remote = Remote::new();
    let standin = StandIn::start();
    common::sources::script_openrouter(&standin);
    standin.route(&hook_target(), vec![Reply::json("")]);
    let main = git(&remote.work, &["rev-parse", "HEAD"]);

    // 1. The first run accepts nothing: the data branch starts at main, the no-data site.
    let run = remote.nightly("run1", &[], &standin);
    assert!(!run.accepted, "{}", run.collect_text);
    assert!(run.publish.status.success());
    assert_eq!(remote.data_tip().as_deref(), Some(main.as_str()));
    let checkout = remote.checkout_data("checkout1");
    let built = netlify_build(&checkout, &run.dir);
    let text = common::output_text(&built);
    assert!(built.status.success(), "{text}");
    assert!(text.contains("building the no-data site"), "{text}");
    assert!(
        !verified_has_data(&checkout.join("out")),
        "never the sample"
    );
    assert!(!checkout.join("out/api/export.json").exists());
    assert_edge_functions_bundled(&checkout);

    // 2. Collected from the sources: one commit holding the accepted pair, on top of main.
    let run = remote.nightly("run2", &collecting(&standin), &standin);
    assert!(run.accepted, "{}", run.collect_text);
    // The run report is kept beside the run and rendered into the CI run's summary.
    assert!(run.dir.join("collect-report.json").exists());
    let summary = std::fs::read_to_string(remote.tmp.path().join("collect.sh.step-summary"))
        .expect("collect.sh wrote the step summary");
    assert!(summary.contains(": written"), "{summary}");
    assert!(summary.contains("| models served | 5 |"), "{summary}");
    assert!(summary.contains("`gone/missing-model`"), "{summary}");
    assert!(run.publish.status.success());
    assert_eq!(run.published_as, "published=commit\n");
    let tip = remote.data_tip().expect("data branch");
    assert_eq!(parents(&remote, &tip), vec![main.clone()]);
    let collected = run.dir.join("collected");
    for name in ["export.json", "supply.json"] {
        assert_eq!(
            remote.show(&tip, &format!("data/live/{name}")),
            std::fs::read(collected.join(name)).expect("collected"),
            "{name}"
        );
    }
    let export = json(&std::fs::read(collected.join("export.json")).expect("export"));
    let message = git(&remote.bare, &["log", "-1", "--format=%B", &tip]);
    let days = export["days"].as_array().expect("days");
    let subject = format!(
        "data: export of 2026-11-21 ({} day(s) to {}, 5 model(s), supply: 1 collection(s))",
        days.len(),
        common::sources::END
    );
    assert!(message.starts_with(&subject), "{message}");
    assert!(message.contains(
        export["demand_source"]["attribution"]
            .as_str()
            .expect("text")
    ));
    assert!(message.contains(&format!("Main at {main}.")));
    assert_eq!(
        remote.show(&tip, "scripts/netlify/build.sh"),
        remote.show(&main, "scripts/netlify/build.sh"),
        "the data branch is main plus data/live"
    );

    // Netlify builds it: the site serves the accepted export and passes verify and smoke.
    let checkout = remote.checkout_data("checkout2");
    let built = netlify_build(&checkout, &run.dir);
    let text = common::output_text(&built);
    assert!(built.status.success(), "{text}");
    assert!(
        text.contains("build the edge layout from data/live/export.json"),
        "{text}"
    );
    assert!(text.contains("verified "), "{text}");
    let site = checkout.join("out");
    // Netlify publishes the edge layout (DESIGN §8.1): list answers as parts, no list pages.
    let routes: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("_api/routes.json")).expect("routes"))
            .expect("JSON");
    assert!(routes["edge"]["orderings"].is_object(), "{routes}");
    assert!(!site.join("_api/models/list").exists());
    assert!(verified_has_data(&site));
    assert_eq!(
        std::fs::read(site.join("api/export.json")).expect("feed"),
        std::fs::read(collected.join("export.json")).expect("collected")
    );
    assert_edge_functions_bundled(&checkout);
    let smoke = common::tools::command("bash")
        .arg(common::crate_path("scripts/nightly/smoke.sh"))
        .arg(common::serve_on_loopback(&site))
        .arg(&site)
        .output()
        .expect("bash runs");
    assert!(smoke.status.success(), "{}", common::output_text(&smoke));

    // Collecting the same sources again, with the published pair as the previous files, gives
    // the same pair: nothing to commit, the build hook rebuilds.
    let run = remote.nightly("run2b", &collecting(&standin), &standin);
    assert!(run.accepted, "{}", run.collect_text);
    assert_eq!(run.published_as, "published=rebuild\n");
    assert!(
        common::output_text(&run.publish).contains("the accepted inputs are the published ones")
    );
    assert_eq!(remote.data_tip().as_deref(), Some(tip.as_str()));

    // 3. The newest export is refused: nothing is committed; the build hook rebuilds.
    let bad = remote.tmp.path().join("bad.json");
    std::fs::write(&bad, b"{\"export_schema_version\": 2}").expect("write");
    standin.clear_log();
    let run = remote.nightly(
        "run3",
        &[("EXPORT_URL", format!("file://{}", bad.display()))],
        &standin,
    );
    assert!(!run.accepted);
    assert!(
        run.collect_text
            .contains("the export at EXPORT_URL is refused"),
        "{}",
        run.collect_text
    );
    assert!(run.publish.status.success());
    assert_eq!(run.published_as, "published=rebuild\n");
    assert_eq!(remote.data_tip().as_deref(), Some(tip.as_str()));
    let hooks: Vec<_> = standin
        .log()
        .into_iter()
        .filter(|r| r.target.starts_with("/build_hooks/"))
        .collect();
    assert_eq!(hooks.len(), 1, "{hooks:?}");
    assert_eq!(hooks[0].method, "POST");
    assert!(
        std::fs::read(run.dir.join("published/export.json")).expect("published")
            == remote.show(&tip, "data/live/export.json"),
        "the published inputs were read back"
    );

    // 4. Main moved and collecting fails: the data branch follows main with the same inputs.
    let new_main = remote.move_main();
    standin.route(&common::sources::rankings_target(), vec![Reply::error(401)]);
    let run = remote.nightly("run4", &collecting(&standin), &standin);
    assert!(!run.accepted);
    assert!(run.publish.status.success());
    let followed = remote.data_tip().expect("data branch");
    assert_eq!(parents(&remote, &followed), vec![tip.clone(), new_main]);
    for name in ["data/live/export.json", "data/live/supply.json"] {
        assert_eq!(
            remote.show(&followed, name),
            remote.show(&tip, name),
            "{name}"
        );
    }
    let subject = git(&remote.bare, &["log", "-1", "--format=%s", &followed]);
    assert!(
        subject.starts_with("data: follow main; no new export accepted (collecting failed"),
        "{subject}"
    );

    // 5. An input the build refuses (edited by hand on the branch) fails Netlify's build, so
    //    Netlify keeps the live deploy; the refusal names its JSON path.
    let checkout = remote.checkout_data("checkout5");
    let path = checkout.join("data/live/export.json");
    let mut broken = json(&std::fs::read(&path).expect("export"));
    broken["fresh_until"] = serde_json::json!("tomorrow");
    std::fs::write(&path, serde_json::to_vec(&broken).expect("json")).expect("write");
    let built = netlify_build(&checkout, &run.dir);
    let text = common::output_text(&built);
    assert!(!built.status.success(), "{text}");
    assert!(text.contains("$.fresh_until"), "{text}");
    assert!(!checkout.join("out").exists());
}
