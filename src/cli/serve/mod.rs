//! `morris serve`: the answers of one or more folders over HTTP (the JSON
//! of `probe --json` and its kin, see `api`) and a page to explore them
//! (`page/`), bound to localhost unless told otherwise.
//!
//! What keeps it safe under load: every probe runs on a bounded pool of
//! blocking threads, so a slow disk never stalls the listener; a probe
//! waits for one of `threads + queue` places or is refused with 503 at
//! once; connections are capped, and closed when they keep the server
//! waiting `--idle-timeout` seconds for a request or to take an answer
//! (`listener`); queries are capped in size;
//! and a request names a folder only by the name the server gave it, never
//! by a path.

mod api;
mod listener;

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use morris::db::SectorStats;
use morris::{SectorKey, Tablebase};
use tokio::sync::Semaphore;

use super::{Rules, open};

/// How `morris serve` runs.
pub struct ServeOptions {
    pub addr: SocketAddr,
    /// Threads that probe (the bounded pool).
    pub threads: usize,
    /// Probes that may wait for a thread before more are refused with 503.
    pub queue: usize,
    /// Open connections at most; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// A connection that keeps the server waiting this long, for a request
    /// head or for room to send an answer, is closed.
    pub idle_timeout: Duration,
    /// For tests only: every probe first sleeps this long, so that a burst
    /// fills the pool and its queue.
    pub slow_probes: Option<Duration>,
}

/// One folder served, under the name requests give it (`?db=NAME`).
pub struct Served {
    pub name: String,
    pub tablebase: Tablebase,
    /// Sector statistics already computed (each reads a whole file).
    stats: Mutex<HashMap<SectorKey, Arc<StatsSlot>>>,
}

/// One sector's statistics once computed; locked while they are, so that
/// requests asking at once read its file once.
type StatsSlot = Mutex<Option<SectorStats>>;

/// What every request sees.
pub struct ServerState {
    /// In the order given; the first is the default.
    folders: Vec<Arc<Served>>,
    /// Places for probes: running or waiting for a thread.
    probe_places: Arc<Semaphore>,
    slow_probes: Option<Duration>,
}

/// Names the folders by their last path component, made unique.
fn served_folders(opened: Vec<(&Path, Tablebase)>) -> Vec<Served> {
    let mut served: Vec<Served> = Vec::new();
    for (dir, tablebase) in opened {
        let base = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "db".to_string());
        let mut name = base.clone();
        let mut n = 2;
        while served.iter().any(|s| s.name == name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        served.push(Served {
            name,
            tablebase,
            stats: Mutex::new(HashMap::new()),
        });
    }
    served
}

/// The arguments of `morris serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Database folder; give --db again to serve several, each under its
    /// last path component as its name (`?db=NAME`; the first is the
    /// default). A folder under the move-count rule served beside one of
    /// the same game without it reads that one too, as `probe
    /// --without-rule` does, to tell cursed wins and blessed losses from
    /// true draws at every counter.
    #[arg(long, default_value = "db")]
    pub db: Vec<std::path::PathBuf>,
    /// Address and port to listen on (port 0: any free port). Keep
    /// 127.0.0.1 unless others on the network are meant to reach it.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: std::net::SocketAddr,
    /// Threads that probe, 1 to 1024 (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Probes that may wait for a thread; a request beyond them is
    /// refused at once with 503 (and Retry-After).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub queue: u32,
    /// Open connections at most; more wait to be accepted.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: u32,
    /// Seconds a connection may keep the server waiting before it is
    /// closed: to send a request's head (from when it opens, and from the
    /// last answer on it), or for room to send an answer (a client that
    /// stops reading). Silent, slow and idle clients give their place back.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub idle_timeout: u64,
    /// For tests: every probe first sleeps this many milliseconds.
    #[arg(long, hide = true)]
    pub slow_probes_ms: Option<u64>,
}

/// `morris serve`: opens each folder (pairing a folder under the rule with
/// one of the same game without it) and serves them.
pub fn serve_folders(out: &mut dyn Write, args: &ServeArgs, rules: Rules) -> Result<()> {
    let options = ServeOptions {
        addr: args.addr,
        threads: super::set_threads(args.threads)?,
        queue: args.queue as usize,
        max_connections: args.max_connections as usize,
        idle_timeout: Duration::from_secs(args.idle_timeout),
        slow_probes: args.slow_probes_ms.map(Duration::from_millis),
    };
    // By their canonical paths, which the server's errors replace by the
    // folders' served names (`api`).
    let dirs: Vec<std::path::PathBuf> = (args.db.iter())
        .map(|dir| dir.canonicalize().unwrap_or_else(|_| dir.clone()))
        .collect();
    let mut opened = Vec::new();
    for dir in &dirs {
        opened.push((dir.as_path(), open(dir, rules)?));
    }
    // The partner's own manifest names its rules (as `probe --without-rule`).
    let as_it_is = Rules {
        variant: None,
        n_move: None,
    };
    let opened = with_folders_without_rule(opened, |dir| open(dir, as_it_is))?;
    serve(out, served_folders(opened), &options)
}

/// Each folder under the move-count rule with a folder of the same game
/// without it beside it, opened again by `open` for the pair (see
/// `probe --without-rule`).
fn with_folders_without_rule(
    opened: Vec<(&Path, Tablebase)>,
    open: impl Fn(&Path) -> Result<Tablebase>,
) -> Result<Vec<(&Path, Tablebase)>> {
    let plain: Vec<(&Path, &'static str)> = opened
        .iter()
        .filter(|(_, t)| t.variant().n_move.is_none())
        .map(|(dir, t)| (*dir, t.variant().name))
        .collect();
    let mut paired = Vec::with_capacity(opened.len());
    for (dir, tablebase) in opened {
        let game = tablebase.variant().name;
        let partner = plain.iter().find(|(_, name)| *name == game);
        paired.push(match partner {
            Some((plain_dir, _)) if tablebase.variant().n_move.is_some() => {
                (dir, tablebase.with_folder_without_rule(open(plain_dir)?)?)
            }
            _ => (dir, tablebase),
        });
    }
    Ok(paired)
}

/// Serves `folders` until interrupted (Ctrl-C or SIGTERM), saying first on
/// `out` where.
fn serve(out: &mut dyn Write, folders: Vec<Served>, options: &ServeOptions) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(options.threads.max(1))
        .enable_all()
        .build()
        .context("cannot start the server's threads")?;
    let state = Arc::new(ServerState {
        folders: folders.into_iter().map(Arc::new).collect(),
        probe_places: Arc::new(Semaphore::new(options.threads.max(1) + options.queue)),
        slow_probes: options.slow_probes,
    });
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(options.addr)
            .await
            .with_context(|| format!("cannot listen on {}", options.addr))?;
        let addr = listener.local_addr()?;
        let names: Vec<&str> = state.folders.iter().map(|f| f.name.as_str()).collect();
        writeln!(
            out,
            "serving {} at http://{addr}/ (API under /api; Ctrl-C stops)",
            names.join(", ")
        )?;
        out.flush()?;
        let limits = listener::ConnectionLimits {
            max_connections: options.max_connections,
            idle_timeout: options.idle_timeout,
        };
        listener::serve(listener, api::router(state), &limits, stopped()).await;
        Ok(())
    });
    // A probe still running (a whole folder's statistics) is not waited for.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served
}

/// Ctrl-C or SIGTERM.
async fn stopped() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => return std::future::pending().await,
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
