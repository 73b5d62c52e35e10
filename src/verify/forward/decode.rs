//! A sector packed as losses decoded to full values by the forward walk:
//! the marks of the sector and its successors read as bytes, a one-ply
//! search per position not lost.

use rayon::prelude::*;

use super::{Blocks, CHECKED_SECTOR, Child, Forward, GROUPS_PER_ITEM};
use crate::db::{ESCAPE_BYTE, Encoding, LossMark, NOT_LOST, ProbeError, SectorFile, Value};
use crate::index::{SectorKey, binomial, for_each_subset};
use crate::rules::{Outcome, Position};

/// A sector's values as a raw sector file holds them.
pub struct DecodedSector {
    /// One value byte per position.
    pub bytes: Vec<u8>,
    /// `(index, plies)` of the distances too long for a byte, in order.
    pub overflow: Vec<(u64, u32)>,
}

impl Forward<'_> {
    /// The values of a sector packed as losses (the default packing),
    /// decoded as a probe finds them: a position marked lost keeps its
    /// loss; any other wins one ply after its fastest lost child, or is
    /// drawn. Returns one raw value byte per position and the overflow of
    /// distances too long for a byte, for a raw sector file
    /// ([`crate::verify::decoded`] checks them). Of loss bits (a
    /// win/draw/loss-only folder) every loss is one in 0 plies and every
    /// win one in 1: the values, in a raw file's bytes.
    ///
    /// # Errors
    /// A damaged file, or loss bits predicted from the position (which the
    /// walk does not build for a child).
    pub fn decode_losses(&self) -> Result<DecodedSector, ProbeError> {
        use std::sync::atomic::{AtomicU8, Ordering};
        let board = self.variant.board;
        let s = self.sector;
        let classes = self.index.representative_classes();
        let groups = binomial(board.len(), s.them_board as usize);
        let bytes: Vec<AtomicU8> = (0..self.index.size()).map(|_| AtomicU8::new(0)).collect();
        // Each losses file's marks decoded whole once, then read as bytes:
        // a packed block looked up per child would cost most of the time.
        // Loss bits (not predicted) read as marks of losses in 0.
        let whole = |file: &SectorFile, key: SectorKey| -> Result<Option<Vec<u8>>, ProbeError> {
            let bits = match file.header.encoding {
                Encoding::PackedLosses => false,
                Encoding::PackedLossBits => true,
                _ => return Ok(None),
            };
            let mut marks = Vec::with_capacity(file.header.positions() as usize);
            let mut no_bit = None;
            file.for_each_block(|block| {
                if bits {
                    if let Some(at) = block.iter().position(|&b| b > 1) {
                        no_bit.get_or_insert(marks.len() + at);
                    }
                    marks.extend(block.iter().map(|&b| if b == 1 { 0 } else { NOT_LOST }));
                } else {
                    marks.extend_from_slice(block);
                }
            })
            .map_err(|source| self.tablebase.damaged(key, None, source))?;
            // A code that is no bit, as a probe of it says.
            if let Some(at) = no_bit {
                let source = crate::db::FileError::corrupted(
                    file.path(),
                    format!("index {at} holds a code that marks no loss"),
                );
                return Err(self.tablebase.damaged(key, None, source));
            }
            Ok(Some(marks))
        };
        let mut marks = vec![whole(&self.file, self.sector)?];
        for (key, _, file) in &self.children {
            marks.push(whole(file, *key)?);
        }
        let overflow = (0..groups.div_ceil(GROUPS_PER_ITEM))
            .into_par_iter()
            .map(|item| {
                let mut blocks = Blocks::new(&self.children);
                let mut overflow = Vec::new();
                let mut result = Ok(());
                let ranks = item * GROUPS_PER_ITEM..(item + 1) * GROUPS_PER_ITEM;
                for_each_subset(board.len(), s.them_board as usize, ranks, |them| {
                    blocks.clear(self.variant.removable(them));
                    classes.for_each_disjoint(them, |class| {
                        if result.is_err() || !self.index.is_stored_image(class, them) {
                            return;
                        }
                        let index = self.index.index_in(class, them);
                        let pos = Position::from_sides(class.us, s.us_hand, them, s.them_hand);
                        result = self.decoded(index, &pos, &marks, &mut blocks).map(|value| {
                            let byte = value.to_byte();
                            if byte == ESCAPE_BYTE {
                                overflow.push((index, u32::from(value.plies().unwrap_or(0))));
                            }
                            bytes[index as usize].store(byte, Ordering::Relaxed);
                        });
                    });
                });
                result.map(|()| overflow)
            })
            .try_reduce(Vec::new, |mut a, b| {
                a.extend(b);
                Ok(a)
            })?;
        let mut overflow = overflow;
        overflow.sort_unstable();
        Ok(DecodedSector {
            bytes: bytes.into_iter().map(AtomicU8::into_inner).collect(),
            overflow,
        })
    }

    /// [`Forward::decode_losses`] of one position.
    fn decoded(
        &self,
        index: u64,
        pos: &Position,
        marks: &[Option<Vec<u8>>],
        blocks: &mut Blocks,
    ) -> Result<Value, ProbeError> {
        // A file without plies cannot be decoded to a raw one but in a
        // folder without them, its losses all in 0 plies.
        let no_plies = || ProbeError::WdlOnly {
            dir: self.tablebase.dir().to_path_buf(),
        };
        let wdl_only = self.tablebase.is_wdl_only();
        // Whether a stored position is lost, and in how many plies.
        let mark = |entry: usize, index: u64| -> Result<Option<u16>, ProbeError> {
            // `marks[0]` is the sector's own, `marks[1 + i]` its child i's.
            let whole = &marks[if entry == CHECKED_SECTOR {
                0
            } else {
                entry + 1
            }];
            match whole.as_ref().map(|m| m[index as usize]) {
                Some(NOT_LOST) => return Ok(None),
                Some(n) if n != ESCAPE_BYTE && n % 2 == 0 => return Ok(Some(n.into())),
                _ => {} // an escaped or bad byte, or another encoding: the file says
            }
            let (file, key) = self.file_of(entry);
            // A predicted file would need the child's position, which the
            // walk does not build; a file without plies only in a folder
            // without them.
            if file.header.encoding.predicted() || file.header.encoding.wdl_only() != wdl_only {
                return Err(no_plies());
            }
            match file.loss_mark(index, pos, self.variant) {
                Ok(LossMark::Lost(Some(n))) => Ok(Some(n)),
                Ok(LossMark::Lost(None)) if wdl_only => Ok(Some(0)),
                Ok(LossMark::Lost(None)) => Err(no_plies()),
                Ok(LossMark::NotLost) => Ok(None),
                Err(source) => Err(self.tablebase.damaged(key, None, source)),
            }
        };
        if let Some(n) = mark(CHECKED_SECTOR, index)? {
            return Ok(Value::Loss(n));
        }
        if self.variant.static_outcome(pos) == Some(Outcome::Drawn) {
            return Ok(Value::Draw);
        }
        // Not lost: the fastest win through a lost child, else a draw.
        let mut fastest: Option<u16> = None;
        let mut error = None;
        self.for_each_child(pos, blocks, |child, _| {
            let lost = match child {
                Child::Lost => Ok(Some(0)),
                Child::At(at) => mark(at.entry, at.index),
                Child::Other(child) if wdl_only => self
                    .tablebase
                    .wdl(&child)
                    .map(|v| (v == crate::db::Wdl::Loss).then_some(0)),
                Child::Other(child) => self.tablebase.value(&child).map(|v| match v {
                    Value::Loss(n) => Some(n),
                    _ => None,
                }),
            };
            match lost {
                Ok(Some(n)) => fastest = Some(fastest.map_or(n, |f| f.min(n))),
                Ok(None) => {}
                Err(e) => error = Some(e),
            }
            error.is_none() && fastest != Some(0)
        });
        match (error, fastest) {
            (Some(e), _) => Err(e),
            (None, Some(n)) => Ok(Value::Win(n + 1)),
            (None, None) => Ok(Value::Draw),
        }
    }
}
