use morris::{Bitboard, Color, Move, Position, Variant};
use proptest::prelude::*;

use crate::naive::Naive;

fn v(name: &str) -> &'static Variant {
    Variant::by_name(name).unwrap()
}

fn pos(variant: &Variant, s: &str) -> Position {
    variant.parse_position(s).unwrap()
}

#[test]
fn perft_from_the_start_agrees_with_the_naive_generator() {
    for name in ["standard", "strict-mills", "lasker", "six", "morabaraba"] {
        let variant = v(name);
        let naive = Naive::new(variant);
        let start = Position::start(variant);
        for depth in 1..=5 {
            assert_eq!(
                variant.perft(&start, depth),
                naive.perft(&naive.state(&start), depth),
                "{name} depth {depth}"
            );
        }
    }
    assert_eq!(
        Variant::standard().perft(&Position::start(Variant::standard()), 5),
        5_140_800
    );
}

#[test]
fn perft_of_middle_game_and_flying_positions_agrees() {
    let cases = [
        ("standard", "WBW/.../.../W...../.../.../BB. w 0 0", 3),
        ("standard", "W.W/BB./.W./B.W.B./.../.B./W.. b 2 2", 3),
        ("standard", "WWB/BWB/.W./B..WB./W.B/.W./B.W w 0 0", 4),
        ("standard", "WW./BBB/.../B...../.../.../W.. w 0 0", 3),
        ("strict-mills", "WWW/BBB/.../B..W../.../.../... w 0 0", 3),
        ("no-flying", "WWB/.../.../W...B./.../.B./W.. w 0 0", 4),
        ("lasker", "W.W/BB./.../W...../.../.../B.. w 4 5", 3),
        ("six", "W.W/BB./W..B/.W./B.. w 0 0", 5),
        ("morabaraba", "W.W/BB./.W./B.W.B./.../.B./W.. b 5 5", 3),
    ];
    for (name, s, depth) in cases {
        let variant = v(name);
        let naive = Naive::new(variant);
        let p = pos(variant, s);
        assert_eq!(
            variant.perft(&p, depth),
            naive.perft(&naive.state(&p), depth),
            "{name} {s}"
        );
    }
}

fn move_list(variant: &Variant, p: &Position) -> Vec<String> {
    let mut m: Vec<String> = variant
        .moves(p)
        .iter()
        .map(|(m, _)| m.notation(variant.board))
        .collect();
    m.sort();
    m
}

#[test]
fn removal_takes_men_outside_mills_first_under_standard() {
    // White closes a1-d1-g1 (d1 from d2); Black has a mill a7-d7-g7 and a man on b6.
    let variant = Variant::standard();
    let p = pos(variant, "BBB/B../.../W...../.../.W./W.W w 0 0");
    let closing: Vec<String> = move_list(variant, &p)
        .into_iter()
        .filter(|m| m.starts_with("d2-d1"))
        .collect();
    assert_eq!(closing, vec!["d2-d1xb6"]);
}

#[test]
fn removal_from_mills_when_all_are_in_mills_under_standard_but_not_strict() {
    let p_text = "BBB/.../.../W...../.../.W./W.W w 0 0";
    let standard = move_list(Variant::standard(), &pos(Variant::standard(), p_text));
    let closing: Vec<&String> = standard.iter().filter(|m| m.starts_with("d2-d1")).collect();
    assert_eq!(closing, vec!["d2-d1xa7", "d2-d1xd7", "d2-d1xg7"]);
    let strict = move_list(v("strict-mills"), &pos(v("strict-mills"), p_text));
    let closing: Vec<&String> = strict.iter().filter(|m| m.starts_with("d2-d1")).collect();
    assert_eq!(
        closing,
        vec!["d2-d1"],
        "nothing is removed when every man is in a mill"
    );
    // Under strict-mills a man in a mill is never taken even when others are free.
    let strict = move_list(
        v("strict-mills"),
        &pos(v("strict-mills"), "BBB/B../.../W...../.../.W./W.W w 0 0"),
    );
    let closing: Vec<&String> = strict.iter().filter(|m| m.starts_with("d2-d1")).collect();
    assert_eq!(closing, vec!["d2-d1xb6"]);
}

