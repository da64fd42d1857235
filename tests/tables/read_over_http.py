"""Loads every flat table of a running preview server over HTTP, as an analyst following
docs/api.md would against the published site, and checks each frame equals the one the same
call reads from the file on disk. polars (and DuckDB's httpfs) read by byte ranges, so this is
where a server that ignores `Range` fails. Usage: read_over_http.py BASE_URL DIR (BASE_URL is
`http://127.0.0.1:PORT`; DIR holds the site's api/tables/ files). Prints one line per table and
reader; exits 1 with every problem listed.

DuckDB reads HTTP through its httpfs extension, which DuckDB downloads from its own extension
site (not a package registry); where that cannot be reached the script says so and goes on.
"""

import json
import pathlib
import sys
import urllib.request

import duckdb
import pandas
import polars


def pandas_read(source):
    return pandas.read_csv(source, engine="pyarrow", dtype_backend="pyarrow")


def polars_read(source):
    return polars.read_csv(source, try_parse_dates=True, infer_schema_length=None)


def duckdb_httpfs():
    """A DuckDB connection with httpfs loaded, or the reason it cannot be."""
    con = duckdb.connect()
    try:
        con.sql("LOAD httpfs")
        return con, None
    except duckdb.Error:
        pass
    try:
        con.sql("INSTALL httpfs")
        con.sql("LOAD httpfs")
        return con, None
    except duckdb.Error as e:
        return None, str(e).splitlines()[0]


def main():
    base, root = sys.argv[1].rstrip("/"), pathlib.Path(sys.argv[2])
    with urllib.request.urlopen(f"{base}/api/tables/datapackage.json") as answer:
        package = json.loads(answer.read())
    local = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    problems = []
    if package != local:
        problems.append("datapackage.json over HTTP is not the file")
    con, why = duckdb_httpfs()
    if con is None:
        print(f"DuckDB httpfs: cannot be installed here, DuckDB not read over HTTP ({why})")
    for resource in package["resources"]:
        name = resource["path"]
        url, path = f"{base}/api/tables/{name}", root / name
        for reader, read in [("pandas", pandas_read), ("polars", polars_read)]:
            try:
                remote, disk = read(url), read(path)
            except Exception as e:  # noqa: BLE001: the reader's own error is the finding
                problems.append(f"{name}: {reader} over HTTP: {type(e).__name__}: {e}")
                continue
            same = remote.equals(disk)
            if not same:
                problems.append(f"{name}: {reader} over HTTP reads other values than from the file")
            print(f"{name}: {reader} over HTTP, {len(remote)} rows, {'the file' if same else 'DIFFERENT'}")
        twin = resource["parquet"]["path"]
        try:
            remote = polars.read_parquet(f"{base}/api/tables/{twin}")
            same = remote.equals(polars.read_parquet(root / twin))
        except Exception as e:  # noqa: BLE001: the reader's own error is the finding
            problems.append(f"{twin}: polars over HTTP: {type(e).__name__}: {e}")
        else:
            if not same:
                problems.append(f"{twin}: polars over HTTP reads other values than from the file")
            print(f"{twin}: polars over HTTP, {len(remote)} rows, {'the file' if same else 'DIFFERENT'}")
        if con is not None:
            remote = con.sql(f"SELECT * FROM read_csv_auto('{url}')").fetchall()
            disk = con.sql(f"SELECT * FROM read_csv_auto('{path}')").fetchall()
            if remote != disk:
                problems.append(f"{name}: DuckDB over HTTP reads other values than from the file")
            print(f"{name}: duckdb httpfs, {len(remote)} rows")
    if problems:
        print("\n".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
