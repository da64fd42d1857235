//! `model-demand mcp` on standard input and output: rmcp's own line transport on the standard
//! streams, with a bound on the requests in flight. While [`MAX_IN_FLIGHT`] requests are
//! unanswered (their answers not yet written to standard output), the next line is not read,
//! so a client that writes requests without reading the answers fills its pipe and waits,
//! instead of growing the server by an answer a request. A line over [`MAX_LINE_BYTES`] gets
//! an Invalid Request error with its ID (`oversized.rs`) and is discarded as it streams past.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, RequestId, ServerJsonRpcMessage};
use rmcp::service::ServerInitializeError;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::oversized;
use super::server::ApiServer;
use crate::error::{Error, Result};

/// Requests read and not yet answered, at most.
pub(crate) const MAX_IN_FLIGHT: usize = 16;
/// The longest line read (its newline included); a longer one is answered with an Invalid
/// Request error and discarded unread (no tool needs more than a few hundred bytes of
/// arguments), so one line never holds more memory than this.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;

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

/// Serves one stdio session until the client closes standard input (or before initializing).
pub(super) async fn serve(server: ApiServer) -> Result<()> {
    let (input, output) = rmcp::transport::io::stdio_pipes();
    let (input, reports) = oversized::watch(input, MAX_LINE_BYTES);
    let lines = AsyncRwTransport::new_server(input, output).with_max_line_length(MAX_LINE_BYTES);
    let transport = Bounded::new(oversized::Answered::new(lines, reports), MAX_IN_FLIGHT);
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
