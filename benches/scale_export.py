#!/usr/bin/env python3
"""Synthetic export and supply feed with N served models, for benches/scale.sh.

Scales the bundled sample up: its model entries (facts in every state, `:free`/`:thinking`
variants) are cloned under new ids, and 113 days of top-50 rankings are drawn so that exactly N
models have a row in the 30-day window: 40 stay in the top 50 every day (fewer past N = 340), the
other N - 40 rotate through the remaining 10 places (so they enter and drop out), and the days before the
window rank clones that are no longer served. `--shift 1` gives the next night's export (one
day later), to count the files a nightly deploy changes.

Usage: scale_export.py N OUTDIR [--shift DAYS]; prints the `--now` to build with.
"""
import copy
import datetime
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
HISTORY = 112  # days in each export, as in the sample
WINDOW = 30
CORE = 40  # models in the top 50 on every day of the window


def clone_id(model_id, c):
    """The c-th clone of an id: `-s<c>` before any variant suffix (c = 0 keeps the id)."""
    if c == 0:
        return model_id
    base, colon, variant = model_id.partition(":")
    return f"{base}-s{c}{colon}{variant}"


def stamp(day, hours=0):
    t = datetime.datetime.combine(day, datetime.time()) + datetime.timedelta(hours=hours)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    n = int(sys.argv[1])
    out = Path(sys.argv[2])
    shift = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--shift" else 0
    # Past 340 served models, fewer stay in the top 50 every day so that the rotating places
    # reach all of them within the window: core + 30 x (50 - core) >= N (unchanged up to 340).
    core = min(CORE, (50 * WINDOW - n) // (WINDOW - 1))
    slots = 50 - core
    assert core >= 1 and n >= core + 1, "N must be between 41 and 1,471"
    export = json.loads((SAMPLE / "export.json").read_text())
    supply = json.loads((SAMPLE / "supply.json").read_text())
    rng = random.Random(n)

    # The universe: enough clones of the sample's models for N served plus as many unserved.
    originals = export["models"]
    clones = 2 * n // len(originals) + 2
    universe = []
    for c in range(clones):
        for m in originals:
            entry = copy.deepcopy(m)
            entry["model_id"] = clone_id(m["model_id"], c)
            entry["model_release_id"] = clone_id(m["model_release_id"], c)
            universe.append(entry)
    order = list(range(len(universe)))
    rng.shuffle(order)
    served = [universe[i]["model_id"] for i in order[:n]]
    retired = [universe[i]["model_id"] for i in order[n:]]
    level = {e["model_id"]: rng.uniform(2e9, 6e10) for e in universe}

    # Days: the window's last day is the sample's last day plus `shift`; one ranking schedule
    # for all shifts, so the shifted export is the next night's export of the same world.
    last = datetime.date.fromisoformat(export["days"][-1]["date"]) + datetime.timedelta(days=shift)
    first_window = datetime.date.fromisoformat(export["days"][-1]["date"]) - datetime.timedelta(
        days=WINDOW - 1
    )
    pool = served[core:]
    days = []
    for k in range(HISTORY):
        day = last - datetime.timedelta(days=HISTORY - 1 - k)
        day_rng = random.Random(f"{n}-{day}")
        i = (day - first_window).days
        if i >= 0:
            ranked = served[:core] + [pool[(i * slots + j) % len(pool)] for j in range(slots)]
        else:
            ranked = day_rng.sample(served[:core], min(25, core)) + day_rng.sample(retired, 25)
        rows = [
            (mid, int(level[mid] * day_rng.uniform(0.7, 1.3)) + 1) for mid in dict.fromkeys(ranked)
        ]
        rows.sort(key=lambda r: (-r[1], r[0]))
        days.append(
            {
                "date": day.isoformat(),
                "rows": [{"model_id": mid, "total_tokens": str(t)} for mid, t in rows],
                "other_tokens": str(day_rng.randrange(10**11, 3 * 10**11)),
            }
        )
    cutoff = last + datetime.timedelta(days=1)
    export["days"] = days
    export["models"] = universe
    export["evaluation_cutoff"] = stamp(cutoff)
    export["generated_at"] = stamp(cutoff, 2)
    export["fresh_until"] = stamp(cutoff, 32)
    export["demand_source"]["checked_at"] = stamp(cutoff, 1)
    export["demand_source"]["attribution"] = (
        f"Source: OpenRouter (openrouter.ai/rankings), as of {stamp(cutoff, 1)}. "
        "Licensed under CC BY 4.0."
    )

    # Supply: every collection's routes repeated for each clone that is served.
    served_set = set(served)
    for collection in supply["collections"]:
        routes = []
        for c in range(clones):
            for route in collection["routes"]:
                model = clone_id(route["model_id"], c)
                if model in served_set:
                    r = copy.deepcopy(route)
                    r["model_id"] = model
                    r["route_id"] = clone_id(route["route_id"], c)
                    routes.append(r)
        collection["routes"] = routes

    out.mkdir(parents=True, exist_ok=True)
    (out / "export.json").write_text(json.dumps(export))
    (out / "supply.json").write_text(json.dumps(supply))
    print(stamp(cutoff, 12))


if __name__ == "__main__":
    main()