#[test]
fn a_mill_against_an_empty_board_removes_nothing() {
    let variant = Variant::standard();
    let p = pos(variant, ".../.../.../....../.../.../WW. w 1 9");
    assert!(move_list(variant, &p).contains(&"g1".to_string()));
    assert!(!move_list(variant, &p).iter().any(|m| m.contains('x')));
}

#[test]
fn flying_at_exactly_three_men_and_not_at_four() {
    let variant = Variant::standard();
    let three = pos(variant, "W../.../.../BBB.../.../.../WW. w 0 0");
    let three = Position {
        men: [three.men[0], Bitboard::from_point(10).with(11).with(12)],
        ..three
    };
    // 3 white men, 3 black men: each white man may go to any of 18 empty points.
    let moves = variant.moves(&three);
    assert_eq!(
        moves.iter().filter(|(m, _)| m.remove.is_none()).count() + count_closing(&moves),
        3 * 18
    );
    let four = pos(variant, "W../.W./.../...BBB/.../.../WW. w 0 0");
    let four = Position {
        men: [four.men[0], four.men[1].with(12)],
        ..four
    };
    assert!(!variant.moves(&four).is_empty());
    for (m, _) in variant.moves(&four) {
        let from = m.from.unwrap();
        assert!(
            variant.board.links(from).contains(m.to),
            "four men only slide"
        );
    }
    // no-flying: three men slide too.
    for (m, _) in v("no-flying").moves(&three) {
        assert!(variant.board.links(m.from.unwrap()).contains(m.to));
    }
}

fn count_closing(moves: &[(Move, Position)]) -> usize {
    let mut targets: Vec<(Option<u8>, u8)> = moves
        .iter()
        .filter(|(m, _)| m.remove.is_some())
        .map(|(m, _)| (m.from, m.to))
        .collect();
    targets.dedup();
    targets.len()
}

#[test]
fn the_end_of_the_game() {
    let variant = Variant::standard();
    // Two men: lost.
    let p = pos(variant, "WW./.../.../....../.../.../BBB w 0 0");
    assert_eq!(variant.outcome(&p), Some(morris::Outcome::Lost));
    assert!(variant.moves(&p).is_empty());
    // Blocked: white a7 d7 g7 a4 boxed in by black.
    let p = pos(variant, "WWW/BBB/.../WB...B/.../.../B.. w 0 0");
    assert_eq!(variant.outcome(&p), Some(morris::Outcome::Lost));
}

#[test]
fn lasker_may_place_or_move_and_morabaraba_full_board_is_drawn() {
    let lasker = v("lasker");
    let p = pos(lasker, "W../.../.../....../.../.../... w 9 10");
    let moves = lasker.moves(&p);
    assert!(moves.iter().any(|(m, _)| m.from.is_none()));
    assert!(moves.iter().any(|(m, _)| m.from.is_some()));
    let mora = v("morabaraba");
    let full = Position {
        men: [Bitboard(0x00ff_f000), Bitboard(0x0000_0fff)],
        hand: [0, 0],
        to_move: Color::White,
    };
    assert_eq!(mora.outcome(&full), Some(morris::Outcome::Drawn));
}

#[test]
fn the_sixteen_symmetries_of_standard_keep_links_and_mills() {
    let board = Variant::standard().board;
    let syms = board.symmetries();
    assert_eq!(syms.len(), 16);
    assert!(syms[0].is_identity());
    for s in syms {
        for p in 0..24u8 {
            for q in 0..24u8 {
                assert_eq!(
                    board.links(p).contains(q),
                    board.links(s.point(p)).contains(s.point(q))
                );
            }
        }
        for &mill in board.mills() {
            assert!(board.mills().contains(&s.apply(mill)));
        }
    }
    for name in ["six", "morabaraba"] {
        assert_eq!(v(name).board.symmetries().len(), 16, "{name}");
    }
}

