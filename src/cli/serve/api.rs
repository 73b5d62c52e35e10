//! The routes: the page (`/`, `/page.js`, `/page.css`) and the API under
//! `/api`, every answer JSON, every error `{"error", "kind", "hint"}`: a
//! library error's status decided in [`status_of`] only, the server's own
//! (a bad query, no such route, over capacity) where they arise.

use std::sync::Arc;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use morris::db::{FolderValues, SectorStats, Storage, folder_storage, sector_files};
use morris::{Answer, ErrorKind, Position, SectorKey, Tablebase};
use serde::Deserialize;
use serde_json::{Value as Json_, json};

use super::{Served, ServerState};
use crate::cli::errors::{hint, kind_of};
use crate::cli::parse_position_at;
use crate::cli::probe::LINE_LIMIT;

/// Longest query string read (a position string is under 100 bytes).
pub const MAX_QUERY_BYTES: usize = 2048;

pub fn router(state: Arc<ServerState>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/page.js", get(page_script))
        .route("/page.css", get(page_style))
        .route("/api/meta", get(meta))
        .route("/api/probe", get(probe))
        .route("/api/line", get(line))
        .route("/api/stats", get(stats))
        .route("/api/stats/{sector}", get(sector_stats))
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .layer(middleware::from_fn(cap_query))
        .with_state(state)
}

/// An error as the API answers it.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    error: String,
    hint: Option<String>,
}

/// The one place where a kind of error becomes a status: 400 bad input or
/// a request that contradicts itself, 404 what the folder lacks (with what
/// builds it), 500 a damaged file.
fn status_of(kind: Option<ErrorKind>) -> (StatusCode, &'static str) {
    match kind {
        None | Some(ErrorKind::BadInput) => (StatusCode::BAD_REQUEST, "bad_input"),
        Some(ErrorKind::Usage) => (StatusCode::BAD_REQUEST, "usage"),
        Some(ErrorKind::MissingData) => (StatusCode::NOT_FOUND, "missing_data"),
        Some(ErrorKind::DamagedData) => (StatusCode::INTERNAL_SERVER_ERROR, "damaged_data"),
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(e: anyhow::Error) -> ApiError {
        let (status, kind) = status_of(kind_of(&e));
        ApiError {
            status,
            kind,
            error: format!("{e:#}"),
            hint: hint(&e),
        }
    }
}

impl From<morris::ProbeError> for ApiError {
    fn from(e: morris::ProbeError) -> ApiError {
        anyhow::Error::from(e).into()
    }
}

impl ApiError {
    fn bad_input(error: String) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            kind: "bad_input",
            error,
            hint: None,
        }
    }

    /// Every place for a probe is taken: come back later.
    fn over_capacity() -> ApiError {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            kind: "over_capacity",
            error: "the server is answering as many probes as it can: try again shortly".into(),
            hint: None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": self.error, "kind": self.kind});
        if let Some(hint) = self.hint {
            body["hint"] = hint.into();
        }
        let mut response = (self.status, Json(body)).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// Refuses, before any handler, a query longer than [`MAX_QUERY_BYTES`] and
/// a request with a body (no route reads one).
async fn cap_query(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > 0) || headers.contains_key(header::TRANSFER_ENCODING) {
        return ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            kind: "bad_input",
            error: "the API reads no request body: ask with GET and a query".into(),
            hint: None,
        }
        .into_response();
    }
    let length = request.uri().query().map_or(0, str::len);
    if length > MAX_QUERY_BYTES {
        return ApiError {
            status: StatusCode::URI_TOO_LONG,
            kind: "bad_input",
            error: format!("a query of {length} bytes: at most {MAX_QUERY_BYTES} are read"),
            hint: None,
        }
        .into_response();
    }
    next.run(request).await
}

async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        kind: "not_found",
        error: "no such page: the API is /api/meta, /api/probe, /api/line, /api/stats".into(),
        hint: None,
    }
}

async fn not_allowed() -> ApiError {
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        kind: "bad_input",
        error: "only GET is answered".into(),
        hint: None,
    }
}

/// The query of every API route: the folder by its served name (the first
/// when left out) and a position where one is asked about.
#[derive(Deserialize)]
struct Asked {
    db: Option<String>,
    position: Option<String>,
}

impl ServerState {
    /// `error` with the path of every served folder written as its served
    /// name: an answer names a folder as requests do, never by where it lies
    /// on the server. (The folders are opened by their canonical paths, so
    /// no relative path such as `db` can match inside other words; the
    /// longest path goes first, so that `/d/six` does not match inside
    /// `/d/six-20`.)
    fn naming_folders(&self, mut error: ApiError) -> ApiError {
        let mut folders: Vec<(String, String)> = self
            .folders
            .iter()
            .map(|f| {
                (
                    f.tablebase.dir().display().to_string(),
                    format!("'{}'", f.name),
                )
            })
            .collect();
        folders.sort_by_key(|(dir, _)| std::cmp::Reverse(dir.len()));
        for (dir, name) in &folders {
            error.error = error.error.replace(dir, name);
            error.hint = error.hint.map(|hint| hint.replace(dir, name));
        }
        error
    }

