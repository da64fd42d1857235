"""Loads each flat table of a built site as an analyst would, in one call per library, and
checks that every column comes out typed as the data package says (integers as integers,
decimals as numbers, dates as dates), that every empty cell and only those are read as
missing, that no column name is a reserved word of DuckDB's SQL, and that the package
validates with the `frictionless` tool. Usage: read_tables.py DIR (DIR holds datapackage.json
and the CSV files). Prints one line per table; exits 1 with every problem listed.

The calls are the ones docs/api.md gives:
  pandas.read_csv(path, engine="pyarrow", dtype_backend="pyarrow")
  polars.read_csv(path, try_parse_dates=True, infer_schema_length=None)
  duckdb: SELECT * FROM read_csv_auto('path')
"""

import csv
import json
import pathlib
import subprocess
import sys

import duckdb
import pandas
import polars
import pyarrow


def raw_columns(path):
    """Each column's cells as the CSV module reads them (an RFC 4180 reader of its own)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return header, {name: [r[i] for r in body] for i, name in enumerate(header)}, len(body)


def whole(cells):
    return all("." not in c for c in cells if c != "")


def pandas_ok(kind, dtype, cells):
    if not isinstance(dtype, pandas.ArrowDtype):
        return False
    t = dtype.pyarrow_dtype
    if all(c == "" for c in cells):
        return True
    return {
        "integer": pyarrow.types.is_integer(t),
        "number": pyarrow.types.is_floating(t)
        or pyarrow.types.is_decimal(t)
        or (pyarrow.types.is_integer(t) and whole(cells)),
        "date": pyarrow.types.is_date(t),
        "datetime": pyarrow.types.is_timestamp(t),
        "boolean": pyarrow.types.is_boolean(t),
        "string": pyarrow.types.is_string(t) or pyarrow.types.is_large_string(t),
        "array": pyarrow.types.is_string(t) or pyarrow.types.is_large_string(t),
    }[kind]


def polars_ok(kind, dtype, cells):
    if all(c == "" for c in cells):
        return True
    return {
        "integer": dtype.is_integer(),
        "number": dtype.is_float() or dtype.is_decimal() or (dtype.is_integer() and whole(cells)),
        "date": dtype == polars.Date,
        "datetime": isinstance(dtype, polars.Datetime),
        "boolean": dtype == polars.Boolean,
        "string": dtype == polars.String,
        "array": dtype == polars.String,
    }[kind]


INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UBIGINT", "UINTEGER")


def duckdb_ok(kind, dtype, cells):
    name = str(dtype)
    if all(c == "" for c in cells):
        return True
    return {
        "integer": name in INTEGERS,
        "number": name in ("DOUBLE", "FLOAT")
        or name.startswith("DECIMAL")
        or (name in INTEGERS and whole(cells)),
        "date": name == "DATE",
        "datetime": name.startswith("TIMESTAMP"),
        "boolean": name == "BOOLEAN",
        "string": name == "VARCHAR",
        "array": name == "VARCHAR" or name.endswith("[]"),
    }[kind]


def main():
    root = pathlib.Path(sys.argv[1])
    package = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    reserved = {
        row[0]
        for row in duckdb.sql(
            "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category = 'reserved'"
        ).fetchall()
    }
    problems = []
    for resource in package["resources"]:
        path = root / resource["path"]
        fields = resource["schema"]["fields"]
        header, cells, count = raw_columns(path)
        names = [f["name"] for f in fields]
        if header != names:
            problems.append(f"{path.name}: header {header} is not the schema's {names}")
            continue
        for name in names:
            if name in reserved:
                problems.append(f"{path.name}: column {name} is a reserved word of SQL")
        frames = {
            "pandas": pandas.read_csv(path, engine="pyarrow", dtype_backend="pyarrow"),
            "polars": polars.read_csv(path, try_parse_dates=True, infer_schema_length=None),
            "duckdb": duckdb.sql(f"SELECT * FROM read_csv_auto('{path}')"),
        }
        pdf, pldf, rel = frames["pandas"], frames["polars"], frames["duckdb"]
        if list(pdf.columns) != names or pldf.columns != names or rel.columns != names:
            problems.append(f"{path.name}: a reader saw other column names")
            continue
        if len(pdf) != count or pldf.height != count or rel.shape[0] != count:
            problems.append(
                f"{path.name}: rows {count}, read {len(pdf)} / {pldf.height} / {rel.shape[0]}"
            )
        duck_types = dict(zip(rel.columns, rel.types))
        duck_nulls = rel.aggregate(
            ", ".join(f'count(*) - count("{n}")' for n in names)
        ).fetchall()[0]
        for i, field in enumerate(fields):
            name, kind = field["name"], field["type"]
            column = cells[name]
            empty = sum(1 for c in column if c == "")
            checks = [
                ("pandas", pandas_ok(kind, pdf[name].dtype, column), str(pdf[name].dtype),
                 int(pdf[name].isna().sum())),
                ("polars", polars_ok(kind, pldf.schema[name], column), str(pldf.schema[name]),
                 pldf[name].null_count()),
                ("duckdb", duckdb_ok(kind, duck_types[name], column), str(duck_types[name]),
                 duck_nulls[i]),
            ]
            for reader, typed, dtype, nulls in checks:
                if not typed:
                    problems.append(f"{path.name}.{name} ({kind}): {reader} reads it as {dtype}")
                if nulls != empty:
                    problems.append(
                        f"{path.name}.{name}: {empty} empty cells, {reader} reads {nulls} missing"
                    )
        print(f"{path.name}: {count} rows, {len(names)} columns, typed alike by pandas, polars and DuckDB")
    tool = pathlib.Path(sys.executable).parent / "frictionless"
    out = subprocess.run(
        [str(tool), "validate", "datapackage.json", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    try:
        report = json.loads(out.stdout)
        valid = report.get("valid") is True
    except ValueError:
        report, valid = None, False
    if out.returncode != 0 or not valid:
        problems.append(f"frictionless validate: exit {out.returncode}\n{out.stdout}\n{out.stderr}")
    else:
        tasks = report.get("tasks", [])
        print(f"frictionless validate: valid, {len(tasks)} resources")
    if problems:
        print("\n".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
