//! The server's connections: at most so many open at once (one more is
//! accepted only when one has closed, so a flood of clients waits in the
//! kernel's backlog instead of growing the server without bound), and each
//! closed when it sends no request head for a while (so clients that
//! connect and say nothing, or trickle a head byte by byte, cannot hold
//! every place).
//!
//! `axum::serve` does neither: it gives hyper no timer, and hyper's limit on
//! reading a request's head needs one. Hence this loop, on hyper directly.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How the connections are held.
pub struct ConnectionLimits {
    /// Open connections at most.
    pub max_connections: usize,
    /// How long a connection may take to send a request's head, counted
    /// from when the server waits for one: from the connection's start, and
    /// after each answer on a connection kept alive. Then it is closed.
    pub head_timeout: Duration,
}

/// Serves `app` on `listener` until `stop` is ready; then accepts no more,
/// lets each connection finish the request it is in, and returns.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &ConnectionLimits,
    stop: impl Future<Output = ()>,
) {
    let places = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.head_timeout);
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
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = open.watch(connection);
        tokio::spawn(async move {
            // A client that goes away or times out is no error of ours.
            let _ = connection.await;
            drop(place);
        });
    }
    open.shutdown().await;
}
