//! CSV text as RFC 4180 writes it: a header row, then one record a line, fields separated by
//! commas, a field quoted only when it holds a comma, a quote, a CR or an LF (its quotes
//! doubled), and an unknown value as an empty field. Lines end in LF, not RFC 4180's CRLF
//! (docs/decisions.md, "Flat tables").
//!
//! SECURITY: a text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return (a
//! provider name or a quantization label is free text from the source) is written with a
//! leading apostrophe, OWASP's advice against CSV injection, so a spreadsheet opening the file
//! shows it as text instead of running it as a formula. Only text columns: a negative number
//! is a number. A text value that itself begins with an apostrophe gets one more, so the rule
//! reverses without doubt: a text cell that begins with `'` holds the value without that one
//! apostrophe. The exact value stays in the API, the feeds and the Parquet twin.

use super::schema::{Column, ColumnType};

/// The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
/// Injection").
pub(crate) const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A CSV document being written, row by row.
#[derive(Debug)]
pub(crate) struct CsvWriter {
    out: String,
    /// Per column, true for text (guarded against formulas).
    text: Vec<bool>,
    /// The records' exact cells, for the Parquet twin.
    rows: Vec<Vec<Option<String>>>,
}

/// A table written: its CSV text, and its records' exact cells.
#[derive(Debug)]
pub(crate) struct Written {
    /// The CSV file.
    pub csv: Vec<u8>,
    /// Each record's cells, exactly (no apostrophe), `None` unknown.
    pub rows: Vec<Vec<Option<String>>>,
}

impl CsvWriter {
    /// A document of `columns`, its header row their names.
    pub(crate) fn new(columns: &[Column]) -> CsvWriter {
        let mut writer = CsvWriter {
            out: String::new(),
            text: vec![false; columns.len()],
            rows: Vec::new(),
        };
        writer.row(columns.iter().map(|c| Some(c.name.as_str())));
        writer.rows.clear();
        writer.text = columns
            .iter()
            .map(|c| c.kind == ColumnType::String)
            .collect();
        writer
    }

    /// Appends a record: one cell per column, `None` for an unknown value (an empty field).
    pub(crate) fn row<'a>(&mut self, cells: impl IntoIterator<Item = Option<&'a str>>) {
        let mut count = 0;
        let mut exact = Vec::with_capacity(self.text.len());
        for cell in cells {
            exact.push(cell.map(str::to_string));
            if count > 0 {
                self.out.push(',');
            }
            if let Some(text) = cell {
                if self.text.get(count).copied().unwrap_or(false) && needs_apostrophe(text) {
                    push_field(&mut self.out, &format!("'{text}"));
                } else {
                    push_field(&mut self.out, text);
                }
            }
            count += 1;
        }
        debug_assert_eq!(count, self.text.len(), "a record has one cell per column");
        self.out.push('\n');
        self.rows.push(exact);
    }

    /// The document's bytes (UTF-8, no byte-order mark) and the records' exact cells.
    pub(crate) fn finish(self) -> Written {
        Written {
            csv: self.out.into_bytes(),
            rows: self.rows,
        }
    }
}

/// True for a text value a spreadsheet would run as a formula, or one beginning with the
/// apostrophe that guards such a value.
pub(crate) fn needs_apostrophe(text: &str) -> bool {
    text.starts_with(FORMULA_STARTS) || text.starts_with('\'')
}

/// Appends one field, quoted when RFC 4180 needs it. A known empty text is quoted (`""`) so
/// that it is never an unknown value's empty field; no value the tables write is empty.
fn push_field(out: &mut String, text: &str) {
    let needs_quotes = text.is_empty() || text.contains([',', '"', '\r', '\n']);
    if !needs_quotes {
        out.push_str(text);
        return;
    }
    out.push('"');
    for c in text.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(rows: &[&[Option<&str>]]) -> String {
        let mut csv = CsvWriter::new(&[
            Column::new("a", ColumnType::String, false, ""),
            Column::new("b", ColumnType::String, false, ""),
        ]);
        for row in rows {
            csv.row(row.iter().copied());
        }
        String::from_utf8(csv.finish().csv).expect("utf-8")
    }

    #[test]
    fn fields_are_quoted_only_where_rfc_4180_needs_it() {
        let text = document(&[
            &[Some("plain"), Some("0.25")],
            &[Some("a,b"), Some("say \"hi\"")],
            &[Some("two\nlines"), Some("cr\r")],
            &[None, Some("")],
            &[Some("é/ü:free"), None],
        ]);
        assert_eq!(
            text,
            "a,b\nplain,0.25\n\"a,b\",\"say \"\"hi\"\"\"\n\"two\nlines\",\"cr\r\"\n,\"\"\né/ü:free,\n"
        );
    }

    #[test]
    fn text_that_a_spreadsheet_would_run_gets_an_apostrophe_and_numbers_do_not() {
        let mut csv = CsvWriter::new(&[
            Column::new("provider", ColumnType::String, false, ""),
            Column::new("change", ColumnType::Number, false, ""),
            Column::new("rank", ColumnType::Integer, false, ""),
        ]);
        for (text, number) in [
            ("=HYPERLINK(\"http://x\",\"y\")", "-0.5"),
            ("+1", "-12"),
            ("-2", "+3"),
            ("@SUM(A1)", "-1"),
            ("\tTab", "0"),
            ("\rCR", "1"),
            ("a=b", "2"),
            ("'quoted", "3"),
        ] {
            csv.row([Some(text), Some(number), Some(number)]);
        }
        let text = String::from_utf8(csv.finish().csv).expect("utf-8");
        assert_eq!(
            text,
            "provider,change,rank\n\
             \"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-0.5,-0.5\n\
             '+1,-12,-12\n\
             '-2,+3,+3\n\
             '@SUM(A1),-1,-1\n\
             '\tTab,0,0\n\
             \"'\rCR\",1,1\n\
             a=b,2,2\n\
             ''quoted,3,3\n"
        );
    }

    #[test]
    fn a_header_alone_is_a_document() {
        assert_eq!(document(&[]), "a,b\n");
    }
}
