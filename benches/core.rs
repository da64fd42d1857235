//! Times the core on the bundled sample: load (read + parse), validate, derive and render,
//! each reported separately, and the flat tables, the share chart and the docs page the build
//! writes beside the feeds. Run with
//! `cargo bench --bench core`; `cargo bench --bench core -- EXPORT SUPPLY NOW` times other
//! inputs (a synthetic export of benches/scale_export.py, for example).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use model_demand::{answers::render, input::export, input::json, input::supply, records};

fn best_of<T>(runs: usize, mut work: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let started = Instant::now();
        let value = work();
        best = best.min(started.elapsed());
        last = Some(value);
    }
    (best, last.expect("at least one run"))
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // cargo passes `--bench` to a bench without a harness.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let (export_path, supply_path, now) = match args.as_slice() {
        [e, s, n] => (PathBuf::from(e), PathBuf::from(s), n.clone()),
        _ => (
            root.join(model_demand::SAMPLE_EXPORT),
            root.join(model_demand::SAMPLE_SUPPLY),
            "2026-11-21T12:00:00Z".to_string(),
        ),
    };
    let runs = 20;
    let (load, (raw_export, raw_supply)) = best_of(runs, || {
        let e = json::read(&export_path).expect("sample export parses");
        let s = json::read(&supply_path).expect("sample supply parses");
        (e, s)
    });
    let (validate, (export, supply)) = best_of(runs, || {
        let e = export::validate(&raw_export).expect("sample export is accepted");
        let s = supply::validate(&raw_supply).expect("sample supply is accepted");
        (e, s)
    });
    let now = model_demand::parse_now(&now).expect("valid --now");
    let (derive, catalog) = best_of(runs, || records::derive(&export, Some(&supply), now));
    let (render, rendered) = best_of(runs, || render::Rendered::new(&catalog));
    let inputs = model_demand::load(&export_path, Some(&supply_path)).expect("inputs accepted");
    let (tables, files) = best_of(runs, || {
        model_demand::answers::tables::files(&inputs, &catalog)
    });
    let table_bytes: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();
    // Made and written, as the build does beside the feeds (into the temporary directory).
    let out = std::env::temp_dir().join(format!("model-demand-core-bench-{}", std::process::id()));
    let (tables_written, ()) = best_of(runs, || {
        for (path, bytes) in model_demand::answers::tables::files(&inputs, &catalog) {
            let file = out.join(path);
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).expect("temporary directory");
            }
            std::fs::write(&file, bytes).expect("written");
        }
    });
    let _ = std::fs::remove_dir_all(&out);
    // The charts (the share chart: one pass over the history's days; the trend chart: one over
    // the records) and the docs page, which draws them again inline.
    let (charts, chart_files) = best_of(runs, || {
        model_demand::answers::charts::files(&inputs.export, &catalog)
    });
    let chart_bytes: usize = chart_files.iter().map(|(_, bytes)| bytes.len()).sum();
    let (page, html) = best_of(runs, || {
        model_demand::answers::page::page(Some((&inputs, &catalog)), "https://x.test")
    });
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "sample: {} models served, best of {runs} runs",
        rendered.total()
    );
    println!("load (read + parse JSON): {:8.2} ms", ms(load));
    println!("validate (the gate):      {:8.2} ms", ms(validate));
    println!("derive (records):         {:8.2} ms", ms(derive));
    println!("render (fragments, sorts):{:8.2} ms", ms(render));
    println!(
        "tables (5 files, {:.2} MB): {:5.2} ms made, {:.2} ms made and written",
        table_bytes as f64 / 1e6,
        ms(tables),
        ms(tables_written)
    );
    println!(
        "charts ({} files, {:.1} kB, over {} days): {:5.2} ms made",
        chart_files.len(),
        chart_bytes as f64 / 1e3,
        inputs.export.days.len(),
        ms(charts)
    );
    println!(
        "docs page ({:.1} kB, the charts inline): {:5.2} ms made",
        html.len() as f64 / 1e3,
        ms(page)
    );
    println!(
        "total:                    {:8.2} ms",
        ms(load + validate + derive + render)
    );
}
