//! The server's connections: at most so many open at once (one more is
//! accepted only when one has closed, so a flood of clients waits in the
//! kernel's backlog instead of growing the server without bound), and each
//! closed when it keeps the server waiting too long: for a request's head
//! (a client that connects and says nothing, trickles a head byte by byte,
//! or idles between requests), or for room to send an answer (a client
//! that sends requests and does not read what comes back).
//!
//! `axum::serve` does neither: it gives hyper no timer, and hyper's limit on
//! reading a request's head needs one. Hence this loop, on hyper directly.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

/// How the connections are held.
pub struct ConnectionLimits {
    /// Open connections at most.
    pub max_connections: usize,
    /// How long a connection may keep the server waiting: to send a
    /// request's head, counted from when the server waits for one (the
    /// connection's start, then each answer on a connection kept alive), or
    /// for room to write an answer's bytes. Then it is closed.
    pub idle_timeout: Duration,
}

/// How long a stopped server lets the requests under way finish.
const LAST_ANSWERS: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `stop` is ready; then accepts no more,
/// lets each connection finish the request it is in (for
/// [`LAST_ANSWERS`] at most), and returns.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &ConnectionLimits,
    stop: impl Future<Output = ()>,
) {
    let places = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout);
    let open = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let place = tokio::select! {
            place = Arc::clone(&places).acquire_owned() => {
                place.expect("the semaphore is never closed")
            }
            () = &mut stop => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: wait, do not spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let stream = WriteLimited::new(stream, limits.idle_timeout);
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = open.watch(connection);
        tokio::spawn(async move {
            // A client that goes away or times out is no error of ours.
            let _ = connection.await;
            drop(place);
        });
    }
    // New clients are refused at once rather than left in the backlog.
    drop(listener);
    let _ = tokio::time::timeout(LAST_ANSWERS, open.shutdown()).await;
}

/// A connection whose writes fail once the client has taken none of their
/// bytes for `limit`.
struct WriteLimited {
    stream: TcpStream,
    limit: Duration,
    /// Started when a write first waits, cleared when one goes through.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl WriteLimited {
    fn new(stream: TcpStream, limit: Duration) -> WriteLimited {
        WriteLimited {
            stream,
            limit,
            stalled: None,
        }
    }

    /// `written` passed on, and the stall it ends or continues timed: only
    /// bytes written end a stall (a flush is always ready on a socket).
    fn timed(
        &mut self,
        cx: &mut Context<'_>,
        written: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        match written {
            Poll::Ready(Ok(0)) => {}
            Poll::Ready(_) => {
                self.stalled = None;
                return written;
            }
            Poll::Pending => {}
        }
        let limit = self.limit;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        // Polled so that its deadline wakes this connection's task.
        match (stalled.as_mut().poll(cx), written) {
            (Poll::Ready(()), _) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client took none of its answer",
            ))),
            (Poll::Pending, written) => written,
        }
    }
}

impl AsyncRead for WriteLimited {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteLimited {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.timed(cx, written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.timed(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
