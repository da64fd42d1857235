//! Request lines over the stdio limit get an answer. rmcp's line transport drops a line over
//! its limit without a word, so a client that sent one would wait for ever. [`Watched`] sits
//! under rmcp's reader and sees the same bytes: when the current line passes the limit it
//! reads the request's `id` from the line's start (the first [`MAX_LINE_BYTES`] bytes, all it
//! keeps) and reports it; rmcp goes on discarding the rest of the line as it streams past, so
//! no more than the limit is ever held. [`Answered`], above rmcp's transport, writes the
//! JSON-RPC error for each report through rmcp's own writer (so it never interleaves with
//! another answer) and goes on reading.

use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::task::{Context, Poll};

use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::stdio::MAX_LINE_BYTES;

/// The ID of a request line over the limit (`None` when its start does not hold one).
type Over = Option<RequestId>;

/// A reader that passes every byte through unchanged and reports each line whose length,
/// newline included, passes `limit`, the rule rmcp's transport drops a line by.
pub(crate) struct Watched<R> {
    inner: R,
    limit: usize,
    /// Bytes of the current line read so far.
    seen: usize,
    /// The current line's first bytes, at most `limit` of them.
    start: Vec<u8>,
    over: UnboundedSender<Over>,
}

/// A reader over `inner` watching for lines over `limit` bytes, and the receiver of its
/// reports for [`Answered`].
pub(crate) fn watch<R>(inner: R, limit: usize) -> (Watched<R>, UnboundedReceiver<Over>) {
    // Unbounded, yet small: a report is sent only after `limit` bytes were read, and nothing
    // is read while `Answered` is not polled.
    let (over, reports) = mpsc::unbounded_channel();
    let watched = Watched {
        inner,
        limit,
        seen: 0,
        start: Vec::new(),
        over,
    };
    (watched, reports)
}

impl<R> Watched<R> {
    /// Follows the lines through bytes just read.
    fn observe(&mut self, mut read: &[u8]) {
        while !read.is_empty() {
            let newline = read.iter().position(|b| *b == b'\n');
            let part = &read[..newline.map_or(read.len(), |at| at + 1)];
            if self.seen <= self.limit {
                let room = self.limit.saturating_sub(self.start.len());
                self.start.extend_from_slice(&part[..part.len().min(room)]);
                self.seen = self.seen.saturating_add(part.len());
                if self.seen > self.limit {
                    // The receiver goes only with the transport, which ends the session.
                    let _ = self.over.send(leading_id(&self.start));
                    self.start.clear();
                }
            }
            if newline.is_some() {
                self.seen = 0;
                self.start.clear();
            }
            read = &read[part.len()..];
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.observe(&buf.filled()[before..]);
        }
        polled
    }
}

/// A server transport that answers every line [`Watched`] reports with an Invalid Request
/// error carrying the line's ID, and otherwise is `inner`.
pub(crate) struct Answered<T> {
    inner: T,
    reports: UnboundedReceiver<Over>,
}

impl<T> Answered<T> {
    /// `inner`, answering the reports of the [`Watched`] reader under it.
    pub(crate) fn new(inner: T, reports: UnboundedReceiver<Over>) -> Answered<T> {
        Answered { inner, reports }
    }
}

/// The error for a line over the limit.
fn too_long(id: Over) -> ServerJsonRpcMessage {
    let message = format!(
        "Invalid Request: the request line is over {MAX_LINE_BYTES} bytes, the most this server \
         reads; it was discarded"
    );
    ServerJsonRpcMessage::error(ErrorData::invalid_request(message, None), id)
}

