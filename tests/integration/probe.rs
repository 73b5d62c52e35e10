use morris::db::LineEnd;
use morris::db::{ProbeError, Ranking, Stored, Tablebase, Value};
use morris::index::SectorIndex;
use morris::solve::{Selection, SolveOptions, solve};
use morris::{Outcome, Position, Variant};

use crate::naive::NaiveValue;

fn six() -> &'static Variant {
    Variant::by_name("six").unwrap()
}

fn six_database() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    solve_six(dir.path());
    dir
}

/// Solves the whole of `six` into `dir` (resuming what is there).
fn solve_six(dir: &std::path::Path) {
    solve(
        &SolveOptions::new(dir.to_path_buf(), six(), Selection::All),
        &|_| {},
    )
    .unwrap();
}

fn value((kind, plies): NaiveValue) -> Value {
    match kind {
        1 => Value::Win(plies),
        -1 => Value::Loss(plies),
        _ => Value::Draw,
    }
}

/// One position in 37 of six's with at most four men a side in all (raw,
/// not up to symmetry): its value and each move's value (for the mover)
/// equal the naive solver's, moves best first, and each move's replies and
/// errors the naive count; the default packing (losses, the rest found by
/// searches that read only what they need) gives the same answers and
/// lines. One in 10 in `scripts/oracle.sh`.
#[test]
fn probe_answers_equal_the_naive_solver() {
    probe_answers_equal_the_naive_solver_stepping(37);
}

#[test]
#[ignore]
fn probe_answers_equal_the_naive_solver_more() {
    probe_answers_equal_the_naive_solver_stepping(10);
}

fn probe_answers_equal_the_naive_solver_stepping(step: usize) {
    let dir = six_database();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    let packed_dir = dir.path().join("packed");
    crate::pack::pack_folder(dir.path(), &packed_dir);
    let packed = Tablebase::open_folder(&packed_dir).unwrap();
    let loss_bits_dir = dir.path().join("loss-bits");
    crate::pack::pack_folder_as(dir.path(), &loss_bits_dir, &["--wdl"]);
    let loss_bits = Tablebase::open_folder(&loss_bits_dir).unwrap();
    let small = crate::naive::six_small_sectors();
    let (naive, oracle) = (&small.naive, &small.solution);
    let value_of = |s: &crate::naive::State| {
        if naive.count(s, 1) < 3 {
            Value::Loss(0)
        } else {
            value(oracle.get(s))
        }
    };
    let (mut checked, mut with_errors) = (0, 0);
    for (state, &expected) in oracle.states.iter().zip(&oracle.values).step_by(step) {
        let pos = naive.position(state);
        let answer = tb.answer(&pos, 0).unwrap();
        let notation = pos.notation(six().board);
        assert_eq!(packed.answer(&pos, 0).unwrap(), answer, "{notation}");
        if checked % 4 == 0 {
            let line = |t: &Tablebase| t.line(&pos, 0, 1000).unwrap();
            assert_eq!(line(&packed), line(&tb), "{notation}");
            let first_best = line_by_first_best_moves(&tb, &pos, 1000);
            assert_eq!(line(&packed).moves, first_best, "{notation}");
            check_win_draw_loss_chances(&loss_bits, &tb, &pos);
        }
        let answer_value = answer.value.stored.distance().unwrap();
        assert_eq!(
            answer_value,
            value(expected),
            "{}",
            pos.notation(six().board)
        );
        let mut wanted: Vec<Value> = naive
            .children(state)
            .iter()
            .map(|c| {
                let v = if naive.count(c, 1) < 3 {
                    (-1, 0)
                } else {
                    oracle.get(c)
                };
                value(v).from_parent()
            })
            .collect();
        wanted.sort_by_key(|v| std::cmp::Reverse(v.rank()));
        let moves = answer.moves.unwrap();
        // The chances cost a naive walk two plies deep: one position in four.
        if checked % 4 == 0 {
            with_errors += crate::chances::check_chances(naive, &value_of, state, &moves);
        }
        let got: Vec<Value> = moves
            .iter()
            .map(|m| m.value.stored.distance().unwrap())
            .collect();
        assert_eq!(got, wanted, "{}", pos.notation(six().board));
        if let Some(best) = moves.first() {
            assert_eq!(best.value.stored, Stored::Distance(answer_value));
        }
        checked += 1;
    }
    // Most sectors of the set are reachable and have files; many moves
    // leave the opponent errors.
    assert!(
        checked >= oracle.states.len() / step && with_errors > 5000 / step,
        "{checked} positions checked, {with_errors} moves with errors"
    );
}

