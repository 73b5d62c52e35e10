//! Position strings of docs/RULES.md (`WBW/.../.../W...../.../.../BB. w 0 0`) and
//! the FEN of the Sanmill app, read strictly and written back.

use super::bitboard::Bitboard;
use super::board::Board;
use super::check::PositionError;
use super::position::{Color, Position};
use super::variant::Variant;

/// What is wrong with a position string, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionParseError {
    #[error("empty position string; expected e.g. '{example}'")]
    Empty { example: String },
    #[error(
        "a position has 4 fields (board, side to move, White's men in hand, Black's men in hand), found {found} (a fifth, the plies since the last mill, is read only under the move-count rule)"
    )]
    FieldCount { found: usize },
    #[error(
        "under the move-count rule a position has 4 or 5 fields (board, side to move, White's men in hand, Black's men in hand, and, if not 0, the plies since the last mill), found {found}"
    )]
    FieldCountWithCounter { found: usize },
    #[error(
        "the fifth field, the plies since the last mill under the move-count rule, must be a number from 0 to 255, found '{found}'"
    )]
    Counter { found: String },
    #[error("the board has {found} ranks separated by '/', the {variant} board has {expected}")]
    RankCount {
        found: usize,
        expected: usize,
        variant: String,
    },
    #[error("rank {rank} reads '{text}' ({found} points), it must have {expected} points")]
    RankLength {
        rank: usize,
        text: String,
        found: usize,
        expected: usize,
    },
    #[error("unknown character '{ch}' at {point} (rank {rank}); use W, B or .")]
    UnknownCharacter {
        ch: char,
        point: String,
        rank: usize,
    },
    #[error("the side to move must be 'w' or 'b', found '{found}'")]
    SideToMove { found: String },
    #[error("{color}'s men in hand must be a number from 0 to {men}, found '{found}'")]
    Hand {
        color: &'static str,
        found: String,
        men: u8,
    },
    /// Read, but not a position of play (the message includes why, so the
    /// check's error is not also its source).
    #[error("not a position of play: {0}")]
    Invalid(PositionError),
    #[error("Sanmill FEN: {0}")]
    Fen(String),
}

