//! The tables' Parquet twins (issue 49): the same rows and columns as each CSV file, typed in
//! the file itself, so that pandas, polars and DuckDB read every column with its type in one
//! call even when all its values are unknown (a CSV column of empty cells carries no type).
//!
//! A small writer of the format (docs/decisions.md says why not the `parquet` crate, with the
//! measurements): one row group, one uncompressed data page (v1) per column, PLAIN values,
//! definition levels in the RLE hybrid, every column OPTIONAL (an unknown value is a null), and
//! the footer in Thrift's compact protocol. Types, from the column's type in the data package:
//!
//! | package | Parquet |
//! |---|---|
//! | `integer` | INT64 |
//! | `number` | DECIMAL(38, scale) as FIXED_LEN_BYTE_ARRAY(16), the column's scale (exact) |
//! | `date` | DATE (INT32, days since 1970-01-01) |
//! | `datetime` | TIMESTAMP (INT64, microseconds, UTC) |
//! | `boolean` | BOOLEAN |
//! | `string`, `array` | STRING (BYTE_ARRAY, UTF-8; an array is its JSON text) |
//!
//! A column a value of which does not fit its type (an integer past 2^63, a decimal past 38
//! digits at its scale) is written as STRING in that file, with every value exact; the cells
//! are the exact values (never the CSV's apostrophe).

use super::schema::{Column, ColumnType};

/// Parquet's magic, at both ends of the file.
const MAGIC: &[u8; 4] = b"PAR1";

/// Precision of every decimal column: the most a 16-byte decimal holds.
pub(crate) const DECIMAL_PRECISION: u32 = 38;

/// The Parquet type a column is written as in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Physical {
    /// INT64.
    Int64,
    /// DECIMAL(38, scale), 16 bytes big-endian.
    Decimal(u32),
    /// DATE.
    Date,
    /// TIMESTAMP(MICROS, UTC).
    Timestamp,
    /// BOOLEAN.
    Boolean,
    /// STRING.
    Text,
}

impl Physical {
    /// As the data package names it.
    pub(crate) fn name(self) -> String {
        match self {
            Physical::Int64 => "INT64".to_string(),
            Physical::Decimal(scale) => format!("DECIMAL({DECIMAL_PRECISION},{scale})"),
            Physical::Date => "DATE".to_string(),
            Physical::Timestamp => "TIMESTAMP(MICROS,UTC)".to_string(),
            Physical::Boolean => "BOOLEAN".to_string(),
            Physical::Text => "STRING".to_string(),
        }
    }

    /// The type a column of `kind` and decimal `scale` is meant to have.
    pub(crate) fn of(kind: ColumnType, scale: u32) -> Physical {
        match kind {
            ColumnType::Integer => Physical::Int64,
            ColumnType::Number => Physical::Decimal(scale),
            ColumnType::Date => Physical::Date,
            ColumnType::Datetime => Physical::Timestamp,
            ColumnType::Boolean => Physical::Boolean,
            ColumnType::String | ColumnType::Array => Physical::Text,
        }
    }
}

/// One value, encoded for its column's type.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Int(i64),
    Decimal(i128),
    Date(i32),
    Bool(bool),
    Bytes(Vec<u8>),
}

/// A cell's text as a value of `physical`; `None` when it is not one.
fn convert(physical: Physical, text: &str) -> Option<Value> {
    match physical {
        Physical::Int64 => text.parse::<i64>().ok().map(Value::Int),
        Physical::Decimal(scale) => unscaled(text, scale).map(Value::Decimal),
        Physical::Date => {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            let date = time::Date::parse(text, &format).ok()?;
            let epoch = time::macros::date!(1970 - 01 - 01);
            i32::try_from((date - epoch).whole_days())
                .ok()
                .map(Value::Date)
        }
        Physical::Timestamp => {
            let at =
                time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
                    .ok()?;
            i64::try_from(at.unix_timestamp_nanos() / 1_000)
                .ok()
                .map(Value::Int)
        }
        Physical::Boolean => match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Physical::Text => Some(Value::Bytes(text.as_bytes().to_vec())),
    }
}