#[test]
fn sanmill_fen_is_read() {
    let variant = Variant::standard();
    let start = variant
        .parse_position("********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1")
        .unwrap();
    assert_eq!(start, Position::start(variant));
    let p = variant
        .parse_position("O*******/********/@******* b p p 1 8 1 8 0 0 -1 -1 -1 -1 0 0 1")
        .unwrap();
    assert!(p.men[0].contains(variant.board.point("d5").unwrap()));
    assert!(p.men[1].contains(variant.board.point("d7").unwrap()));
    assert_eq!(p.to_move, Color::Black);
    assert_eq!(
        variant
            .parse_position(&variant.sanmill_fen(&p).unwrap())
            .unwrap(),
        p
    );
    assert!(
        variant
            .parse_position("O*******/********/@******* b p r 1 8 1 8 0 0")
            .is_err()
    );
}

#[test]
fn sanmill_fen_gives_its_rule50_field_as_the_counter() {
    let variant = Variant::standard();
    let counter = |fen: &str| variant.parse_position_with_counter(fen).map(|(_, c)| c);
    let board = "OOO*****/********/@@@***** b m s 3 0 3 0";
    // Today's fields: men to remove, the last mills' squares, the mills formed,
    // rule50, the move number; a capture field after them.
    assert_eq!(
        counter(&format!("{board} 0 0 -1 -1 -1 -1 0 37 60")),
        Ok(Some(37))
    );
    assert_eq!(
        counter(&format!("{board} 0 0 -1 -1 -1 -1 0 12 60 c:w-0-")),
        Ok(Some(12))
    );
    // Older versions: men to remove, rule50, the move number.
    assert_eq!(counter(&format!("{board} 0 0 5 60")), Ok(Some(5)));
    assert_eq!(counter(board), Ok(None));
    let err = counter(&format!("{board} 0 0 -1 -1 -1 -1 0 300 60")).unwrap_err();
    assert!(err.to_string().contains("rule50"), "{err}");
    // Our own FEN says a fresh counter.
    let p = variant.parse_position(board).unwrap();
    assert_eq!(counter(&variant.sanmill_fen(&p).unwrap()), Ok(Some(0)));
}

#[test]
fn each_bad_position_string_gets_its_own_message() {
    let variant = Variant::standard();
    let cases = [
        ("", "empty position"),
        (".../.../... w 9 9", "7"),
        (".../.../.../....../.../.../... w 9", "4 fields"),
        ("..../.../.../....../.../.../... w 9 9", "rank 7"),
        (
            ".X./.../.../....../.../.../... w 9 9",
            "unknown character 'X' at d7",
        ),
        (".../.../.../....../.../.../... x 9 9", "side to move"),
        (
            ".../.../.../....../.../.../... w 10 9",
            "White's men in hand",
        ),
        (
            "WWW/WWW/WWW/W...../.../.../... w 0 9",
            "more than the 9 men",
        ),
        ("***/ w p p", "Sanmill FEN"),
    ];
    for (s, expected) in cases {
        let err = variant.parse_position(s).unwrap_err().to_string();
        assert!(err.contains(expected), "'{s}': {err}");
    }
}

fn arbitrary_position(variant: &'static Variant) -> impl Strategy<Value = Position> {
    let n = variant.board.len();
    let men = variant.men;
    (
        proptest::collection::vec(0u8..3, n),
        0..=men,
        0..=men,
        any::<bool>(),
    )
        .prop_map(move |(cells, wh, bh, black)| {
            let mut p = Position::start(variant);
            let mut counts = [0u8; 2];
            for (i, c) in cells.into_iter().enumerate() {
                if c > 0 && counts[(c - 1) as usize] < men {
                    p.men[(c - 1) as usize] = p.men[(c - 1) as usize].with(i as u8);
                    counts[(c - 1) as usize] += 1;
                }
            }
            p.hand = [wh.min(men - counts[0]), bh.min(men - counts[1])];
            p.to_move = if black { Color::Black } else { Color::White };
            p
        })
}

