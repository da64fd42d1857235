//! The `edge` layout of a site (DESIGN §8.1): every list answer kept as parts instead of files.
//! The head of a page once, and for each (sort, order) the N model records in that order,
//! comma-joined, with the byte offset of each; any list page is then the head, its query echo
//! and pagination, and one slice of one ordering, equal byte for byte to the file the `full`
//! layout writes. The edge function (`netlify/edge-functions/lib/query.mjs`, `assembleList`)
//! and the preview server ([`assemble`]) slice the same bytes; neither parses a record.
//!
//! Why: every list page embeds the window's figures, so every night every page of the `full`
//! layout changes (68,472 files at N = 56); the parts grow with N, not with 1,200 × N.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::answers::render::{assemble_page, Rendered};
use crate::query::{self, list_echo, page_range, ListQuery, Order, SortKey};

/// Where the parts are written, under the site root.
pub const EDGE_DIR: &str = "_api/edge";

/// How a site keeps its list answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Layout {
    /// Every response a file: what `serve`, `verify` and any plain static host read.
    #[default]
    Full,
    /// What Netlify publishes: list answers as parts the edge function assembles.
    Edge,
}

impl Layout {
    /// The name on the command line and in the routing table.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Full => "full",
            Layout::Edge => "edge",
        }
    }
}

/// The parts of the list answers, as the routing table lists them (its `edge` member).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeParts {
    /// Site-relative file holding the head of every page: `{"schema_version":…,"source":{…}`
    /// without its closing brace (query, pagination and models follow it).
    pub head: String,
    /// One entry per (sort, order), keyed `{sort}/{order}`.
    pub orderings: BTreeMap<String, OrderingParts>,
}

/// The records of one (sort, order) in list order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderingParts {
    /// Site-relative file of the N records, compact JSON, joined by `,`.
    pub file: String,
    /// N + 1 offsets: record i spans `offsets[i] .. offsets[i + 1] - 1` (the byte before the
    /// next offset is its `,`), and `offsets[N]` is the file's length + 1.
    pub offsets: Vec<u64>,
}

/// The key of an ordering in [`EdgeParts::orderings`].
pub fn ordering_key(sort: SortKey, order: Order) -> String {
    format!("{}/{}", sort.as_str(), order.as_str())
}

/// A file of the layout to write: its site-relative path and its bytes.
pub type PartFile = (String, Vec<u8>);

/// The parts of a rendered catalog: the routing table's [`EdgeParts`] and the files to write
/// (site-relative path, bytes), the head first. Each ordering is checked against its offsets
/// as it is made: `Err` names the part that could not be assembled, never a wrong page.
pub fn parts(rendered: &Rendered) -> Result<(EdgeParts, Vec<PartFile>), String> {
    let head = format!("{EDGE_DIR}/head.part");
    let mut files = vec![(head.clone(), rendered.head_prefix().to_vec())];
    let mut orderings = BTreeMap::new();
    for (sort, order) in query::list_orders() {
        let file = format!("{EDGE_DIR}/{}-{}.part", sort.as_str(), order.as_str());
        let mut bytes = Vec::new();
        let mut offsets = Vec::with_capacity(rendered.total() + 1);
        for (i, &record) in rendered.order(sort, order).iter().enumerate() {
            if i > 0 {
                bytes.push(b',');
            }
            offsets.push(bytes.len() as u64);
            bytes.extend_from_slice(rendered.fragment(record));
        }
        offsets.push(bytes.len() as u64 + 1);
        let ordering = OrderingParts {
            file: file.clone(),
            offsets,
        };
        if let Some(why) = check_ordering(&ordering, &bytes, rendered.total()) {
            return Err(why);
        }
        orderings.insert(ordering_key(sort, order), ordering);
        files.push((file, bytes));
    }
    Ok((EdgeParts { head, orderings }, files))
}

/// Why an ordering's bytes and offsets disagree, naming its file; `None` when every record
/// the offsets delimit is a JSON object and they are joined by single commas.
pub fn check_ordering(parts: &OrderingParts, bytes: &[u8], total: usize) -> Option<String> {
    let offsets = &parts.offsets;
    let file = &parts.file;
    if offsets.len() != total + 1 {
        return Some(format!(
            "{file}: {} offsets for {total} records (N + 1 expected)",
            offsets.len()
        ));
    }
    if offsets[total] != bytes.len() as u64 + 1 || (total == 0 && !bytes.is_empty()) {
        return Some(format!(
            "{file}: the last offset {} does not close its {} bytes",
            offsets[total],
            bytes.len()
        ));
    }
    for i in 0..total {
        let (start, end) = (offsets[i], offsets[i + 1].saturating_sub(1));
        let record = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .filter(|(s, e)| s < e)
            .and_then(|(s, e)| bytes.get(s..e));
        let joined = end == bytes.len() as u64 || bytes.get(end as usize) == Some(&b',');
        match record {
            Some(r) if r.first() == Some(&b'{') && r.last() == Some(&b'}') && joined => {}
            _ => {
                return Some(format!(
                    "{file}: record {i} at offsets {start}..{end} is not one JSON object followed by ','"
                ))
            }
        }
    }
    None
}

/// Appends the list page `query` to `out` from the parts: the head, the echo and pagination,
/// and the slice of the ordering's records the page holds (a page past the end holds none).
/// `records` and `offsets` must have passed [`check_ordering`].
pub fn assemble(
    head: &[u8],
    records: &[u8],
    offsets: &[u64],
    query: &ListQuery,
    out: &mut Vec<u8>,
) {
    let total = offsets.len().saturating_sub(1);
    let (echo, pagination) = list_echo(query, total);
    let range = page_range(total, query);
    let slice = if range.is_empty() {
        None
    } else {
        let start = usize::try_from(offsets[range.start]).unwrap_or(usize::MAX);
        let end = usize::try_from(offsets[range.end])
            .unwrap_or(usize::MAX)
            .saturating_sub(1);
        records.get(start..end)
    };
    // The slice is the page's fragments already joined by commas: one fragment to the layout.
    assemble_page(head, &echo, &pagination, slice.into_iter(), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_that_disagree_with_the_records_are_named() {
        let bytes = br#"{"a":1},{"b":2}"#;
        let good = OrderingParts {
            file: "x.part".to_string(),
            offsets: vec![0, 8, 16],
        };
        assert_eq!(check_ordering(&good, bytes, 2), None);
        for offsets in [vec![0, 8], vec![0, 7, 16], vec![0, 8, 15], vec![1, 8, 16]] {
            let bad = OrderingParts {
                offsets,
                ..good.clone()
            };
            let why = check_ordering(&bad, bytes, 2).expect("refused");
            assert!(why.starts_with("x.part: "), "{why}");
        }
        let empty = OrderingParts {
            file: "e.part".to_string(),
            offsets: vec![1],
        };
        assert_eq!(check_ordering(&empty, b"", 0), None);
    }
}
