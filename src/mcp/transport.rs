//! The stdio transport: rmcp's own reader for what the client sends, and one writer thread
//! that owns standard output and writes whole lines, stored results as their bytes.
//!
//! Why not rmcp's stdio transport as it is: it serializes every message it sends, so a stored
//! result (`prepared.rs`) would be encoded again. Reading stays rmcp's (`AsyncRwTransport`:
//! bounded lines, unparsable input ignored, an Invalid Request answer to JSON of the wrong
//! shape); only the writing side is this module's. Every line, rmcp's error answers included,
//! goes through one bounded queue to the one writer, so lines never interleave and a client
//! that stops reading holds the server back instead of filling its memory.

use std::future::Future;
use std::io::{self, BufWriter, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::thread::JoinHandle;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::{StdioReader, Transport};
use rmcp::RoleServer;
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio_util::sync::PollSender;

use super::prepared::{Line, PreparedResults};

/// Lines waiting for the writer (a few default pages' worth).
const QUEUE_LINES: usize = 32;
/// The writer's buffer: small lines are gathered, large ones pass straight through.
const WRITE_BUFFER: usize = 256 * 1024;

/// The thread that writes standard output, until every sender is gone.
pub struct Writer {
    thread: JoinHandle<io::Result<()>>,
}

impl Writer {
    /// Starts the writer on `out` (standard output in the server) and gives the queue to it.
    pub fn start<W: Write + Send + 'static>(out: W) -> (mpsc::Sender<Line>, Writer) {
        let (sender, mut queue) = mpsc::channel::<Line>(QUEUE_LINES);
        let thread = std::thread::spawn(move || {
            let mut out = BufWriter::with_capacity(WRITE_BUFFER, out);
            while let Some(line) = queue.blocking_recv() {
                for part in line.parts() {
                    out.write_all(part)?;
                }
                // Flush when nothing else is waiting, so an answer never sits in the buffer.
                if queue.is_empty() {
                    out.flush()?;
                }
            }
            out.flush()
        });
        (sender, Writer { thread })
    }

    /// Waits until every line sent has been written (call once all senders are dropped). A
    /// client that closed its end first is not an error: there is no one left to tell.
    pub fn finish(self) -> io::Result<()> {
        match self.thread.join() {
            Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            Ok(result) => result,
            Err(_) => Err(io::Error::other("the standard output writer stopped")),
        }
    }
}

/// The server's transport: rmcp's reader over standard input, this module's writer out.
pub struct StdioTransport {
    reader: AsyncRwTransport<RoleServer, StdioReader, QueueWriter>,
    queue: Option<mpsc::Sender<Line>>,
    prepared: Arc<PreparedResults>,
}

impl StdioTransport {
    /// A transport reading `input` and sending lines to `queue`, stored results from `prepared`.
    pub fn new(
        input: StdioReader,
        queue: mpsc::Sender<Line>,
        prepared: Arc<PreparedResults>,
    ) -> StdioTransport {
        let errors = QueueWriter {
            queue: PollSender::new(queue.clone()),
            pending: Vec::new(),
        };
        StdioTransport {
            reader: AsyncRwTransport::new_server(input, errors),
            queue: Some(queue),
            prepared,
        }
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "standard output is closed")
}

impl Transport<RoleServer> for StdioTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = self.prepared.line(&item).map_err(io::Error::other);
        let queue = self.queue.clone();
        async move {
            let queue = queue.ok_or_else(closed)?;
            queue.send(line?).await.map_err(|_| closed())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.reader.receive()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.queue = None;
        self.reader.close().await
    }
}

/// What rmcp's reader writes (its Invalid Request answers), cut into lines for the queue.
struct QueueWriter {
    queue: PollSender<Line>,
    pending: Vec<u8>,
}

impl AsyncWrite for QueueWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        // Taken whole; whole lines leave at flush, which rmcp's writer calls after each message.
        self.get_mut().pending.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        while let Some(end) = this.pending.iter().position(|b| *b == b'\n') {
            ready!(this.queue.poll_reserve(cx)).map_err(|_| closed())?;
            let line: Vec<u8> = this.pending.drain(..=end).collect();
            this.queue
                .send_item(Line::whole(line))
                .map_err(|_| closed())?;
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().poll_flush(cx))?;
        self.get_mut().queue.close();
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A `Write` whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| io::Error::other("poisoned"))?
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_writer_writes_every_line_whole_in_order_then_ends() {
        let out = Shared::default();
        let (queue, writer) = Writer::start(out.clone());
        let body: Arc<[u8]> = Arc::from(&b"{\"a\":1,\"b\":2}"[..]);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            for n in 0..100 {
                let line = if n % 2 == 0 {
                    Line::whole(format!("{{\"n\":{n}}}\n").into_bytes())
                } else {
                    Line {
                        head: format!("{{\"n\":{n},\"r\":{{\"t\":1,").into_bytes(),
                        body: Some((Arc::clone(&body), 1)),
                        tail: b"}\n",
                    }
                };
                queue.send(line).await.expect("queued");
            }
        });
        drop(queue);
        writer.finish().expect("finished");
        let written = String::from_utf8(out.0.lock().expect("lock").clone()).expect("utf-8");
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), 100);
        for (n, line) in lines.iter().enumerate() {
            let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
            assert_eq!(value["n"], n);
            if n % 2 == 1 {
                assert_eq!(value["r"], serde_json::json!({"t": 1, "a": 1, "b": 2}));
            }
        }
    }
}
