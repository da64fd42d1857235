#!/usr/bin/env python3
"""An independent oracle for the model records: DESIGN §4 written again, in Python, with
fractions.Fraction and decimal.Decimal, sharing no code with the Rust derivation.

Usage: oracle.py --export P [--supply P] --now RFC3339 < queries
Reads raw query strings (one per line) and prints one JSON body per line for each 200 answer
(list pages and exact lookups), or {"status": N} for anything else.
"""
import argparse
import datetime as dt
import json
import sys
from decimal import Decimal, ROUND_HALF_EVEN
from fractions import Fraction
from urllib.parse import unquote_plus

DAY = dt.timedelta(days=1)
SORTS = ["tokens_30d", "latest_rank", "total_parameters", "active_parameters",
         "smallest_quant_checkpoint_bytes", "full_sequence_attention_bytes"]
FACT_UNITS = {
    "total_parameters": "parameters", "active_parameters": "parameters",
    "architecture_type": "architecture", "base_checkpoint_bytes": "bytes",
    "bf16_weights_bytes": "bytes", "smallest_quant_checkpoint_bytes": "bytes",
    "smallest_quant_format": "format", "smallest_quant_bit_width": "bits",
    "attention_bytes_per_token": "bytes_per_token", "full_sequence_attention_bytes": "bytes",
    "recurrent_state_bytes": "bytes", "calculation_sequence_length": "tokens",
}


def ts(text):
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)