/// `-12.5` at scale 3 → -12500; `None` when the text is not a plain decimal, has more
/// fractional digits than `scale`, or needs more than 38 digits.
fn unscaled(text: &str, scale: u32) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !plain(whole) || !plain(fraction) || fraction.len() > scale as usize {
        return None;
    }
    let whole = whole.trim_start_matches('0');
    let padded = format!("{whole}{fraction:0<width$}", width = scale as usize);
    let significant = padded.trim_start_matches('0');
    if significant.len() > DECIMAL_PRECISION as usize {
        return None;
    }
    let magnitude: i128 = if significant.is_empty() {
        0
    } else {
        significant.parse().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The type each column is written as for these rows: its own, or STRING when a value does not
/// fit it.
pub(crate) fn physical_types(columns: &[Column], rows: &[Vec<Option<String>>]) -> Vec<Physical> {
    columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let wanted = Physical::of(column.kind, column.scale);
            let fits = rows.iter().all(|row| match row.get(i) {
                Some(Some(text)) => convert(wanted, text).is_some(),
                _ => true,
            });
            if fits {
                wanted
            } else {
                Physical::Text
            }
        })
        .collect()
}

/// The Parquet file of `rows` (exact cell texts, `None` unknown) under `columns`. The same rows
/// give the same bytes.
pub(crate) fn write(columns: &[Column], rows: &[Vec<Option<String>>], created_by: &str) -> Vec<u8> {
    let types = physical_types(columns, rows);
    let mut out = MAGIC.to_vec();
    let mut chunks = Vec::new();
    if !rows.is_empty() {
        for (i, physical) in types.iter().enumerate() {
            let cells: Vec<Option<Value>> = rows
                .iter()
                .map(|row| {
                    row.get(i)
                        .and_then(Option::as_deref)
                        .and_then(|t| convert(*physical, t))
                })
                .collect();
            let offset = out.len() as u64;
            let page = data_page(&cells);
            out.extend_from_slice(&page);
            chunks.push(Chunk {
                offset,
                size: page.len() as u64,
                values: cells.len() as u64,
            });
        }
    }
    let footer = file_metadata(columns, &types, rows.len() as u64, &chunks, created_by);
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(MAGIC);
    out
}

/// Where one column's data page is.
struct Chunk {
    offset: u64,
    size: u64,
    values: u64,
}

/// A data page (v1): its header, the definition levels, the PLAIN values of the known cells.
fn data_page(cells: &[Option<Value>]) -> Vec<u8> {
    let mut body = Vec::new();
    let levels = definition_levels(cells);
    body.extend_from_slice(&(levels.len() as u32).to_le_bytes());
    body.extend_from_slice(&levels);
    let known: Vec<&Value> = cells.iter().flatten().collect();
    let mut bits = 0u8;
    let mut bit = 0;
    for value in &known {
        match value {
            Value::Int(n) => body.extend_from_slice(&n.to_le_bytes()),
            Value::Date(days) => body.extend_from_slice(&days.to_le_bytes()),
            Value::Decimal(n) => body.extend_from_slice(&n.to_be_bytes()),
            Value::Bytes(bytes) => {
                body.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                body.extend_from_slice(bytes);
            }
            Value::Bool(b) => {
                // Bit-packed, the first value in the lowest bit.
                bits |= u8::from(*b) << bit;
                bit += 1;
                if bit == 8 {
                    body.push(bits);
                    (bits, bit) = (0, 0);
                }
            }
        }
    }
    if bit > 0 {
        body.push(bits);
    }
    let mut header = Thrift::default();
    header.i32(1, 0); // type: DATA_PAGE
    header.i32(2, body.len() as i32); // uncompressed_page_size
    header.i32(3, body.len() as i32); // compressed_page_size
    header.begin(5); // data_page_header
    header.i32(1, cells.len() as i32); // num_values
    header.i32(2, 0); // encoding: PLAIN
    header.i32(3, 3); // definition_level_encoding: RLE
    header.i32(4, 3); // repetition_level_encoding: RLE
    header.end();
    let mut page = header.finish();
    page.extend_from_slice(&body);
    page
}