    fn folder(&self, name: Option<&str>) -> Result<Arc<Served>, ApiError> {
        let Some(name) = name else {
            return Ok(Arc::clone(&self.folders[0]));
        };
        self.folders
            .iter()
            .find(|f| f.name == name)
            .cloned()
            .ok_or_else(|| {
                let names: Vec<&str> = self.folders.iter().map(|f| f.name.as_str()).collect();
                ApiError {
                    status: StatusCode::NOT_FOUND,
                    kind: "missing_data",
                    error: format!(
                        "no folder named '{}' is served; the folders are: {}",
                        crate::cli::echo(name),
                        names.join(", ")
                    ),
                    hint: None,
                }
            })
    }

    /// Runs `job` on the bounded pool of probing threads, or refuses it
    /// with 503 when every place is taken.
    async fn probe<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
    ) -> Result<T, ApiError> {
        let place = Arc::clone(&self.probe_places)
            .try_acquire_owned()
            .map_err(|_| ApiError::over_capacity())?;
        let slow = self.slow_probes;
        let done = tokio::task::spawn_blocking(move || {
            let _place = place;
            if let Some(pause) = slow {
                std::thread::sleep(pause);
            }
            job()
        })
        .await;
        match done {
            Ok(result) => result.map_err(ApiError::from),
            Err(panic) => Err(ApiError {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                kind: "damaged_data",
                error: format!("the probe failed: {panic}"),
                hint: None,
            }),
        }
    }
}

/// The query read, or a JSON error saying what is wrong with it.
fn asked(query: Result<Query<Asked>, QueryRejection>) -> Result<Asked, ApiError> {
    query
        .map(|Query(q)| q)
        .map_err(|e| ApiError::bad_input(e.body_text()))
}

/// The position asked about.
fn position_of(asked: &Asked) -> Result<String, ApiError> {
    asked.position.clone().ok_or_else(|| {
        ApiError::bad_input("give ?position=… (a position string, a Sanmill FEN or 'start')".into())
    })
}

/// `GET /api/probe?position=…`: the JSON of `morris probe --json`.
async fn probe(
    State(state): State<Arc<ServerState>>,
    query: Result<Query<Asked>, QueryRejection>,
) -> Result<Json<Answer>, ApiError> {
    answered(&state, query, |tablebase, pos, counter| {
        Ok(tablebase.answer(pos, counter)?)
    })
    .await
}

/// `GET /api/line?position=…`: the value and the line of perfect play, as
/// `morris probe --json --line` gives them (without the moves).
async fn line(
    State(state): State<Arc<ServerState>>,
    query: Result<Query<Asked>, QueryRejection>,
) -> Result<Json<Answer>, ApiError> {
    answered(&state, query, |tablebase, pos, counter| {
        let mut answer = tablebase.answer_value(pos, counter)?;
        tablebase.add_line(&mut answer, LINE_LIMIT)?;
        Ok(answer)
    })
    .await
}

/// The position a query asks about in the folder it names, answered by
/// `answer` on the pool of probing threads.
async fn answered(
    state: &ServerState,
    query: Result<Query<Asked>, QueryRejection>,
    answer: fn(&Tablebase, &Position, u8) -> anyhow::Result<Answer>,
) -> Result<Json<Answer>, ApiError> {
    let asked = asked(query)?;
    let folder = state.folder(asked.db.as_deref())?;
    let text = position_of(&asked)?;
    let answer = state
        .probe(move || {
            let tablebase = &folder.tablebase;
            let (pos, counter) = parse_position_at(tablebase.variant(), &text)?;
            answer(tablebase, &pos, counter)
        })
        .await
        .map_err(|e| state.naming_folders(e))?;
    Ok(Json(answer))
}

/// One sector's statistics as JSON: the columns of `morris stats --tsv`.
fn stats_json(folder: &Served, s: &SectorStats) -> Json_ {
    let wdl_only = folder.tablebase.values() == FolderValues::WinDrawLoss;
    let longest = |plies: u16| if wdl_only { Json_::Null } else { plies.into() };
    json!({
        "sector": s.sector.to_string(),
        "positions": s.positions,
        "wins": s.wins,
        "losses": s.losses,
        "draws": s.draws,
        "longest_win": longest(s.longest_win),
        "longest_loss": longest(s.longest_loss),
    })
}

impl Served {
    /// A sector's statistics, computed once (each reads a whole file): a
    /// request that asks while another computes them waits for its result.
    fn sector_stats(&self, sector: SectorKey) -> anyhow::Result<SectorStats> {
        let slot = {
            let mut slots = self.stats.lock().unwrap_or_else(|p| p.into_inner());
            Arc::clone(slots.entry(sector).or_default())
        };
        let mut known = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(stats) = *known {
            return Ok(stats);
        }
        let stats = self.tablebase.sector_stats(sector)?;
        *known = Some(stats);
        Ok(stats)
    }
}