/// The line that taking the first of each position's moves best first
/// (by value alone, generator order among equals) plays, to the end of the
/// game, a repeated position or `limit` moves: what `line` must play,
/// reading less.
fn line_by_first_best_moves(tb: &Tablebase, pos: &Position, limit: usize) -> Vec<morris::Move> {
    let (mut pos, mut seen, mut moves) = (*pos, std::collections::HashSet::new(), Vec::new());
    while six().outcome(&pos).is_none() && seen.insert(pos) && moves.len() < limit {
        let best = tb
            .ranked_moves(&pos, 0, Ranking::Best)
            .unwrap()
            .swap_remove(0);
        moves.push(best.play);
        pos = best.position;
    }
    moves
}

/// Each move's replies and errors from a win/draw/loss-only folder (the
/// loss bits: a position not lost searched) equal a count from the full
/// folder's values without their plies: an error is a reply of a lower
/// win, draw or loss than the best, and no loss is an error for its plies.
fn check_win_draw_loss_chances(wdl_only: &Tablebase, full: &Tablebase, pos: &Position) {
    for m in wdl_only.answer(pos, 0).unwrap().moves.unwrap() {
        let mut replies = Vec::new();
        if six().static_outcome(&m.position).is_none() {
            six().for_each_move(&m.position, |_, grandchild| {
                replies.push(full.wdl(&grandchild).unwrap().from_parent());
            });
        }
        let best = replies.iter().max().copied();
        let errors = replies
            .iter()
            .filter(|&&w| best.is_some_and(|b| w < b))
            .count();
        assert_eq!(
            (m.replies, m.errors),
            (Some(replies.len() as u16), Some(errors as u16)),
            "{} then {}",
            pos.notation(six().board),
            m.notation
        );
    }
}

#[test]
fn lines_of_perfect_play_end_as_their_value_says() {
    let dir = six_database();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    let index = SectorIndex::of(six().board, 4, 4);
    let (mut wins, mut draws) = (0, 0);
    for i in (0..index.size()).step_by(101) {
        let pos = index.position(i, 0, 0);
        let line = tb.line(&pos, 0, 1000).unwrap();
        match tb.value(&pos).unwrap() {
            Value::Draw => {
                assert_eq!(line.end, LineEnd::Repeats);
                draws += 1;
            }
            v => {
                assert_eq!(line.end, LineEnd::GameOver(Outcome::Lost));
                assert_eq!(Some(line.moves.len() as u16), v.plies());
                wins += 1;
            }
        }
    }
    assert!(wins > 0 && draws > 0);
}

/// A side to move below three men, or without a move, has lost: no file is
/// read, so an empty database answers.
#[test]
fn terminal_positions_need_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let variant = Variant::standard();
    let tb = Tablebase::create(dir.path(), variant).unwrap();
    let two_men = variant
        .parse_position("WW./.../.../....../.../.../BBB w 0 0")
        .unwrap();
    assert_eq!(tb.value(&two_men).unwrap(), Value::Loss(0));
    // White's four men are shut in by Black's.
    let index = SectorIndex::of(variant.board, 4, 6);
    let blocked = (0..index.size())
        .map(|i| index.position(i, 0, 0))
        .find(|p| variant.outcome(p) == Some(Outcome::Lost))
        .expect("a blocked position");
    assert_eq!(tb.value(&blocked).unwrap(), Value::Loss(0));
    let answer = tb.answer(&blocked, 0).unwrap();
    assert_eq!(answer.moves, Some(Vec::new()));
    // Others need their sector, and say which.
    let other = (0..index.size())
        .map(|i| index.position(i, 0, 0))
        .find(|p| variant.outcome(p).is_none())
        .expect("a position with moves");
    let err = tb.value(&other).unwrap_err();
    assert!(matches!(err, ProbeError::MissingSector { .. }), "{err}");
}