impl Position {
    /// The position string of docs/RULES.md.
    pub fn notation(&self, board: &Board) -> String {
        let ranks: Vec<String> = board
            .ranks()
            .iter()
            .map(|rank| {
                rank.iter()
                    .map(|&p| {
                        if self.men[0].contains(p) {
                            'W'
                        } else if self.men[1].contains(p) {
                            'B'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect();
        let side = match self.to_move {
            Color::White => 'w',
            Color::Black => 'b',
        };
        format!(
            "{} {} {} {}",
            ranks.join("/"),
            side,
            self.hand[0],
            self.hand[1]
        )
    }

    /// The board drawn as text, with the side to move and men in hand below.
    pub fn picture(&self, board: &Board) -> String {
        let mut s = board.draw(|p| {
            if self.men[0].contains(p) {
                'W'
            } else if self.men[1].contains(p) {
                'B'
            } else {
                'o'
            }
        });
        s.push_str(&format!(
            "{} to move; in hand: White {}, Black {}\n",
            self.to_move.name(),
            self.hand[0],
            self.hand[1]
        ));
        s
    }
}

/// The counter a Sanmill FEN carries: its `rule50` field, the next to last
/// of the numbers after the men on board and in hand (the last is the move
/// number; capture fields of newer versions, which hold a ':', come after).
/// None when the FEN stops at the men.
fn sanmill_fen_counter(fields: &[&str]) -> Result<Option<u8>, PositionParseError> {
    let numbers: Vec<&str> = fields
        .iter()
        .skip(8)
        .take_while(|f| !f.contains(':'))
        .copied()
        .collect();
    if numbers.len() < 2 {
        return Ok(None);
    }
    let rule50 = numbers[numbers.len() - 2];
    rule50.parse::<u8>().map(Some).map_err(|_| {
        PositionParseError::Fen(format!(
            "the rule50 field (plies since the last mill) must be a number from 0 to 255, found '{rule50}'"
        ))
    })
}

impl Variant {
    /// Reads a position string of docs/RULES.md or a Sanmill FEN (recognised by its
    /// `*`, `O` and `@` board characters).
    ///
    /// # Errors
    /// Any deviation from the notation, with what is wrong and where.
    pub fn parse_position(&self, text: &str) -> Result<Position, PositionParseError> {
        let text = text.trim();
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.is_empty() {
            return Err(PositionParseError::Empty {
                example: Position::start(self).notation(self.board),
            });
        }
        if fields[0].contains(['*', 'O', '@']) {
            return self.parse_sanmill_fen(&fields);
        }
        if fields.len() != 4 {
            return Err(PositionParseError::FieldCount {
                found: fields.len(),
            });
        }
        let board = self.board;
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != board.ranks().len() {
            return Err(PositionParseError::RankCount {
                found: ranks.len(),
                expected: board.ranks().len(),
                variant: self.name.to_string(),
            });
        }
        let mut men = [Bitboard::EMPTY; 2];
        for (text, points) in ranks.iter().zip(board.ranks()) {
            let rank = board.coordinates(points[0]).1;
            let found = text.chars().count();
            if found != points.len() {
                return Err(PositionParseError::RankLength {
                    rank,
                    text: text.to_string(),
                    found,
                    expected: points.len(),
                });
            }
            for (ch, &p) in text.chars().zip(points) {
                match ch {
                    'W' => men[0] = men[0].with(p),
                    'B' => men[1] = men[1].with(p),
                    '.' => {}
                    _ => {
                        return Err(PositionParseError::UnknownCharacter {
                            ch,
                            point: board.name(p).to_string(),
                            rank,
                        });
                    }
                }
            }
        }
        let to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(PositionParseError::SideToMove {
                    found: other.to_string(),
                });
            }
        };
        let hand = |color: Color, text: &str| {
            text.parse::<u8>()
                .ok()
                .filter(|&n| n <= self.men)
                .ok_or_else(|| PositionParseError::Hand {
                    color: color.name(),
                    found: text.to_string(),
                    men: self.men,
                })
        };
        let hand = [
            hand(Color::White, fields[2])?,
            hand(Color::Black, fields[3])?,
        ];
        self.checked(Position { men, hand, to_move })
    }

    /// [`Variant::parse_position`] for play under the move-count rule: a
    /// position string may end with a fifth field, the counter (plies since
    /// the last mill); a Sanmill FEN gives it in its `rule50` field.
    ///
    /// # Errors
    /// As [`Variant::parse_position`], or a counter that is not a number.
    pub fn parse_position_with_counter(
        &self,
        text: &str,
    ) -> Result<(Position, Option<u8>), PositionParseError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() == 5 && !fields[0].contains(['*', 'O', '@']) {
            let counter = fields[4]
                .parse::<u8>()
                .map_err(|_| PositionParseError::Counter {
                    found: fields[4].to_string(),
                })?;
            return Ok((self.parse_position(&fields[..4].join(" "))?, Some(counter)));
        }
        let sanmill = fields.first().is_some_and(|f| f.contains(['*', 'O', '@']));
        if !sanmill && fields.len() > 5 {
            return Err(PositionParseError::FieldCountWithCounter {
                found: fields.len(),
            });
        }
        let pos = self.parse_position(text)?;
        if sanmill {
            return Ok((pos, sanmill_fen_counter(&fields)?));
        }
        Ok((pos, None))
    }

    /// Rejects what is not a position of play (see [`Variant::check_position`]).
    fn checked(&self, pos: Position) -> Result<Position, PositionParseError> {
        self.check_position(&pos)
            .map_err(PositionParseError::Invalid)?;
        Ok(pos)
    }

    /// The 24 points in Sanmill's order: inner, middle and outer ring, each
    /// from 12 o'clock clockwise.
    fn sanmill_points(&self) -> Option<Vec<u8>> {
        const ORDER: [&str; 24] = [
            "d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5", //
            "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6", //
            "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7",
        ];
        if self.board.len() != 24 {
            return None;
        }
        ORDER.iter().map(|name| self.board.point(name)).collect()
    }

    fn parse_sanmill_fen(&self, fields: &[&str]) -> Result<Position, PositionParseError> {
        let fen = |msg: String| PositionParseError::Fen(msg);
        let order = self.sanmill_points().ok_or_else(|| {
            fen(format!(
                "the {} board is not Sanmill's 24-point board",
                self.name
            ))
        })?;
        if fields.len() < 7 {
            return Err(fen(format!(
                "expected at least 7 fields (board, side, phase, action, then men on board and in hand), found {}",
                fields.len()
            )));
        }
        let rings: Vec<&str> = fields[0].split('/').collect();
        if rings.len() != 3 || rings.iter().any(|r| r.chars().count() != 8) {
            return Err(fen(format!(
                "the board field '{}' must be three rings of 8 points separated by '/'",
                fields[0]
            )));
        }
        let mut men = [Bitboard::EMPTY; 2];
        for (i, ch) in rings.concat().chars().enumerate() {
            let p = order[i];
            match ch {
                'O' => men[0] = men[0].with(p),
                '@' => men[1] = men[1].with(p),
                '*' => {}
                _ => {
                    return Err(fen(format!(
                        "unknown character '{ch}' at {}: use O (White), @ (Black) or * (empty)",
                        self.board.name(p)
                    )));
                }
            }
        }
        let to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(fen(format!(
                    "side to move must be 'w' or 'b', found '{other}'"
                )));
            }
        };
        if fields[3] == "r" {
            return Err(fen(
                "a position with a removal pending (action 'r') is not a position of this notation: give the position before the mill was closed".into(),
            ));
        }
        if fields.len() < 8 {
            return Err(fen(format!(
                "expected men on board and in hand for both sides, found {} fields",
                fields.len()
            )));
        }
        let number = |i: usize, what: &str| {
            fields[i]
                .parse::<u8>()
                .map_err(|_| fen(format!("{what} must be a number, found '{}'", fields[i])))
        };
        let counts = [
            number(4, "White's men on board")?,
            number(5, "White's men in hand")?,
            number(6, "Black's men on board")?,
            number(7, "Black's men in hand")?,
        ];
        for (color, on_board) in [(Color::White, counts[0]), (Color::Black, counts[2])] {
            let seen = men[color as usize].count();
            if seen != on_board as u32 {
                return Err(fen(format!(
                    "{} has {seen} men on the board field but the count field says {on_board}",
                    color.name()
                )));
            }
        }
        self.checked(Position {
            men,
            hand: [counts[1], counts[3]],
            to_move,
        })
    }

    /// The position as a Sanmill FEN, for 24-point boards.
    pub fn sanmill_fen(&self, pos: &Position) -> Option<String> {
        let order = self.sanmill_points()?;
        let rings: Vec<String> = order
            .chunks(8)
            .map(|ring| {
                ring.iter()
                    .map(|&p| {
                        if pos.men[0].contains(p) {
                            'O'
                        } else if pos.men[1].contains(p) {
                            '@'
                        } else {
                            '*'
                        }
                    })
                    .collect()
            })
            .collect();
        let phase = if pos.hand == [0, 0] { 'm' } else { 'p' };
        let action = if pos.us_hand() > 0 { 'p' } else { 's' };
        Some(format!(
            "{} {} {phase} {action} {} {} {} {} 0 0 -1 -1 -1 -1 0 0 1",
            rings.join("/"),
            if pos.to_move == Color::White {
                'w'
            } else {
                'b'
            },
            pos.men[0].count(),
            pos.hand[0],
            pos.men[1].count(),
            pos.hand[1]
        ))
    }
}