proptest! {
    #[test]
    fn notation_round_trips(p in arbitrary_position(Variant::standard())) {
        let variant = Variant::standard();
        if let Err(e) = variant.check_position(&p) {
            // Not a position of play (the side not to move below three
            // men): both notations read it, and refuse it the same way.
            let refused = morris::rules::PositionParseError::Invalid(e);
            prop_assert_eq!(variant.parse_position(&p.notation(variant.board)), Err(refused.clone()));
            prop_assert_eq!(variant.parse_position(&variant.sanmill_fen(&p).unwrap()), Err(refused));
            return Ok(());
        }
        prop_assert_eq!(variant.parse_position(&p.notation(variant.board)).unwrap(), p);
        prop_assert_eq!(variant.parse_position(&variant.sanmill_fen(&p).unwrap()).unwrap(), p);
        for (m, _) in variant.moves(&p) {
            prop_assert_eq!(Move::parse(variant.board, &m.notation(variant.board)).unwrap(), m);
        }
    }

    #[test]
    fn unmoves_invert_moves_on_random_positions(p in arbitrary_position(Variant::standard()), lasker in any::<bool>()) {
        let variant = if lasker { v("lasker") } else { Variant::standard() };
        check_unmoves_around(variant, &p);
    }
}

/// Every move of `p` is an unmove of its child, and every unmove of `p` is a move.
fn check_unmoves_around(variant: &Variant, p: &Position) {
    for (m, child) in variant.moves(p) {
        let mut found = false;
        variant.for_each_unmove(&child, |um, before| found |= um == m && before == *p);
        assert!(
            found,
            "{} via {} missing from unmoves",
            p.notation(variant.board),
            m.notation(variant.board)
        );
    }
    variant.for_each_unmove(p, |um, before| {
        assert!(
            variant.moves(&before).contains(&(um, *p)),
            "unmove {} from {} is not a move of {}",
            um.notation(variant.board),
            p.notation(variant.board),
            before.notation(variant.board)
        );
    });
}

/// All positions with these men, both sides to move.
fn all_positions(variant: &'static Variant, wb: u32, wh: u8, bb: u32, bh: u8) -> Vec<Position> {
    let board = (1u32 << variant.board.len()) - 1;
    let mut out = Vec::new();
    for w in subsets_of(board, wb) {
        for b in subsets_of(board & !w, bb) {
            for to_move in [Color::White, Color::Black] {
                out.push(Position {
                    men: [Bitboard(w), Bitboard(b)],
                    hand: [wh, bh],
                    to_move,
                });
            }
        }
    }
    out
}

/// Every subset of `points` with `k` of them: the lowest point is in or out.
fn subsets_of(points: u32, k: u32) -> Vec<u32> {
    if k == 0 {
        return vec![0];
    }
    if points.count_ones() < k {
        return vec![];
    }
    let lowest = points & points.wrapping_neg();
    let rest = points & !lowest;
    let mut with: Vec<u32> = subsets_of(rest, k - 1)
        .into_iter()
        .map(|s| s | lowest)
        .collect();
    with.extend(subsets_of(rest, k));
    with
}

#[test]
fn unmoves_invert_moves_exhaustively_on_small_sectors() {
    let cases: [(&str, u32, u8, u32, u8); 6] = [
        ("six", 3, 0, 3, 0),
        ("six", 3, 0, 2, 1),
        ("six", 2, 2, 2, 1),
        ("standard", 2, 1, 2, 1),
        ("standard", 2, 2, 1, 3),
        ("strict-mills", 3, 1, 2, 2),
    ];
    for (name, wb, wh, bb, bh) in cases {
        let variant = v(name);
        let positions = all_positions(variant, wb, wh, bb, bh);
        let choose = |n: u64, k: u64| (0..k).fold(1, |c, i| c * (n - i) / (i + 1));
        let n = variant.board.len() as u64;
        let expected = 2 * choose(n, wb.into()) * choose(n - u64::from(wb), bb.into());
        assert_eq!(positions.len() as u64, expected, "{name} {wb} {bb}");
        for p in positions {
            check_unmoves_around(variant, &p);
        }
    }
}

#[test]
fn quiet_unslides_are_the_unmoves_that_keep_the_men() {
    let variant = Variant::standard();
    for s in [
        "WBW/.../.../W...../.../.../BB. w 0 0",
        "WW./BB./.W./B...../.../.B./... b 0 0",
    ] {
        let p = pos(variant, s);
        let mut quiet = Vec::new();
        variant.for_each_quiet_unslide(&p, |b| quiet.push(b));
        let mut expected = Vec::new();
        variant.for_each_unmove(&p, |m, b| {
            if m.from.is_some() && m.remove.is_none() {
                expected.push(b)
            }
        });
        quiet.sort();
        expected.sort();
        assert_eq!(quiet, expected, "{s}");
    }
}