/// `GET /api/stats`: every sector of the folder (`?position=…`: the
/// position's sector only).
async fn stats(
    State(state): State<Arc<ServerState>>,
    query: Result<Query<Asked>, QueryRejection>,
) -> Result<Json<Json_>, ApiError> {
    let asked = asked(query)?;
    let folder = state.folder(asked.db.as_deref())?;
    let variant = folder.tablebase.variant();
    let sector = match &asked.position {
        Some(text) => {
            let sector = SectorKey::of(&parse_position_at(variant, text)?.0);
            // A side below three men: the game is over, and no sector (no
            // file) holds the position.
            if !sector.is_valid(variant) {
                return Err(ApiError::bad_input(format!(
                    "the game is over in this position: it lies in no sector of {} (a side has fewer than 3 men)",
                    variant.label()
                )));
            }
            Some(sector)
        }
        None => None,
    };
    let body = state
        .probe(move || {
            if let Some(sector) = sector {
                return Ok(stats_json(&folder, &folder.sector_stats(sector)?));
            }
            let mut all = Vec::new();
            for sector in sector_files(folder.tablebase.dir())? {
                all.push(stats_json(&folder, &folder.sector_stats(sector)?));
            }
            Ok(Json_::Array(all))
        })
        .await
        .map_err(|e| state.naming_folders(e))?;
    Ok(Json(body))
}

/// `GET /api/stats/SECTOR`: one sector's statistics.
async fn sector_stats(
    State(state): State<Arc<ServerState>>,
    sector: Result<UrlPath<String>, PathRejection>,
    query: Result<Query<Asked>, QueryRejection>,
) -> Result<Json<Json_>, ApiError> {
    let UrlPath(sector) = sector.map_err(|e| ApiError::bad_input(e.body_text()))?;
    let asked = asked(query)?;
    let folder = state.folder(asked.db.as_deref())?;
    let variant = folder.tablebase.variant();
    let key = sector
        .parse::<SectorKey>()
        .ok()
        .filter(|k| k.is_valid(variant))
        .ok_or_else(|| {
            ApiError::bad_input(format!(
                "'{}' is not a sector of {} (sectors read like 3-3 or 2+7-3+6)",
                crate::cli::echo(&sector),
                variant.label()
            ))
        })?;
    let body = state
        .probe(move || Ok(stats_json(&folder, &folder.sector_stats(key)?)))
        .await
        .map_err(|e| state.naming_folders(e))?;
    Ok(Json(body))
}

/// `GET /api/meta`: what a folder holds and the board to draw it on.
async fn meta(
    State(state): State<Arc<ServerState>>,
    query: Result<Query<Asked>, QueryRejection>,
) -> Result<Json<Json_>, ApiError> {
    let asked = asked(query)?;
    let folder = state.folder(asked.db.as_deref())?;
    let names: Vec<&str> = state.folders.iter().map(|f| f.name.as_str()).collect();
    let tablebase = &folder.tablebase;
    let variant = tablebase.variant();
    let board = variant.board;
    let sectors: Vec<String> = sector_files(tablebase.dir())
        .map_err(|e| state.naming_folders(ApiError::from(anyhow::Error::from(e))))?
        .iter()
        .map(ToString::to_string)
        .collect();
    let points: Vec<Json_> = (0..board.len() as morris::rules::Point)
        .map(|p| {
            let (file, rank) = board.coordinates(p);
            json!({"name": board.name(p), "file": file, "rank": rank})
        })
        .collect();
    let mut links = Vec::new();
    for p in 0..board.len() as morris::rules::Point {
        for q in board.links(p).iter().filter(|&q| q > p) {
            links.push(json!([board.name(p), board.name(q)]));
        }
    }
    let ranks: Vec<Vec<&str>> = board
        .ranks()
        .iter()
        .map(|rank| rank.iter().map(|&p| board.name(p)).collect())
        .collect();
    let (values, n_move) = match tablebase.values() {
        FolderValues::Distances => ("distances", None),
        FolderValues::WinDrawLoss => ("win-draw-loss", None),
        FolderValues::MoveCountRule { n } => ("move-count-rule", Some(n)),
    };
    let storage = match folder_storage(tablebase.dir()) {
        Storage::Raw => "raw",
        Storage::Packed => "packed",
        Storage::PackedWdl => "packed-wdl",
    };
    Ok(Json(json!({
        "name": folder.name,
        "folders": names,
        "variant": variant.name,
        "label": variant.label(),
        "description": variant.description,
        "n_move": n_move,
        "values": values,
        "storage": storage,
        "men": variant.men,
        "start": morris::Position::start(variant).notation(board),
        "sectors": sectors,
        "board": {"points": points, "links": links, "ranks": ranks},
    })))
}

const PAGE_HTML: &str = include_str!("page/index.html");
const PAGE_SCRIPT: &str = include_str!("page/page.js");
const PAGE_STYLE: &str = include_str!("page/page.css");

async fn page() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        PAGE_HTML,
    )
}

async fn page_script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        PAGE_SCRIPT,
    )
}

async fn page_style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        PAGE_STYLE,
    )
}