def plain(frac):
    """Half-to-even at 12 fractional digits, written plainly."""
    scaled = frac * 10**12
    floor = scaled.numerator // scaled.denominator
    rest = scaled - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1):
        floor += 1
    text = str(Decimal(floor).scaleb(-12).quantize(Decimal("1e-12")))
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def dec_plain(d):
    text = format(d.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def vo(value, unit, reason=None):
    if reason is None:
        return {"value": value, "unit": unit, "state": "available", "reason": None}
    return {"value": None, "unit": unit, "state": "unavailable", "reason": reason}


def derive(export, supply, now):
    cutoff = ts(export["evaluation_cutoff"])
    end = cutoff.date() - DAY
    dates = [end - DAY * i for i in range(29, -1, -1)]
    last7, prior7 = dates[-7:], dates[-14:-7]
    days = {dt.date.fromisoformat(d["date"]): d for d in export["days"]}
    rows = {date: {r["model_id"]: int(r["total_tokens"]) for r in d["rows"]} for date, d in days.items()}
    served = sorted({m for date in dates if date in rows for m in rows[date]})
    first_seen = {}
    for date in sorted(rows):
        for m in rows[date]:
            first_seen.setdefault(m, date)
    market = {date: (None if d["other_tokens"] is None else sum(rows[date].values()) + int(d["other_tokens"]))
              for date, d in days.items()}

    def total(m, period):
        if any(d not in rows for d in period):
            return None, "source_day_missing"
        if any(m not in rows[d] for d in period):
            return None, "outside_top_50_on_some_days"
        return sum(rows[d][m] for d in period), None

    def share(m, period):
        t, why = total(m, period)
        if why:
            return None, why
        if any(market[d] is None for d in period):
            return None, "market_total_unavailable"
        return Fraction(t, sum(market[d] for d in period)), None

    ranks = {}
    if end in rows:
        ordered = sorted(rows[end].items(), key=lambda kv: (-kv[1], kv[0].encode()))
        ranks = {m: (i + 1, t) for i, (m, t) in enumerate(ordered)}
    models = {m["model_id"]: m for m in export["models"]}
    supply_of = supply_states(supply)
    records = []
    for m in served:
        if end not in rows:
            latest = (None, "source_day_missing")
        elif m not in ranks:
            latest = (None, "outside_top_50_on_latest_day")
        else:
            latest = (ranks[m], None)
        t7, t30 = total(m, last7), total(m, dates)
        s7, s30, sp = share(m, last7), share(m, dates), share(m, prior7)
        if s7[0] is None or sp[0] is None:
            trend = {"direction": "unknown", "state": "unavailable",
                     "reason": "share_7d_unavailable" if s7[0] is None else "share_prior_7d_unavailable",
                     "relative_change": None, "percentage_point_change": None}
        else:
            diff = s7[0] - sp[0]
            trend = {"direction": "up" if diff > 0 else "down" if diff < 0 else "flat",
                     "state": "available", "reason": None,
                     "relative_change": plain(diff / sp[0]), "percentage_point_change": plain(diff * 100)}
        facts = {name: {"value": f["value"], "unit": FACT_UNITS[name], "state": f["state"],
                        "reason": f["reason"], "source_url": f["source_url"]}
                 for name, f in ((n, models[m]["facts"][n]) for n in FACT_UNITS)}
        def share_vo(s):
            return vo(plain(s[0]), "fraction") if s[0] is not None else vo(None, "fraction", s[1])
        def tok_vo(t):
            return vo(str(t[0]), "tokens") if t[0] is not None else vo(None, "tokens", t[1])
        records.append({
            "model_id": m, "model_release_id": models[m]["model_release_id"],
            "first_visible_date": first_seen[m].isoformat(),
            "latest_rank": {"value": latest[0][0], "state": "available", "reason": None} if latest[0]
            else {"value": None, "state": "unavailable", "reason": latest[1]},
            "latest_tokens": vo(str(latest[0][1]), "tokens") if latest[0] else vo(None, "tokens", latest[1]),
            "tokens_7d": tok_vo(t7), "tokens_30d": tok_vo(t30),
            "share_7d": share_vo(s7), "share_30d": share_vo(s30), "share_prior_7d": share_vo(sp),
            "trend": trend, "facts": facts, "supply": supply_of(m),
        })
    fresh_until = export["fresh_until"]
    if fresh_until is None:
        freshness = {"state": "stale", "fresh_until": None, "reason": "freshness_deadline_unknown"}
    elif now <= ts(fresh_until):
        freshness = {"state": "fresh", "fresh_until": fresh_until, "reason": "within_expected_update_window"}
    else:
        freshness = {"state": "stale", "fresh_until": fresh_until, "reason": "past_expected_update_window"}
    head = {"schema_version": "model-demand.agent-api.v1", "generated_at": export["generated_at"],
            "evaluation_cutoff": export["evaluation_cutoff"], "freshness": freshness,
            "window": {"start_date": dates[0].isoformat(), "end_date": end.isoformat(), "days": 30},
            "source": export["demand_source"]}
    return head, records


def supply_states(supply):
    cols = sorted((supply or {}).get("collections", []), key=lambda c: ts(c["finished_at"]))
    if not cols:
        return lambda m: {"state": "not_collected", "reason": "supply_not_collected", "summary": None}
    latest = cols[-1]
    last_date = ts(latest["finished_at"]).date()
    complete = {ts(c["finished_at"]).date() for c in cols if c["status"] == "complete"}
    history_ready = all(last_date - DAY * i in complete for i in range(7))

    def median(values):
        values = sorted(Decimal(v) for v in values if v is not None)
        if not values:
            return vo(None, "", "no_endpoint_reported")
        n = len(values)
        mid = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
        return vo(dec_plain(mid), "")

    def state(m):
        if latest["status"] == "failed":
            return {"state": "temporarily_unavailable", "reason": "latest_collection_failed", "summary": None}
        routes = [r for r in latest["routes"] if r["route_id"] == m] or \
                 [r for r in latest["routes"] if r["model_id"] == m]
        if not routes:
            return {"state": "current_route_not_found", "reason": "no_current_route", "summary": None}
        if len(routes) > 1:
            return {"state": "current_route_ambiguous", "reason": "several_current_routes", "summary": None}
        r, eps = routes[0], routes[0]["endpoints"]
        def with_unit(v, unit):
            return {**v, "unit": unit}
        contexts = [e["context_length"] for e in eps if e["context_length"] is not None]
        return {"state": "available", "reason": None, "summary": {
            "route_id": r["route_id"], "route_type": r["route_type"],
            "collection_finished_at": latest["finished_at"], "history_ready": history_ready,
            "listed_endpoints": vo(len(eps), "endpoints"),
            "listed_providers": vo(len({e["provider"] for e in eps}), "providers"),
            "median_input_price_per_million": with_unit(median(e["input_price_per_million"] for e in eps), "usd_per_million_tokens"),
            "median_output_price_per_million": with_unit(median(e["output_price_per_million"] for e in eps), "usd_per_million_tokens"),
            "median_latency_ms": with_unit(median(e["latency_ms"] for e in eps), "milliseconds"),
            "median_throughput_tokens_per_second": with_unit(median(e["throughput_tokens_per_second"] for e in eps), "tokens_per_second"),
            "median_uptime_percent": with_unit(median(e["uptime_percent"] for e in eps), "percent"),
            "maximum_context_tokens": vo(max(contexts), "tokens") if contexts else vo(None, "tokens", "no_endpoint_reported"),
            "quantizations": sorted({e["quantization"] for e in eps if e["quantization"] is not None}),
        }}
    return state


def sort_key(record, sort):
    if sort == "tokens_30d":
        v = record["tokens_30d"]["value"]
    elif sort == "latest_rank":
        v = record["latest_rank"]["value"]
    else:
        v = record["facts"][sort]["value"]
    return None if v is None else int(v)


def answer(head, records, query):
    params = dict(unquote_plus(p).split("=", 1) if "=" in p else (p, "") for p in query.split("&") if p)
    if "model_id" in params:
        found = [r for r in records if r["model_id"] == params["model_id"]]
        if not found:
            return {"status": 404}
        return {**head, "query": {"mode": "exact_model", "model_id": params["model_id"], "sort": None,
                                   "order": None, "limit": 1, "offset": 0},
                "pagination": {"total_matching_models": 1, "offset": 0, "limit": 1, "returned_count": 1,
                               "has_next_page": False}, "models": found}
    sort, order = params.get("sort", "tokens_30d"), params.get("order", "desc")
    limit, offset = int(params.get("limit", 25)), int(params.get("offset", 0))
    known = [r for r in records if sort_key(r, sort) is not None]
    unknown = sorted((r for r in records if sort_key(r, sort) is None), key=lambda r: r["model_id"].encode())
    known.sort(key=lambda r: r["model_id"].encode())
    known.sort(key=lambda r: sort_key(r, sort), reverse=(order == "desc"))
    ordered = known + unknown
    page = ordered[offset:offset + limit]
    return {**head, "query": {"mode": "list", "model_id": None, "sort": sort, "order": order,
                              "limit": limit, "offset": offset},
            "pagination": {"total_matching_models": len(ordered), "offset": offset, "limit": limit,
                           "returned_count": len(page), "has_next_page": offset + len(page) < len(ordered)},
            "models": page}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--export", required=True)
    ap.add_argument("--supply")
    ap.add_argument("--now", required=True)
    args = ap.parse_args()
    export = json.load(open(args.export, encoding="utf-8"))
    supply = json.load(open(args.supply, encoding="utf-8")) if args.supply else None
    head, records = derive(export, supply, ts(args.now))
    for line in sys.stdin:
        print(json.dumps(answer(head, records, line.rstrip("\n"))))


if __name__ == "__main__":
    main()
