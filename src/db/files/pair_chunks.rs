//! The chunks of a pair-coded block (the grammar and its Huffman codes are
//! the pair coder's, beside this file): the count C of its chunks (u16), the
//! first position within the block of chunks 1 to C - 1 (u16 each), then
//! the chunks' bytes, each [`CHUNK_BYTES`] long but the last. A read finds
//! here the chunk that holds its position, then decodes from its start.

/// Bytes of codes per chunk: a probe decodes at most one chunk's codes.
pub const CHUNK_BYTES: usize = 64;

/// A block's chunks: their count, first positions and bytes.
pub(super) struct Chunks<'a> {
    block: &'a [u8],
    pub(super) count: usize,
    /// Where the chunks' bytes begin.
    pub(super) head: usize,
}

impl<'a> Chunks<'a> {
    pub(super) fn of(block: &'a [u8]) -> Option<Chunks<'a>> {
        let count = u16::from_le_bytes(block.get(..2)?.try_into().ok()?) as usize;
        let head = 2 * count;
        (count >= 1 && head <= block.len()).then_some(Chunks { block, count, head })
    }

    /// The first position of chunk `k` (below `count`).
    pub(super) fn start(&self, k: usize) -> usize {
        if k == 0 {
            return 0;
        }
        u16::from_le_bytes([self.block[2 * k], self.block[2 * k + 1]]) as usize
    }

    /// The last chunk that starts at or before `offset` (below `positions`,
    /// the block's). The starts grow about evenly with the positions, so
    /// the search begins at the chunk `offset`'s share of the block would
    /// be and gallops from there: a random read then touches one or two
    /// cache lines of the starts, where a binary search from the middle
    /// waited on three or four in turn.
    pub(super) fn containing(&self, offset: usize, positions: usize) -> usize {
        let last = self.count - 1;
        let guess = (offset * self.count / positions.max(1)).min(last);
        // The answer lies in low..=high once the gallop stops.
        let (mut low, mut high);
        if self.start(guess) <= offset {
            (low, high) = (guess, last);
            let mut step = 1;
            while low + step <= last {
                if self.start(low + step) <= offset {
                    low += step;
                    step *= 2;
                } else {
                    high = low + step - 1;
                    break;
                }
            }
        } else {
            // Chunk 0 starts at 0, so the answer is below `guess`.
            (low, high) = (0, guess - 1);
            let mut step = 1;
            while step <= high {
                if self.start(high - step + 1) > offset {
                    high -= step;
                    step *= 2;
                } else {
                    low = high - step + 1;
                    break;
                }
            }
        }
        while low < high {
            let mid = (low + high).div_ceil(2);
            if self.start(mid) <= offset {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        low
    }

    /// The bytes of chunk `k`.
    pub(super) fn bytes(&self, k: usize) -> Option<&'a [u8]> {
        let begin = self.head + k * CHUNK_BYTES;
        let end = if k + 1 < self.count {
            begin + CHUNK_BYTES
        } else {
            self.block.len()
        };
        self.block.get(begin..end)
    }
}
