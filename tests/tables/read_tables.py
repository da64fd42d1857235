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

Then each table's Parquet twin (the resource's `parquet` member), read in one call by the same
three (pandas.read_parquet(path, dtype_backend="pyarrow"), polars.read_parquet(path), DuckDB's
read_parquet): every column typed as the package says whatever its values (INT64, exact
DECIMAL at the column's scale, DATE, TIMESTAMP, BOOLEAN, STRING), even when all are unknown,
and every value equal to the CSV cell (a text cell's guarding apostrophe taken off).
"""

import datetime
import decimal

import csv
import json
import pathlib
import subprocess
import sys

import duckdb
import pandas
import polars
import pyarrow
import pyarrow.parquet


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


def pyarrow_type(name):
    """The pyarrow type of a Parquet type as the package names it."""
    if name == "INT64":
        return pyarrow.int64()
    if name.startswith("DECIMAL("):
        precision, scale = name[len("DECIMAL("):-1].split(",")
        return pyarrow.decimal128(int(precision), int(scale))
    return {
        "DATE": pyarrow.date32(),
        "TIMESTAMP(MICROS,UTC)": pyarrow.timestamp("us", tz="UTC"),
        "BOOLEAN": pyarrow.bool_(),
        "STRING": pyarrow.string(),
    }[name]


WANTED = {
    "integer": lambda n: n == "INT64",
    "number": lambda n: n.startswith("DECIMAL(38,"),
    "date": lambda n: n == "DATE",
    "datetime": lambda n: n == "TIMESTAMP(MICROS,UTC)",
    "boolean": lambda n: n == "BOOLEAN",
    "string": lambda n: n == "STRING",
    "array": lambda n: n == "STRING",
}


def polars_type(name):
    if name == "INT64":
        return polars.Int64
    if name.startswith("DECIMAL("):
        precision, scale = name[len("DECIMAL("):-1].split(",")
        return polars.Decimal(int(precision), int(scale))
    return {
        "DATE": polars.Date,
        "TIMESTAMP(MICROS,UTC)": polars.Datetime("us", "UTC"),
        "BOOLEAN": polars.Boolean,
        "STRING": polars.String,
    }[name]


def duckdb_type(name):
    if name.startswith("DECIMAL("):
        return name
    return {
        "INT64": "BIGINT",
        "DATE": "DATE",
        "TIMESTAMP(MICROS,UTC)": "TIMESTAMP WITH TIME ZONE",
        "BOOLEAN": "BOOLEAN",
        "STRING": "VARCHAR",
    }[name]


def as_text(value):
    """A Parquet value as the CSV writes it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, decimal.Decimal):
        text = format(value, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def unguarded(kind, cell):
    """A CSV cell's exact value: a text cell's guarding apostrophe taken off."""
    if kind in ("string",) and cell.startswith("'"):
        return cell[1:]
    return cell


def check_parquet(root, resource, cells, count, problems):
    twin = resource.get("parquet")
    if not twin:
        problems.append(f"{resource['path']}: no parquet member")
        return
    path = root / twin["path"]
    fields = resource["schema"]["fields"]
    names = [f["name"] for f in fields]
    types = twin["types"]
    if list(types) != names:
        problems.append(f"{path.name}: types name other columns")
        return
    table = pyarrow.parquet.read_table(path)
    pdf = pandas.read_parquet(path, dtype_backend="pyarrow")
    pldf = polars.read_parquet(path)
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{path}')")
    duck_types = dict(zip(rel.columns, [str(t) for t in rel.types]))
    if list(pdf.columns) != names or pldf.columns != names or rel.columns != names:
        problems.append(f"{path.name}: a reader saw other column names")
        return
    if len(pdf) != count or pldf.height != count or rel.shape[0] != count:
        problems.append(f"{path.name}: rows {count}, read {len(pdf)} / {pldf.height} / {rel.shape[0]}")
    for field in fields:
        name, kind = field["name"], field["type"]
        ptype = types[name]
        if not WANTED[kind](ptype):
            problems.append(f"{path.name}.{name} ({kind}) is {ptype}")
        wanted = pyarrow_type(ptype)
        got = pdf[name].dtype
        if not isinstance(got, pandas.ArrowDtype) or got.pyarrow_dtype != wanted:
            problems.append(f"{path.name}.{name}: pandas reads {got}, not {wanted}")
        if pldf.schema[name] != polars_type(ptype):
            problems.append(f"{path.name}.{name}: polars reads {pldf.schema[name]}, not {ptype}")
        if duck_types[name] != duckdb_type(ptype):
            problems.append(f"{path.name}.{name}: DuckDB reads {duck_types[name]}, not {ptype}")
        values = [as_text(v) for v in table.column(name).to_pylist()]
        expected = [unguarded(kind, c) for c in cells[name]]
        if values != expected:
            diff = next(
                (i, v, e) for i, (v, e) in enumerate(zip(values, expected)) if v != e
            ) if len(values) == len(expected) else (len(values), len(expected))
            problems.append(f"{path.name}.{name}: values differ from the CSV ({diff})")
        nulls = (int(pdf[name].isna().sum()), pldf[name].null_count())
        empty = sum(1 for c in cells[name] if c == "")
        if nulls != (empty, empty):
            problems.append(f"{path.name}.{name}: {empty} empty cells, readers read {nulls} nulls")
    print(f"{path.name}: {count} rows, {len(names)} columns, typed in the file for pandas, polars and DuckDB, the CSV's values")


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
        check_parquet(root, resource, cells, count, problems)
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
