//! Times the core on the bundled sample: load (read + parse), validate, derive and render,
//! each reported separately. Run with `cargo bench --bench core`.

use std::path::Path;
use std::time::{Duration, Instant};

use model_demand::{export, json, records, render, supply};

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
    let export_path = root.join(model_demand::SAMPLE_EXPORT);
    let supply_path = root.join(model_demand::SAMPLE_SUPPLY);
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
    let now = model_demand::parse_now("2026-11-21T12:00:00Z").expect("valid --now");
    let (derive, catalog) = best_of(runs, || records::derive(&export, Some(&supply), now));
    let (render, rendered) = best_of(runs, || render::Rendered::new(&catalog));
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
        "total:                    {:8.2} ms",
        ms(load + validate + derive + render)
    );
}