/// Definition levels (1 known, 0 unknown) as runs of the RLE hybrid, bit width 1.
fn definition_levels(cells: &[Option<Value>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < cells.len() {
        let known = cells[i].is_some();
        let run = cells[i..]
            .iter()
            .take_while(|c| c.is_some() == known)
            .count();
        varint(&mut out, (run as u64) << 1);
        out.push(u8::from(known));
        i += run;
    }
    out
}

/// The footer: FileMetaData in Thrift's compact protocol.
fn file_metadata(
    columns: &[Column],
    types: &[Physical],
    rows: u64,
    chunks: &[Chunk],
    created_by: &str,
) -> Vec<u8> {
    let mut t = Thrift::default();
    t.i32(1, 1); // version
    t.list_of_structs(2, columns.len() + 1); // schema
    t.element_begin();
    t.string(4, "schema");
    t.i32(5, columns.len() as i32); // num_children
    t.element_end();
    for (column, physical) in columns.iter().zip(types) {
        t.element_begin();
        let (kind, length) = match physical {
            Physical::Int64 | Physical::Timestamp => (2, None),
            Physical::Date => (1, None),
            Physical::Boolean => (0, None),
            Physical::Decimal(_) => (7, Some(16)),
            Physical::Text => (6, None),
        };
        t.i32(1, kind);
        if let Some(length) = length {
            t.i32(2, length);
        }
        t.i32(3, 1); // repetition_type: OPTIONAL
        t.string(4, &column.name);
        // The converted type (older readers) and the logical type.
        match physical {
            Physical::Text => {
                t.i32(6, 0); // UTF8
                t.begin(10);
                t.empty_struct(1); // STRING
                t.end();
            }
            Physical::Decimal(scale) => {
                t.i32(6, 5); // DECIMAL
                t.i32(7, *scale as i32);
                t.i32(8, DECIMAL_PRECISION as i32);
                t.begin(10);
                t.begin(5); // DECIMAL
                t.i32(1, *scale as i32);
                t.i32(2, DECIMAL_PRECISION as i32);
                t.end();
                t.end();
            }
            Physical::Date => {
                t.i32(6, 6); // DATE
                t.begin(10);
                t.empty_struct(6); // DATE
                t.end();
            }
            Physical::Timestamp => {
                t.i32(6, 10); // TIMESTAMP_MICROS
                t.begin(10);
                t.begin(8); // TIMESTAMP
                t.bool(1, true); // isAdjustedToUTC
                t.begin(2); // unit
                t.empty_struct(2); // MICROS
                t.end();
                t.end();
                t.end();
            }
            Physical::Int64 | Physical::Boolean => {}
        }
        t.element_end();
    }
    t.i64(3, rows as i64); // num_rows
    t.list_of_structs(4, usize::from(!chunks.is_empty())); // row_groups
    if !chunks.is_empty() {
        t.element_begin();
        t.list_of_structs(1, chunks.len()); // columns
        for ((chunk, column), physical) in chunks.iter().zip(columns).zip(types) {
            t.element_begin();
            t.i64(2, chunk.offset as i64); // file_offset
            t.begin(3); // meta_data
            t.i32(
                1,
                match physical {
                    Physical::Int64 | Physical::Timestamp => 2,
                    Physical::Date => 1,
                    Physical::Boolean => 0,
                    Physical::Decimal(_) => 7,
                    Physical::Text => 6,
                },
            );
            t.list_of_i32(2, &[0, 3]); // encodings: PLAIN, RLE
            t.list_of_strings(3, &[&column.name]); // path_in_schema
            t.i32(4, 0); // codec: UNCOMPRESSED
            t.i64(5, chunk.values as i64);
            t.i64(6, chunk.size as i64); // total_uncompressed_size
            t.i64(7, chunk.size as i64); // total_compressed_size
            t.i64(9, chunk.offset as i64); // data_page_offset
            t.end();
            t.element_end();
        }
        let total: u64 = chunks.iter().map(|c| c.size).sum();
        t.i64(2, total as i64); // total_byte_size
        t.i64(3, rows as i64); // num_rows
        t.element_end();
    }
    t.string(6, created_by);
    t.finish()
}

/// Appends `n` as a ULEB128 varint.
fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Thrift's compact protocol, as much of it as the footer and page headers need: a struct is
/// its fields in increasing id order (each a header with the id's delta and the type) and a
/// stop byte.
#[derive(Default)]
struct Thrift {
    out: Vec<u8>,
    /// The last field id of each open struct, innermost last.
    last: Vec<i16>,
    /// The current struct's last field id.
    id: i16,
}

impl Thrift {
    const TRUE: u8 = 1;
    const FALSE: u8 = 2;
    const I32: u8 = 5;
    const I64: u8 = 6;
    const BINARY: u8 = 8;
    const LIST: u8 = 9;
    const STRUCT: u8 = 12;

    fn field(&mut self, id: i16, kind: u8) {
        let delta = id - self.id;
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | kind);
        } else {
            self.out.push(kind);
            varint(&mut self.out, zigzag(i64::from(id)));
        }
        self.id = id;
    }

    fn i32(&mut self, id: i16, n: i32) {
        self.field(id, Thrift::I32);
        varint(&mut self.out, zigzag(i64::from(n)));
    }

    fn i64(&mut self, id: i16, n: i64) {
        self.field(id, Thrift::I64);
        varint(&mut self.out, zigzag(n));
    }

    fn bool(&mut self, id: i16, b: bool) {
        self.field(id, if b { Thrift::TRUE } else { Thrift::FALSE });
    }

    fn string(&mut self, id: i16, text: &str) {
        self.field(id, Thrift::BINARY);
        self.bytes(text.as_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) {
        varint(&mut self.out, bytes.len() as u64);
        self.out.extend_from_slice(bytes);
    }

    /// Opens a struct field.
    fn begin(&mut self, id: i16) {
        self.field(id, Thrift::STRUCT);
        self.element_begin();
    }

    /// Closes the innermost struct.
    fn end(&mut self) {
        self.element_end();
    }

    /// An empty struct field (a union member without data).
    fn empty_struct(&mut self, id: i16) {
        self.begin(id);
        self.end();
    }

    fn list_header(&mut self, id: i16, kind: u8, size: usize) {
        self.field(id, Thrift::LIST);
        if size < 15 {
            self.out.push(((size as u8) << 4) | kind);
        } else {
            self.out.push(0xF0 | kind);
            varint(&mut self.out, size as u64);
        }
    }

    /// A list of `size` structs; each is written between [`Thrift::element_begin`] and
    /// [`Thrift::element_end`].
    fn list_of_structs(&mut self, id: i16, size: usize) {
        self.list_header(id, Thrift::STRUCT, size);
    }

    fn list_of_i32(&mut self, id: i16, values: &[i32]) {
        self.list_header(id, Thrift::I32, values.len());
        for n in values {
            varint(&mut self.out, zigzag(i64::from(*n)));
        }
    }

    fn list_of_strings(&mut self, id: i16, values: &[&str]) {
        self.list_header(id, Thrift::BINARY, values.len());
        for text in values {
            self.bytes(text.as_bytes());
        }
    }

    /// Starts a struct (a list element, or after a struct field's header).
    fn element_begin(&mut self) {
        self.last.push(self.id);
        self.id = 0;
    }

    /// Ends a struct: its stop byte.
    fn element_end(&mut self) {
        self.out.push(0);
        self.id = self.last.pop().unwrap_or(0);
    }

    fn finish(self) -> Vec<u8> {
        let mut out = self.out;
        // The outermost struct's stop byte.
        out.push(0);
        out
    }
}

