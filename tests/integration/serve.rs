//! `morris serve` through HTTP: a server on a free local port, asked with a
//! plain HTTP/1.1 client; its answers against the library's, every kind of
//! error with its status, a burst beyond its places, and clients that hold
//! a connection without sending a request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use morris::db::Tablebase;
use morris::solve::Selection;
use morris::{Position, SectorKey, Variant};
use serde_json::Value as Json;

use crate::pack::pack_folder_as;
use crate::solver::solve_into;

fn six() -> &'static Variant {
    Variant::by_name("six").unwrap()
}

/// Six whole (raw, packed, and under the rule of 20 plies) and the standard game's sector 3-3 alone.
fn folders() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        crate::shared_folder("serve", |dir| {
            solve_into(&dir.join("six"), six(), Selection::All);
            pack_folder_as(&dir.join("six"), &dir.join("six-packed"), &[]);
            solve_into(
                &dir.join("six-20"),
                six().with_n_move(20).unwrap(),
                Selection::All,
            );
            let three = "3-3".parse::<SectorKey>().unwrap();
            solve_into(
                &dir.join("std"),
                Variant::standard(),
                Selection::Sectors(vec![three]),
            );
        })
    })
}

/// A server on a free port, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(dirs: &[&Path], extra: &[&str]) -> Server {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("morris"));
        command.arg("serve").args(["--addr", "127.0.0.1:0"]);
        for dir in dirs {
            command.arg("--db").arg(dir);
        }
        let mut child = command.args(extra).stdout(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        Server { child, addr }
    }

    /// `GET path`: the status and the body as JSON (`Null` if it is not).
    fn get(&self, path: &str) -> (u16, Json) {
        let (status, body) = http_get(&self.addr, path);
        (status, serde_json::from_str(&body).unwrap_or(Json::Null))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET path` on its own connection: the status and the body.
fn http_get(addr: &str, path: &str) -> (u16, String) {
    http_request(addr, &format!("GET {path}"), "")
}

/// One request (`METHOD PATH`, extra header lines) on its own connection,
/// sending no body: the status and the body of the response.
fn http_request(addr: &str, request: &str, headers: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{request} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
    let body = response
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

/// A position in a query.
fn query(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Positions met in random games of six from the start (a fixed seed).
fn six_positions(count: usize) -> Vec<Position> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::start(six());
        for _ in 0..60 {
            out.push(pos);
            let moves = six().moves(&pos);
            if moves.is_empty() || out.len() == count {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos = moves[(seed % moves.len() as u64) as usize].1;
        }
    }
    out
}

/// What the library answers, as the API should: the answer's JSON, or the
/// status of its error.
fn library_answer(tablebase: &Tablebase, pos: &Position, line: bool) -> Result<Json, u16> {
    let answer = if line {
        tablebase.answer_value(pos, 0).and_then(|mut a| {
            tablebase.add_line(&mut a, 1000)?;
            Ok(a)
        })
    } else {
        tablebase.answer(pos, 0)
    };
    match answer {
        Ok(a) => Ok(serde_json::to_value(&a).unwrap()),
        Err(e) if e.kind() == morris::ErrorKind::MissingData => Err(404),
        Err(e) => panic!("the library failed: {e}"),
    }
}

#[test]
fn the_api_answers_as_the_library_does() {
    let dir = folders();
    let server = Server::start(
        &[&dir.join("six"), &dir.join("six-packed"), &dir.join("std")],
        &[],
    );
    for (name, folder) in [("six", "six"), ("six-packed", "six-packed")] {
        let tablebase = Tablebase::open_folder(&dir.join(folder)).unwrap();
        for pos in six_positions(120) {
            let text = pos.notation(six().board);
            for (route, line) in [("probe", false), ("line", true)] {
                let (status, body) =
                    server.get(&format!("/api/{route}?db={name}&position={}", query(&text)));
                assert_eq!(status, 200, "{route} {text}: {body}");
                let wanted = library_answer(&tablebase, &pos, line).unwrap();
                assert_eq!(body, wanted, "{name} {route} {text}");
            }
        }
    }
    // Exactly what `morris probe --json` prints.
    let printed = assert_cmd::Command::cargo_bin("morris")
        .unwrap()
        .args(["probe", "--json", "start", "--db"])
        .arg(dir.join("six"))
        .output()
        .unwrap();
    let printed: Json = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(server.get("/api/probe?position=start").1, printed);
    // The standard game's 3-3 (every capture there ends the game).
    let tablebase = Tablebase::open_folder(&dir.join("std")).unwrap();
    let board = Variant::standard().board;
    for white in [["a7", "d7", "b4"], ["a1", "g1", "d3"], ["c5", "e3", "f6"]] {
        for black in [["g7", "d6", "d2"], ["b6", "f2", "e4"]] {
            let pos = position_of(board, &white, &black);
            let text = pos.notation(board);
            let (status, body) =
                server.get(&format!("/api/probe?db=std&position={}", query(&text)));
            let wanted = library_answer(&tablebase, &pos, false).unwrap();
            assert_eq!((status, &body), (200, &wanted), "{text}");
        }
    }

    // Statistics and what a folder holds.
    let three = "3-3".parse::<SectorKey>().unwrap();
    let stats = tablebase.sector_stats(three).unwrap();
    let (status, body) = server.get("/api/stats/3-3?db=std");
    assert_eq!(status, 200);
    assert_eq!(body["positions"], stats.positions);
    assert_eq!(
        (&body["wins"], &body["draws"], &body["losses"]),
        (
            &stats.wins.into(),
            &stats.draws.into(),
            &stats.losses.into()
        )
    );
    assert_eq!(body["longest_win"], stats.longest_win);
    let (status, all) = server.get("/api/stats?db=std");
    assert_eq!((status, all.as_array().map(Vec::len)), (200, Some(1)));
    let (status, meta) = server.get("/api/meta?db=six-packed");
    assert_eq!(status, 200);
    assert_eq!(meta["variant"], "six");
    assert_eq!(meta["storage"], "packed");
    assert_eq!(
        meta["folders"],
        serde_json::json!(["six", "six-packed", "std"])
    );
    assert_eq!(meta["board"]["points"].as_array().unwrap().len(), 16);
    // The first folder is the default; the page is served.
    let (status, meta) = server.get("/api/meta");
    assert_eq!((status, &meta["name"]), (200, &"six".into()));
    let (status, page) = http_get(&server.addr, "/");
    assert_eq!(status, 200);
    assert!(page.contains("<svg id=\"board\""), "{page}");
}

/// A folder under the rule served beside the same game's folder without it
/// reads that one too: its answers at every counter are the library's with
/// the pair, cursed wins among them.
#[test]
fn a_folder_under_the_rule_is_paired_with_the_one_without() {
    let dir = folders();
    let server = Server::start(&[&dir.join("six-20"), &dir.join("six")], &[]);
    let rule = six().with_n_move(20).unwrap();
    let tablebase = Tablebase::open(&dir.join("six-20"), rule)
        .unwrap()
        .with_folder_without_rule(Tablebase::open_folder(&dir.join("six")).unwrap())
        .unwrap();
    let mut categories = std::collections::BTreeSet::new();
    for pos in six_positions(60) {
        for counter in [0u8, 12, 19] {
            let text = format!("{} {counter}", pos.notation(six().board));
            let (status, body) = server.get(&format!("/api/probe?position={}", query(&text)));
            let wanted = serde_json::to_value(tablebase.answer(&pos, counter).unwrap()).unwrap();
            assert_eq!((status, &body), (200, &wanted), "{text}");
            for m in body["moves"].as_array().unwrap() {
                categories.insert(m["category"].as_str().unwrap().to_string());
            }
        }
    }
    assert!(categories.contains("cursed-win"), "{categories:?}");
    let (status, body) = server.get(&format!("/api/probe?position={}", query("start 21")));
    assert_eq!(
        (status, body["kind"].as_str()),
        (400, Some("bad_input")),
        "{body}"
    );
}

/// A standard position from the points of each side, White to move.
fn position_of(board: &morris::rules::Board, white: &[&str], black: &[&str]) -> Position {
    let side = |points: &[&str]| {
        points
            .iter()
            .map(|p| board.point(p).unwrap())
            .collect::<morris::Bitboard>()
    };
    Position::from_sides(side(white), 0, side(black), 0)
}

#[test]
fn every_kind_of_error_has_its_status() {
    let dir = folders();
    // A copy of 3-3 whose file is cut short: damaged.
    let damaged = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir.join("std")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, damaged.path().join(path.file_name().unwrap())).unwrap();
    }
    let file = damaged.path().join("3-3.mdb");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let server = Server::start(&[&dir.join("six"), &dir.join("std"), damaged.path()], &[]);
    let damaged_name = damaged
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let three_three = query("WBW/.../.../W...../.../.../BB. w 0 0");
    let two_men = query("WWW/.../.../....../.../.../B.B b 0 0");
    let out_of_step = query("WWW/.../..../.../BBB w 3 0");
    let long = "x".repeat(5000);
    let cases: Vec<(String, u16, &str)> = vec![
        ("/api/probe?position=nonsense".into(), 400, "bad_input"),
        ("/api/probe".into(), 400, "bad_input"),
        (
            "/api/probe?position=start&db=six&db=six".into(),
            400,
            "bad_input",
        ),
        ("/api/stats/9-9".into(), 400, "bad_input"),
        // Counts whose sum is over 255: no sector, not a missing one.
        ("/api/stats/4+255-3".into(), 400, "bad_input"),
        // Men in hand that no game leaves: no sector to build.
        (
            format!("/api/probe?db=six&position={out_of_step}"),
            400,
            "bad_input",
        ),
        // A side with two men: the game is over, in no sector.
        (
            format!("/api/stats?db=std&position={two_men}"),
            400,
            "bad_input",
        ),
        (format!("/api/probe?position={long}"), 414, "bad_input"),
        (
            "/api/probe?db=std&position=start".into(),
            404,
            "missing_data",
        ),
        (
            "/api/probe?db=elsewhere&position=start".into(),
            404,
            "missing_data",
        ),
        ("/api/stats/4-4?db=std".into(), 404, "missing_data"),
        ("/no/such/page".into(), 404, "not_found"),
        (
            format!("/api/probe?db={damaged_name}&position={three_three}"),
            500,
            "damaged_data",
        ),
    ];
    for (path, status, kind) in cases {
        let (got, body) = server.get(&path);
        assert_eq!(
            (got, body["kind"].as_str()),
            (status, Some(kind)),
            "{path}: {body}"
        );
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()));
        // Folders are named as requests name them, never by their paths.
        let text = body.to_string();
        for served in [dir, damaged.path()] {
            let path = served.display().to_string();
            assert!(!text.contains(&path), "{path}: {text}");
        }
    }
    // A request with a body is refused before it is read; another method
    // is refused too, both in JSON.
    let (status, body) = http_request(
        &server.addr,
        "POST /api/probe",
        "Content-Length: 100000000\r\n",
    );
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("\"kind\":\"bad_input\""), "{body}");
    let (status, body) = http_request(&server.addr, "DELETE /api/probe", "");
    assert_eq!(status, 405, "{body}");
    assert!(body.contains("\"kind\":\"bad_input\""), "{body}");
    // A missing sector says what builds it.
    let (_, body) = server.get("/api/probe?db=std&position=start");
    let hint = body["hint"].as_str().unwrap();
    assert!(
        hint.contains("morris solve") && hint.contains("0+9-0+9") && hint.contains("'std'"),
        "{hint}"
    );
    // The server still answers.
    assert_eq!(server.get("/api/probe?position=start").0, 200);
}

/// Requests at once from as many threads: their statuses.
fn burst(addr: &str, requests: usize) -> Vec<u16> {
    let start = Arc::new(Barrier::new(requests));
    let threads: Vec<_> = (0..requests)
        .map(|i| {
            let (addr, start) = (addr.to_string(), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                let position = if i % 2 == 0 {
                    "start"
                } else {
                    "W../.../..../.../... b 5 6"
                };
                http_get(&addr, &format!("/api/probe?position={}", query(position))).0
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn a_burst_beyond_the_places_is_refused_and_the_server_goes_on() {
    let dir = folders();
    // Two threads and two waiting: four places, each probe held 400 ms.
    let server = Server::start(
        &[&dir.join("six")],
        &["--threads", "2", "--queue", "2", "--slow-probes-ms", "400"],
    );
    let within = burst(&server.addr, 4);
    assert!(within.iter().all(|&s| s == 200), "{within:?}");
    let beyond = burst(&server.addr, 16);
    let ok = beyond.iter().filter(|&&s| s == 200).count();
    let refused = beyond.iter().filter(|&&s| s == 503).count();
    assert_eq!(ok + refused, 16, "{beyond:?}");
    assert!(ok >= 4 && refused >= 8, "{beyond:?}");
    let (status, body) = server.get("/api/probe?position=start");
    assert_eq!(status, 200, "{body}");
}

/// Reads until the server closes `stream`; fails if `limit` passes first.
fn closed_within(stream: &mut TcpStream, limit: Duration) {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut unread = Vec::new();
    if let Err(e) = stream.read_to_end(&mut unread) {
        // A reset is a close too; only a read that timed out is not.
        assert!(
            !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "the server kept the connection open past {limit:?}"
        );
    }
}

/// `GET /api/meta` on a new connection, kept alive: the first bytes of the
/// answer (read within 20 s), and the connection.
fn meta_on_new_connection(addr: &str) -> ([u8; 12], TcpStream) {
    let mut asking = TcpStream::connect(addr).unwrap();
    asking
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(asking, "GET /api/meta HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut head = [0u8; 12];
    asking.read_exact(&mut head).unwrap();
    (head, asking)
}

#[test]
fn clients_that_send_no_request_give_their_places_back() {
    let dir = folders();
    let server = Server::start(
        &[&dir.join("six")],
        &["--max-connections", "2", "--idle-timeout", "1"],
    );
    // Every place taken: one client silent, one trickling a request head.
    let opened = Instant::now();
    let mut silent = TcpStream::connect(&server.addr).unwrap();
    let mut trickling = TcpStream::connect(&server.addr).unwrap();
    trickling.write_all(b"GET /api/meta HT").unwrap();
    closed_within(&mut silent, Duration::from_secs(20));
    let waited = opened.elapsed();
    assert!(
        waited >= Duration::from_millis(500),
        "closed after {waited:?}"
    );
    closed_within(&mut trickling, Duration::from_secs(20));
    // Their places are free again.
    let (head, mut asking) = meta_on_new_connection(&server.addr);
    assert_eq!(&head, b"HTTP/1.1 200");
    // Kept alive after its answer, an idle connection is closed too.
    closed_within(&mut asking, Duration::from_secs(20));
}

#[test]
fn a_client_that_reads_no_answers_gives_its_place_back() {
    let dir = folders();
    let server = Server::start(
        &[&dir.join("six")],
        &["--max-connections", "1", "--idle-timeout", "1"],
    );
    // The one place: a client that asks and asks and never reads, until
    // its answers fill the buffers between them and the server waits.
    let mut greedy = TcpStream::connect(&server.addr).unwrap();
    greedy
        .set_write_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let request = format!("GET /api/meta HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr);
    let asking = std::thread::spawn(move || {
        for _ in 0..400_000 {
            if greedy.write_all(request.as_bytes()).is_err() {
                break;
            }
        }
        greedy
    });
    std::thread::sleep(Duration::from_millis(500));
    // Accepted only once the greedy client is closed.
    let (head, _) = meta_on_new_connection(&server.addr);
    assert_eq!(&head, b"HTTP/1.1 200");
    drop(asking.join().unwrap());
}

#[test]
fn a_stopped_server_answers_what_it_was_asked_and_takes_no_more() {
    let dir = folders();
    let mut server = Server::start(&[&dir.join("six")], &["--slow-probes-ms", "6000"]);
    let addr = server.addr.clone();
    let asked = std::thread::spawn(move || http_get(&addr, "/api/probe?position=start"));
    // Long enough for the probe to be read and under way.
    std::thread::sleep(Duration::from_millis(1000));
    let term = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    // The listener is closed at once (within a few seconds on a loaded
    // machine, and before the probe under way ends); that probe is answered.
    let deadline = Instant::now() + Duration::from_secs(3);
    while TcpStream::connect(&server.addr).is_ok() {
        assert!(
            Instant::now() < deadline,
            "new connections were still taken 3 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (status, body) = asked.join().unwrap();
    assert_eq!(status, 200, "{body}");
    let exit = server.child.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
}