#[test]
fn one_tablebase_serves_many_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Tablebase>();
    let dir = six_database();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    let index = SectorIndex::of(six().board, 5, 5);
    let positions: Vec<Position> = (0..index.size()).map(|i| index.position(i, 0, 0)).collect();
    let alone: Vec<Value> = positions.iter().map(|p| tb.value(p).unwrap()).collect();
    let together: Vec<Value> = std::thread::scope(|s| {
        let handles: Vec<_> = positions
            .chunks(positions.len() / 4 + 1)
            .map(|chunk| {
                s.spawn(|| {
                    chunk
                        .iter()
                        .map(|p| tb.value(p).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(alone, together);
}

/// Threads that ask for one index at once get one index, built once: the
/// cache has no window between looking and inserting.
#[test]
fn an_index_asked_for_by_many_threads_is_built_once() {
    // Counts no other test asks for (a 40 ms build).
    let board = Variant::by_name("morabaraba").unwrap().board;
    let once = || {
        let start = std::sync::Barrier::new(8);
        let indices: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        SectorIndex::of(board, 7, 6)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let shared = indices
            .windows(2)
            .all(|w| std::sync::Arc::ptr_eq(&w[0], &w[1]));
        let builds = SectorIndex::builds_so_far(board, 7, 6);
        SectorIndex::release_cached();
        (shared, builds)
    };
    // A solve in another test of this process may let the cache go in the
    // middle (it does between units, and the count starts again): a few
    // tries, one of them clean, none built twice.
    let tries: Vec<(bool, usize)> = (0..10).map(|_| once()).collect();
    assert!(tries.contains(&(true, 1)), "{tries:?}");
    assert!(tries.iter().all(|&(_, builds)| builds <= 1), "{tries:?}");
}

/// Each thread probes through a slot of its own, plain `std::thread`s and
/// a rayon pool's alike, with the same values as one thread.
#[test]
fn each_thread_probes_through_its_own_slot() {
    let dir = six_database();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    let index = SectorIndex::of(six().board, 4, 4);
    let positions: Vec<Position> = (0..index.size())
        .step_by(101)
        .map(|i| index.position(i, 0, 0))
        .collect();
    let alone: Vec<Value> = positions.iter().map(|p| tb.value(p).unwrap()).collect();
    // Probes on one thread, then which slot it used and what it holds.
    let probe = || {
        let values: Vec<Value> = positions.iter().map(|p| tb.value(p).unwrap()).collect();
        let slot = morris::db::internals::thread_slot();
        (values, slot, tb.sectors_in_slot(slot))
    };
    let plain: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(probe)).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let pooled: Vec<_> = pool.broadcast(|_| probe());
    for threads in [plain, pooled] {
        let slots: std::collections::HashSet<usize> = threads.iter().map(|t| t.1).collect();
        assert_eq!(slots.len(), 4, "threads share slots: {slots:?}");
        for (values, slot, held) in threads {
            assert_eq!(values, alone);
            assert!(held > 0, "slot {slot} holds no sector");
        }
    }
}

/// A byte flipped anywhere in a file is reported as corruption when the
/// probe reads the damaged part, and never gives a wrong value or a panic.
#[test]
fn no_flipped_byte_gives_a_wrong_value() {
    let dir = six_database();
    let file = dir.path().join("4-4.mdb");
    let original = std::fs::read(&file).unwrap();
    let index = SectorIndex::of(six().board, 4, 4);
    let positions: Vec<Position> = (0..index.size())
        .step_by(997)
        .map(|i| index.position(i, 0, 0))
        .collect();
    let expected: Vec<Value> = {
        let tb = Tablebase::open(dir.path(), six()).unwrap();
        positions.iter().map(|p| tb.value(p).unwrap()).collect()
    };
    for offset in (0..original.len()).step_by(original.len() / 300) {
        let mut damaged = original.clone();
        damaged[offset] ^= 0x41;
        std::fs::write(&file, &damaged).unwrap();
        let tb = Tablebase::open(dir.path(), six()).unwrap();
        for (p, v) in positions.iter().zip(&expected) {
            match tb.value(p) {
                Ok(got) => assert_eq!(got, *v, "byte {offset} flipped"),
                Err(e) => assert!(matches!(e, ProbeError::Damaged { .. }), "{e}"),
            }
        }
        if offset < 128 + index.size() as usize {
            assert!(
                positions.iter().any(|p| tb.value(p).is_err()),
                "flip at {offset} unnoticed"
            );
        }
    }
    std::fs::write(&file, &original).unwrap();
    // Truncated, emptied or replaced by garbage: errors.
    for bytes in [&original[..original.len() / 2], &[][..], &[7u8; 300][..]] {
        std::fs::write(&file, bytes).unwrap();
        let tb = Tablebase::open(dir.path(), six()).unwrap();
        assert!(matches!(
            tb.value(&positions[0]),
            Err(ProbeError::Damaged { .. })
        ));
    }
}

/// The solver stores each sector's index beside its files; a damaged stored
/// index is never read as a wrong index. Its blocks are checked as probes
/// read them; a probe that finds one damaged says so (once per file) and
/// answers through an index built in memory, so every answer stays right.
#[test]
fn stored_indices_are_written_and_checked() {
    let dir = six_database();
    let path = dir.path().join(morris::db::index_file_name(4, 4));
    assert!(path.is_file());
    let index = SectorIndex::of(six().board, 4, 4);
    let positions: Vec<_> = (0..index.size()).map(|i| index.position(i, 0, 0)).collect();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    let good: Vec<_> = positions.iter().map(|p| tb.value(p).unwrap()).collect();
    let pos = positions[7];
    let original = std::fs::read(&path).unwrap();
    // The file ends with one checksum per 4 KiB block; the first one's
    // block (the header) is read by every probe.
    let len = original.len();
    let blocks = (1..len)
        .find(|k| (len - 8 * k).div_ceil(4096) == *k)
        .unwrap();
    let first_sum = len - 8 * blocks;
    for offset in [3, 20, 70, len / 2, first_sum + 5] {
        let mut damaged = original.clone();
        damaged[offset] ^= 0x10;
        std::fs::write(&path, &damaged).unwrap();
        let warned = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = warned.clone();
        let tb = Tablebase::open(dir.path(), six())
            .unwrap()
            .with_warnings(move |e| seen.lock().unwrap().push(e.path().to_path_buf()));
        for (p, v) in positions.iter().zip(&good) {
            assert_eq!(tb.value(p).unwrap(), *v, "byte {offset} flipped");
        }
        let warned = warned.lock().unwrap();
        assert!(!warned.is_empty(), "flip at {offset} unnoticed");
        assert!(warned.iter().all(|w| *w == path), "{warned:?}");
    }
    let good = good[7];
    // An index file of an older version is ignored, and the next solve
    // over the folder writes it again.
    let mut old = original.clone();
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&path, &old).unwrap();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    assert_eq!(tb.value(&pos).unwrap(), good);
    assert!(!morris::db::is_current_index(&path));
    solve_six(dir.path());
    assert_eq!(std::fs::read(&path).unwrap(), original);
    // Without it the index is built again, with the same answers.
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        Tablebase::open(dir.path(), six())
            .unwrap()
            .value(&pos)
            .unwrap(),
        good
    );
}

/// Files written with 64 KiB checksum blocks (before blocks became 4 KiB)
/// read the same, and their blocks are checked too.
#[test]
fn files_with_larger_blocks_still_read() {
    let dir = six_database();
    let file = dir.path().join("4-4.mdb");
    let index = SectorIndex::of(six().board, 4, 4);
    let positions: Vec<Position> = (0..index.size()).map(|i| index.position(i, 0, 0)).collect();
    let expected: Vec<Value> = {
        let tb = Tablebase::open(dir.path(), six()).unwrap();
        positions.iter().map(|p| tb.value(p).unwrap()).collect()
    };
    let original = morris::db::SectorFile::open(&file, false).unwrap();
    assert_eq!(original.header.block_bits(), 12);
    assert_eq!(original.header.overflow_entries(), 0);
    let values = original.bytes().unwrap().to_vec();
    let header = morris::db::internals::with_block_bits(original.header.clone(), 16);
    drop(original);
    std::fs::remove_file(&file).unwrap();
    morris::db::internals::write_sector(dir.path(), header, |sink| sink(&values), &[]).unwrap();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    let got: Vec<Value> = positions.iter().map(|p| tb.value(p).unwrap()).collect();
    assert_eq!(got, expected);
    let mut damaged = std::fs::read(&file).unwrap();
    damaged[128 + values.len() / 2] ^= 1;
    std::fs::write(&file, &damaged).unwrap();
    let tb = Tablebase::open(dir.path(), six()).unwrap();
    assert!(
        positions
            .iter()
            .any(|p| matches!(tb.value(p), Err(ProbeError::Damaged { .. })))
    );
}
