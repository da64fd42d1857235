//! `model-demand mcp` on standard input and output: rmcp's own line transport on the standard
//! streams, with a bound on the requests in flight. While [`MAX_IN_FLIGHT`] requests are
//! unanswered (their answers not yet written to standard output), the next line is not read,
//! so a client that writes requests without reading the answers fills its pipe and waits,
//! instead of growing the server by an answer a request. Each line is read by the rule every
//! transport shares (`message.rs`): a line refused there is answered here, with the request's
//! id whenever it can be read, and the next line is read only once that answer is written. A
//! line over [`MAX_LINE_BYTES`] gets an Invalid Request error with its ID (`oversized.rs`) and
//! is discarded as it streams past.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, RequestId, ServerJsonRpcMessage};
use rmcp::service::ServerInitializeError;
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use super::message::{self, Read};
use super::oversized::{self, MAX_LINE_BYTES};
use super::server::ApiServer;
use crate::base::error::{Error, Result};

/// Requests read and not yet answered, at most.
pub(crate) const MAX_IN_FLIGHT: usize = 16;

/// The permits of the requests in flight, by request ID (a client may reuse an ID, so each
/// ID holds a list).
type Held = Arc<Mutex<HashMap<RequestId, Vec<OwnedSemaphorePermit>>>>;

/// A server transport that reads a message only while fewer than [`MAX_IN_FLIGHT`] requests
/// are unanswered; an answer (result or error) frees its request's permit once written.
pub(super) struct Bounded<T> {
    inner: T,
    permits: Arc<Semaphore>,
    held: Held,
}

impl<T> Bounded<T> {
    /// `inner` with at most `limit` requests in flight.
    pub(super) fn new(inner: T, limit: usize) -> Bounded<T> {
        Bounded {
            inner,
            permits: Arc::new(Semaphore::new(limit.max(1))),
            held: Held::default(),
        }
    }
}

/// Frees one permit held for `id`, if any.
fn release(held: &Held, id: &RequestId) {
    let mut held = held.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(permits) = held.get_mut(id) {
        permits.pop();
        if permits.is_empty() {
            held.remove(id);
        }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Bounded<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = std::result::Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            ServerJsonRpcMessage::Response(response) => Some(response.id.clone()),
            ServerJsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let sending = self.inner.send(item);
        let held = Arc::clone(&self.held);
        async move {
            let sent = sending.await;
            if let Some(id) = answered {
                release(&held, &id);
            }
            sent
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        // Cancel-safe: rmcp polls this in a select; a dropped wait returns its permit, and the
        // inner transport keeps a partly read line for the next call.
        let permit = Arc::clone(&self.permits).acquire_owned().await.ok()?;
        let message = self.inner.receive().await?;
        match &message {
            ClientJsonRpcMessage::Request(request) => {
                let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
                held.entry(request.id.clone()).or_default().push(permit);
            }
            // A cancelled request may get no answer: its permit is freed now.
            ClientJsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                {
                    if let Some(id) = &cancelled.params.request_id {
                        release(&self.held, id);
                    }
                }
            }
            _ => {}
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = std::result::Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The standard output, shared by the answers rmcp sends and the refusals [`Lines`] writes;
/// each message is written whole, a line at a time, under the lock.
type Output<W> = Arc<tokio::sync::Mutex<W>>;

/// Writes one message's bytes as a line.
async fn write_line<W: AsyncWrite + Unpin>(
    output: &tokio::sync::Mutex<W>,
    mut line: Vec<u8>,
) -> std::io::Result<()> {
    line.push(b'\n');
    let mut output = output.lock().await;
    output.write_all(&line).await?;
    output.flush().await
}

/// The line transport: each line read by [`message::read`], at most [`MAX_LINE_BYTES`] of it
/// kept, a refused one answered before the next is read.
pub(super) struct Lines<R, W> {
    input: R,
    output: Output<W>,
    /// The current line's bytes so far (at most the limit), and how many were seen.
    line: Vec<u8>,
    seen: usize,
    /// A refusal being written: the next line is read once it is.
    writing: Option<JoinHandle<std::io::Result<()>>>,
}

impl<R, W> Lines<R, W> {
    pub(super) fn new(input: R, output: W) -> Lines<R, W> {
        Lines {
            input,
            output: Arc::new(tokio::sync::Mutex::new(output)),
            line: Vec::new(),
            seen: 0,
            writing: None,
        }
    }
}

/// A line read: its kept bytes and whether it passed the limit.
struct Line {
    bytes: Vec<u8>,
    over: bool,
}

impl<R: AsyncBufRead + Unpin, W> Lines<R, W> {
    /// The next line (without its newline), or `None` at the end of the input. Cancel-safe: the
    /// part of a line read so far stays in `self`.
    async fn next_line(&mut self) -> Option<Line> {
        loop {
            let buffer = match self.input.fill_buf().await {
                Ok(buffer) => buffer,
                Err(_) => return None,
            };
            if buffer.is_empty() {
                if self.seen == 0 {
                    return None;
                }
                return Some(self.take());
            }
            let newline = buffer.iter().position(|b| *b == b'\n');
            let part = &buffer[..newline.unwrap_or(buffer.len())];
            let room = MAX_LINE_BYTES.saturating_sub(self.line.len());
            self.line.extend_from_slice(&part[..part.len().min(room)]);
            self.seen = self.seen.saturating_add(part.len());
            let used = newline.map_or(buffer.len(), |at| at + 1);
            self.input.consume(used);
            if newline.is_some() {
                return Some(self.take());
            }
        }
    }

    fn take(&mut self) -> Line {
        // A line with its newline past the limit is over it, as rmcp's transport counted.
        let over = self.seen >= MAX_LINE_BYTES;
        self.seen = 0;
        Line {
            bytes: std::mem::take(&mut self.line),
            over,
        }
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = std::result::Result<(), Self::Error>> + Send + 'static {
        let output = Arc::clone(&self.output);
        let line = serde_json::to_vec(&item);
        async move { write_line(&output, line?).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(writing) = self.writing.as_mut() {
                // Cancel-safe: the write goes on in its task, and is awaited again next time.
                let written = writing.await;
                self.writing = None;
                if !matches!(written, Ok(Ok(()))) {
                    return None;
                }
            }
            let line = self.next_line().await?;
            let answer = if line.over {
                oversized::too_long(oversized::leading_id(&line.bytes)).answer()
            } else if line.bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            } else {
                match message::read(&line.bytes) {
                    Read::Message(message) => return Some(*message),
                    Read::Nothing => continue,
                    Read::Refused(refusal) => refusal.answer(),
                }
            };
            let output = Arc::clone(&self.output);
            self.writing = Some(tokio::spawn(
                async move { write_line(&output, answer).await },
            ));
        }
    }

    async fn close(&mut self) -> std::result::Result<(), Self::Error> {
        if let Some(writing) = self.writing.take() {
            let _ = writing.await;
        }
        Ok(())
    }
}

/// Serves one stdio session until the client closes standard input (or before initializing).
pub(super) async fn serve(server: ApiServer) -> Result<()> {
    let input = tokio::io::BufReader::with_capacity(MAX_LINE_BYTES, tokio::io::stdin());
    let lines = Lines::new(input, tokio::io::stdout());
    let transport = Bounded::new(lines, MAX_IN_FLIGHT);
    eprintln!("model-demand mcp: serving {} on stdio", server.describe());
    let running = match server.serve(transport).await {
        Ok(running) => running,
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(Error::McpSession { why: e.to_string() }),
    };
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| Error::McpSession { why: e.to_string() })
}
