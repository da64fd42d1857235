//! CSV text as RFC 4180 writes it: a header row, then one record a line, fields separated by
//! commas, a field quoted only when it holds a comma, a quote, a CR or an LF (its quotes
//! doubled), and an unknown value as an empty field. Lines end in LF, not RFC 4180's CRLF
//! (docs/decisions.md, "Flat tables").

/// A CSV document being written, row by row.
#[derive(Debug)]
pub(crate) struct CsvWriter {
    out: String,
    width: usize,
}

impl CsvWriter {
    /// A document whose header row is `names`.
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> CsvWriter {
        let mut writer = CsvWriter {
            out: String::new(),
            width: 0,
        };
        let names: Vec<&str> = names.into_iter().collect();
        writer.width = names.len();
        writer.row(names.into_iter().map(Some));
        writer
    }

    /// Appends a record: one cell per column, `None` for an unknown value (an empty field).
    pub(crate) fn row<'a>(&mut self, cells: impl IntoIterator<Item = Option<&'a str>>) {
        let mut count = 0;
        for cell in cells {
            if count > 0 {
                self.out.push(',');
            }
            if let Some(text) = cell {
                push_field(&mut self.out, text);
            }
            count += 1;
        }
        debug_assert_eq!(count, self.width, "a record has one cell per column");
        self.out.push('\n');
    }

    /// The document's bytes (UTF-8, no byte-order mark).
    pub(crate) fn finish(self) -> Vec<u8> {
        self.out.into_bytes()
    }
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
        let mut csv = CsvWriter::new(["a", "b"]);
        for row in rows {
            csv.row(row.iter().copied());
        }
        String::from_utf8(csv.finish()).expect("utf-8")
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
    fn a_header_alone_is_a_document() {
        assert_eq!(document(&[]), "a,b\n");
    }
}