/// Zigzag: small negative and positive numbers both as small unsigned ones.
fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_unscaled_exactly_or_refused() {
        assert_eq!(unscaled("0.25", 12), Some(250_000_000_000));
        assert_eq!(unscaled("-12.5", 3), Some(-12_500));
        assert_eq!(unscaled("0", 12), Some(0));
        assert_eq!(unscaled("007.1", 1), Some(71));
        assert_eq!(unscaled("1.2345", 3), None);
        assert_eq!(unscaled("1e5", 3), None);
        assert_eq!(unscaled("", 3), None);
        assert_eq!(unscaled(".5", 3), None);
        assert_eq!(unscaled(&format!("1{}", "0".repeat(26)), 12), None);
        assert_eq!(
            unscaled(&"9".repeat(26), 12),
            Some(10i128.pow(38) - 10i128.pow(12))
        );
    }

    #[test]
    fn thrift_fields_lists_and_nesting() {
        let mut t = Thrift::default();
        t.i32(1, -1);
        t.i64(20, 300);
        t.begin(21);
        t.bool(1, true);
        t.end();
        t.list_of_i32(22, &[0, 3]);
        assert_eq!(
            t.finish(),
            [
                0x15, 0x01, // field 1 i32, zigzag(-1) = 1
                0x06, 0x28, 0xD8,
                0x04, // field 20 i64 (long form: id 20 zigzag = 40), 300 → 600
                0x1C, 0x11, 0x00, // field 21 struct: field 1 true, stop
                0x19, 0x25, 0x00, 0x06, // field 22 list of 2 i32: 0, 3
                0x00,
            ]
        );
    }

    #[test]
    fn a_file_has_its_magic_and_its_footer_length() {
        let columns = [
            Column::new("n", ColumnType::Integer, false, ""),
            Column::new("b", ColumnType::Boolean, false, ""),
        ];
        let rows = vec![
            vec![Some("1".to_string()), Some("true".to_string())],
            vec![None, None],
            vec![Some("-3".to_string()), Some("false".to_string())],
        ];
        let file = write(&columns, &rows, "test");
        assert_eq!(&file[..4], MAGIC);
        assert_eq!(&file[file.len() - 4..], MAGIC);
        let length = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
        assert!((length as usize) < file.len());
        assert_eq!(write(&columns, &rows, "test"), file, "the same bytes");
        // Levels: one known, one unknown, one known.
        assert_eq!(
            definition_levels(&[Some(Value::Int(1)), None, Some(Value::Int(2))]),
            [2, 1, 2, 0, 2, 1]
        );
        assert_eq!(
            physical_types(&columns, &[vec![Some("9999999999999999999".into()), None]]),
            [Physical::Text, Physical::Boolean]
        );
    }
}