/// What came first: a line over the limit, or rmcp's next message (`None`: the end).
// Lives a moment on the stack, once a message: boxing the large variant would only add an
// allocation.
#[allow(clippy::large_enum_variant)]
enum Next {
    Over(Over),
    Message(Option<ClientJsonRpcMessage>),
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Answered<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = std::result::Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let next = {
                // Cancel-safe as rmcp's receive is: a dropped wait loses no report and no byte.
                let mut message = pin!(self.inner.receive());
                let reports = &mut self.reports;
                poll_fn(|cx| {
                    if let Poll::Ready(Some(id)) = reports.poll_recv(cx) {
                        return Poll::Ready(Next::Over(id));
                    }
                    message.as_mut().poll(cx).map(Next::Message)
                })
                .await
            };
            match next {
                Next::Over(id) => {
                    if self.inner.send(too_long(id)).await.is_err() {
                        return None;
                    }
                }
                Next::Message(Some(message)) => return Some(message),
                Next::Message(None) => {
                    // A line over the limit just before the end is still answered.
                    while let Ok(id) = self.reports.try_recv() {
                        let _ = self.inner.send(too_long(id)).await;
                    }
                    return None;
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = std::result::Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The `id` of the JSON-RPC message a line starts with, when that start holds it whole: the
/// first top-level member named `id`, with a number or string value. `None` when the start
/// ends first, the line is no JSON object, or the ID is `null` or of another type.
pub(crate) fn leading_id(start: &[u8]) -> Option<RequestId> {
    let bytes = start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start);
    let mut at = Scan { bytes, pos: 0 };
    at.expect(b'{')?;
    loop {
        at.skip_space();
        let key = at.string()?;
        at.expect(b':')?;
        at.skip_space();
        let value = at.value()?;
        if serde_json::from_slice::<String>(key).ok()? == "id" {
            return serde_json::from_slice(value).ok();
        }
        at.expect(b',')?;
    }
}

/// A cursor over a JSON text that may stop anywhere.
struct Scan<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    fn skip_space(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    /// Skips space, then `byte`.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (*self.bytes.get(self.pos)? == byte).then(|| self.pos += 1)
    }

    /// A whole string, its quotes included.
    fn string(&mut self) -> Option<&'a [u8]> {
        let from = self.pos;
        if *self.bytes.get(self.pos)? != b'"' {
            return None;
        }
        self.pos += 1;
        loop {
            match *self.bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    return Some(&self.bytes[from..self.pos]);
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }

    /// A whole value: a string, an object or array to its closing bracket, or a number or
    /// literal followed by something (so known to be complete).
    fn value(&mut self) -> Option<&'a [u8]> {
        let from = self.pos;
        match *self.bytes.get(self.pos)? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *self.bytes.get(self.pos)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.checked_sub(1)?;
                            if depth == 0 {
                                self.pos += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while matches!(
                    self.bytes.get(self.pos)?,
                    b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z'
                ) {
                    self.pos += 1;
                }
            }
        }
        Some(&self.bytes[from..self.pos])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(start: &str) -> Option<RequestId> {
        leading_id(start.as_bytes())
    }

    #[test]
    fn the_id_is_read_from_the_start_of_the_line() {
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"argu"#),
            Some(RequestId::Number(7))
        );
        assert_eq!(
            id(r#" { "jsonrpc" : "2.0" , "id" : "a\"b" , "par"#),
            Some(RequestId::String("a\"b".into()))
        );
        // After members of every kind, and a key written with an escape.
        assert_eq!(
            id(r#"{"params":{"a":[1,{"b":"}"}]},"x":-1.5e3,"y":null,"\u0069d":12,"#),
            Some(RequestId::Number(12))
        );
        assert_eq!(id("\u{feff}{\"id\":3,"), Some(RequestId::Number(3)));
    }

    #[test]
    fn no_id_when_the_start_does_not_hold_it_whole() {
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":12"#), None, "maybe 123");
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":"ab"#), None);
        assert_eq!(id(r#"{"method":"x","params":{"id":4,"data":"..."#), None);
        assert_eq!(id(r#"{"id":null,"method":"x""#), None);
        assert_eq!(id(r#"{"id":1.5,"method":"x""#), None);
        assert_eq!(id(r#"[{"id":1}]"#), None);
        assert_eq!(id("not JSON"), None);
        assert_eq!(id(""), None);
    }

    #[test]
    fn lines_over_the_limit_are_reported_once_with_their_id() {
        let (mut watched, mut reports) = watch(tokio::io::empty(), 16);
        // Exactly at the limit, newline included: not over (rmcp reads it).
        watched.observe(b"{\"id\":1,\"a\":\"x\"\n");
        assert!(reports.try_recv().is_err());
        // Over, across reads, then the next line is followed afresh.
        watched.observe(b"{\"id\":2,\"a\":\"");
        watched.observe(b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        watched.observe(b"xxxx\"}\n{\"id\":3}\n{\"id\":\"x\",\"a\":\"xxxxxxxxxxxx");
        assert_eq!(reports.try_recv().ok(), Some(Some(RequestId::Number(2))));
        assert_eq!(
            reports.try_recv().ok(),
            Some(Some(RequestId::String("x".into())))
        );
        assert!(reports.try_recv().is_err(), "each line once");
        assert!(watched.start.len() <= 16, "holds no more than the limit");
    }
}
