//! A pair grammar with canonical Huffman codes, after the coding of
//! Syzygy's chess tables: what the blocks of a pair-coded packed file
//! (format 4, `pack`'s default) hold. A sector's codes are rewritten, pass by
//! pass, with new symbols that each stand for a pair of symbols (no symbol
//! spans two blocks); the final symbols get one Huffman code per sector,
//! and each block's codes are cut into chunks of [`CHUNK_BYTES`] with the
//! first position of each. A probe finds its chunk, decodes codes from the
//! chunk's start, adding up the positions each symbol stands for, until one
//! holds its position, then walks that symbol's pairs down to the code: a
//! few dozen codes, no block decoded, no table built per block.
//!
//! The grammar, stored once per file (where a zstd file keeps its
//! dictionary), little-endian:
//!
//! ```text
//! size     field
//!    2     leaf symbols L (the codes that occur), up to 256
//!    2     pair symbols P, L + P at most 4,096
//!    L     the code each leaf stands for
//!   3P     each pair: two 12-bit symbols, the left in the low bits; pair i
//!          (symbol L + i) names only symbols below L + i
//!  L + P   each symbol's Huffman code length, 0 (never coded) to 24
//! ```
//!
//! A block: the count C of its chunks (u16), the first position within the
//! block of chunks 1 to C - 1 (u16 each), then the chunks, each
//! `CHUNK_BYTES` long but the last, as long as its codes. Codes are
//! canonical (of one length consecutive, shorter ones first), written from
//! the high bit of each byte; no code crosses a chunk's end.

use super::huffman::{BitReader, Decoder, MAX_CODE_BITS, huffman_lengths};
use super::pair_chunks::{CHUNK_BYTES, Chunks};
pub use super::pair_rules::MAX_SYMBOLS;
use super::pair_rules::{BLOCK_START, add_pairs};

/// The most positions a pair-coded block holds: its chunks' first
/// positions are 16-bit.
pub const MAX_BLOCK_LEN: usize = 1 << 16;
/// Pairs are counted in a sample of a sequence longer than this, a block
/// in every so many: counting every symbol, each pass, took most of the
/// time of packing a large sector (see docs/PERFORMANCE.md).
const COUNTED_SYMBOLS: usize = 1 << 24;

/// A sector's symbols: the codes they stand for and their Huffman codes.
pub struct Grammar {
    /// The code each leaf symbol stands for (symbols below `leaves.len()`).
    leaves: Vec<u8>,
    /// The two symbols each pair symbol stands for, in order of symbol.
    pairs: Vec<[u16; 2]>,
    /// How many positions each symbol stands for.
    lens: Vec<u32>,
    /// The one code a symbol stands for where all its positions hold the
    /// same (a run), else [`MIXED`]: a read inside a run needs no walk
    /// down its pairs.
    uniform: Vec<u16>,
    /// Each symbol's code length (0: never coded).
    code_bits: Vec<u8>,
    decoder: Decoder,
}

impl Grammar {
    /// The grammar of `codes`, in blocks of `block_len` positions (at most
    /// [`MAX_BLOCK_LEN`]), and each block's symbols.
    #[cfg(any(test, feature = "internals"))]
    pub fn build(codes: &[u8], block_len: usize, max_symbols: usize) -> (Grammar, BlockSymbols) {
        Grammar::build_counting(codes, block_len, max_symbols, COUNTED_SYMBOLS)
    }

    /// [`Grammar::build`], its pairs counted in a sample of about
    /// `counted` symbols where the codes are longer.
    #[cfg(any(test, feature = "internals"))]
    fn build_counting(
        codes: &[u8],
        block_len: usize,
        max_symbols: usize,
        counted: usize,
    ) -> (Grammar, BlockSymbols) {
        assert!((1..=MAX_BLOCK_LEN).contains(&block_len));
        let leaves = Leaves::of(codes.chunks(block_len));
        let mut seq = vec![0u16; codes.len()];
        for (out, block) in seq.chunks_mut(block_len).zip(codes.chunks(block_len)) {
            leaves.symbols_into(block, out);
        }
        Grammar::build_on_counting(leaves, seq, max_symbols, counted)
    }

    /// [`Grammar::build`] of the codes whose `leaves` are known and whose
    /// sequence of leaf symbols `seq` is (each block's first marked by
    /// [`Leaves::symbols_into`]): the caller makes it, so that no copy of
    /// the codes is held beside it (two bytes a position at most).
    pub fn build_on(leaves: Leaves, seq: Vec<u16>, max_symbols: usize) -> (Grammar, BlockSymbols) {
        Grammar::build_on_counting(leaves, seq, max_symbols, COUNTED_SYMBOLS)
    }

    fn build_on_counting(
        leaves: Leaves,
        mut seq: Vec<u16>,
        max_symbols: usize,
        counted: usize,
    ) -> (Grammar, BlockSymbols) {
        assert!(max_symbols <= MAX_SYMBOLS);
        let leaves = leaves.codes;
        let mut lens = vec![1u32; leaves.len()];
        let pairs = add_pairs(&mut seq, &mut lens, max_symbols, counted);
        let mut counts = vec![0u64; lens.len()];
        let mut starts = Vec::new();
        for (i, s) in seq.iter_mut().enumerate() {
            if *s & BLOCK_START != 0 {
                starts.push(i);
                *s &= !BLOCK_START;
            }
            counts[*s as usize] += 1;
        }
        starts.push(seq.len());
        let code_bits = huffman_lengths(&counts, MAX_CODE_BITS);
        let decoder = Decoder::new(&code_bits, &lens);
        let grammar = Grammar {
            uniform: uniform_codes(&leaves, &pairs),
            leaves,
            pairs,
            lens,
            code_bits,
            decoder,
        };
        (grammar, BlockSymbols { seq, starts })
    }

    /// How many symbols the grammar has, leaves and pairs.
    #[cfg(any(test, feature = "internals"))]
    pub fn symbols(&self) -> usize {
        self.lens.len()
    }

    /// The grammar as a file stores it (the module's layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.leaves.len() + 4 * self.pairs.len());
        out.extend_from_slice(&(self.leaves.len() as u16).to_le_bytes());
        out.extend_from_slice(&(self.pairs.len() as u16).to_le_bytes());
        out.extend_from_slice(&self.leaves);
        for &[left, right] in &self.pairs {
            let both = left as u32 | (right as u32) << 12;
            out.extend_from_slice(&both.to_le_bytes()[..3]);
        }
        out.extend_from_slice(&self.code_bits);
        out
    }

    /// The grammar `bytes` hold, if they hold one whose symbols each fit in
    /// a block of `block_len` positions and whose code lengths make a
    /// prefix code.
    pub fn from_bytes(bytes: &[u8], block_len: usize) -> Option<Grammar> {
        let count =
            |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?) as usize);
        let (leaf_count, pair_count) = (count(0)?, count(2)?);
        let symbols = leaf_count + pair_count;
        if leaf_count > 256 || symbols > MAX_SYMBOLS {
            return None;
        }
        let pairs_at = 4 + leaf_count;
        let bits_at = pairs_at + 3 * pair_count;
        if bytes.len() != bits_at + symbols {
            return None;
        }
        let leaves = bytes[4..pairs_at].to_vec();
        let mut lens = Vec::with_capacity(symbols);
        lens.resize(leaf_count, 1u32);
        let mut pairs = Vec::with_capacity(pair_count);
        for (i, three) in bytes[pairs_at..bits_at].chunks_exact(3).enumerate() {
            let both = u32::from_le_bytes([three[0], three[1], three[2], 0]);
            let (left, right) = ((both & 0xfff) as usize, (both >> 12) as usize);
            if left >= leaf_count + i || right >= leaf_count + i {
                return None;
            }
            let len = lens[left] + lens[right];
            if len as usize > block_len {
                return None;
            }
            lens.push(len);
            pairs.push([left as u16, right as u16]);
        }
        let code_bits = bytes[bits_at..].to_vec();
        // Kraft's sum at most one: every code decodes to one symbol.
        let mut kraft = 0u64;
        for &b in &code_bits {
            if b as u32 > MAX_CODE_BITS {
                return None;
            }
            if b > 0 {
                kraft += 1 << (MAX_CODE_BITS - b as u32);
            }
        }
        if kraft > 1 << MAX_CODE_BITS {
            return None;
        }
        let decoder = Decoder::new(&code_bits, &lens);
        Some(Grammar {
            uniform: uniform_codes(&leaves, &pairs),
            leaves,
            pairs,
            lens,
            code_bits,
            decoder,
        })
    }

    /// A block of `symbols` (its part of [`Grammar::build`]'s sequence), in
    /// chunks (the module's layout).
    pub fn encode_block(&self, symbols: &[u16]) -> Vec<u8> {
        let mut chunks: Vec<Vec<u8>> = vec![Vec::with_capacity(CHUNK_BYTES)];
        let mut starts: Vec<u16> = Vec::new();
        let (mut used, mut position) = (0usize, 0usize);
        // Bits not yet in a byte of the chunk, the first the highest.
        let (mut pending, mut pending_bits) = (0u64, 0usize);
        for &s in symbols {
            let bits = self.code_bits[s as usize] as usize;
            if used + bits > CHUNK_BYTES * 8 {
                let chunk = chunks.last_mut().expect("one at least");
                if pending_bits > 0 {
                    chunk.push((pending << (8 - pending_bits)) as u8);
                    (pending, pending_bits) = (0, 0);
                }
                chunks.push(Vec::with_capacity(CHUNK_BYTES));
                starts.push(position as u16);
                used = 0;
            }
            let chunk = chunks.last_mut().expect("one at least");
            let code = u64::from(self.decoder.code(s)) & ((1 << bits) - 1);
            pending = pending << bits | code;
            pending_bits += bits;
            while pending_bits >= 8 {
                pending_bits -= 8;
                chunk.push((pending >> pending_bits) as u8);
            }
            pending &= (1 << pending_bits) - 1;
            used += bits;
            position += self.lens[s as usize] as usize;
        }
        if pending_bits > 0 {
            let chunk = chunks.last_mut().expect("one at least");
            chunk.push((pending << (8 - pending_bits)) as u8);
        }
        let mut out = Vec::with_capacity(2 + 2 * starts.len() + CHUNK_BYTES * chunks.len());
        out.extend_from_slice(&(chunks.len() as u16).to_le_bytes());
        for s in &starts {
            out.extend_from_slice(&s.to_le_bytes());
        }
        let last = chunks.len() - 1;
        for (k, mut chunk) in chunks.into_iter().enumerate() {
            if k < last {
                chunk.resize(CHUNK_BYTES, 0);
            }
            out.extend_from_slice(&chunk);
        }
        out
    }

    /// Whether a block of `positions` positions whose bytes are `block` is
    /// laid out as this module says: at least one chunk, the chunks' first
    /// positions ascending and below `positions`, every chunk but the last
    /// whole. A probe checks this once per block, with its checksum; then
    /// [`Grammar::code_at`] reads no chunk's codes past the next chunk's
    /// first position. (A chunk whose codes end before that reads its zero
    /// padding as codes: no damage makes one, since the checksum holds, but
    /// a faulty writer could.)
    pub fn layout_holds(&self, block: &[u8], positions: usize) -> bool {
        let Some(chunks) = Chunks::of(block) else {
            return false;
        };
        let whole = chunks.head + (chunks.count - 1) * CHUNK_BYTES <= block.len();
        let ascending = (1..chunks.count).all(|k| chunks.start(k - 1) < chunks.start(k));
        whole && ascending && chunks.start(chunks.count - 1) < positions
    }

    /// The code at `offset` of a block of `positions` positions whose bytes
    /// are `block` (laid out as [`Grammar::layout_holds`] checks); `None`
    /// where its chunk does not hold it.
    #[inline]
    pub fn code_at(&self, block: &[u8], offset: usize, positions: usize) -> Option<u8> {
        let chunks = Chunks::of(block)?;
        let low = chunks.containing(offset, positions);
        let end = if low + 1 < chunks.count {
            chunks.start(low + 1)
        } else {
            positions
        };
        let mut reader = BitReader::new(chunks.bytes(low)?);
        let mut start = chunks.start(low);
        loop {
            let (symbol, len) = self.decoder.decode_spanned(&mut reader, &self.lens)?;
            let len = len as usize;
            if start + len > end {
                return None;
            }
            if offset < start + len {
                return Some(self.leaf_at(symbol, offset - start));
            }
            start += len;
        }
    }

    /// Every code of a block of `positions` positions whose bytes are
    /// `block`; `None` where they do not hold exactly that many.
    pub fn decode_block(&self, block: &[u8], positions: usize) -> Option<Vec<u8>> {
        let chunks = Chunks::of(block)?;
        let mut out = Vec::with_capacity(positions);
        let mut stack = Vec::new();
        for k in 0..chunks.count {
            if out.len() != chunks.start(k) {
                return None;
            }
            let end = if k + 1 < chunks.count {
                chunks.start(k + 1)
            } else {
                positions
            };
            let mut reader = BitReader::new(chunks.bytes(k)?);
            while out.len() < end {
                let symbol = self.decoder.decode(&mut reader)?;
                if out.len() + self.lens[symbol as usize] as usize > end {
                    return None;
                }
                self.push_leaves(symbol, &mut out, &mut stack);
            }
        }
        (out.len() == positions).then_some(out)
    }

    /// The code `offset` positions into what `symbol` stands for.
    #[inline]
    fn leaf_at(&self, mut symbol: u16, mut offset: usize) -> u8 {
        let leaves = self.leaves.len() as u16;
        loop {
            let uniform = self.uniform[symbol as usize];
            if uniform != MIXED {
                return uniform as u8;
            }
            let [left, right] = self.pairs[(symbol - leaves) as usize];
            let left_len = self.lens[left as usize] as usize;
            if offset < left_len {
                symbol = left;
            } else {
                offset -= left_len;
                symbol = right;
            }
        }
    }

    /// Appends the codes `symbol` stands for (`stack`: room to work in).
    fn push_leaves(&self, symbol: u16, out: &mut Vec<u8>, stack: &mut Vec<u16>) {
        let leaves = self.leaves.len() as u16;
        stack.push(symbol);
        while let Some(s) = stack.pop() {
            let uniform = self.uniform[s as usize];
            if uniform != MIXED {
                out.resize(out.len() + self.lens[s as usize] as usize, uniform as u8);
            } else {
                let [left, right] = self.pairs[(s - leaves) as usize];
                stack.push(right);
                stack.push(left);
            }
        }
    }
}

/// [`Grammar::uniform`]'s mark of a symbol whose positions hold more than
/// one code.
const MIXED: u16 = u16::MAX;

/// The one code each symbol stands for, or [`MIXED`]: a leaf its own, a pair
/// its halves' where they agree (pairs name only the symbols before them).
fn uniform_codes(leaves: &[u8], pairs: &[[u16; 2]]) -> Vec<u16> {
    let mut uniform: Vec<u16> = leaves.iter().map(|&code| u16::from(code)).collect();
    for &[left, right] in pairs {
        let (left, right) = (uniform[left as usize], uniform[right as usize]);
        uniform.push(if left == right { left } else { MIXED });
    }
    uniform
}

/// The codes a sector holds, each a leaf symbol, in the order they first
/// appear.
pub struct Leaves {
    codes: Vec<u8>,
    symbol_of: [u16; 256],
}

impl Leaves {
    /// The leaves of codes given block by block, in order.
    pub fn of<'a>(blocks: impl IntoIterator<Item = &'a [u8]>) -> Leaves {
        let mut leaves = Leaves {
            codes: Vec::new(),
            symbol_of: [u16::MAX; 256],
        };
        for block in blocks {
            for &c in block {
                if leaves.symbol_of[c as usize] == u16::MAX {
                    leaves.symbol_of[c as usize] = leaves.codes.len() as u16;
                    leaves.codes.push(c);
                }
            }
        }
        leaves
    }

    /// The codes, in the order they first appear.
    pub fn into_codes(self) -> Vec<u8> {
        self.codes
    }

    /// Writes a block's codes as leaf symbols into `out` (as long), the
    /// first marked as a block's start.
    pub fn symbols_into(&self, block: &[u8], out: &mut [u16]) {
        debug_assert_eq!(block.len(), out.len(), "a block's codes fill its place");
        for (o, &c) in out.iter_mut().zip(block) {
            *o = self.symbol_of[c as usize];
            debug_assert!(*o != u16::MAX, "a code of the leaves");
        }
        if let Some(first) = out.first_mut() {
            *first |= BLOCK_START;
        }
    }
}

/// The symbols of a sector's blocks, one after the other: what
/// [`Grammar::build`] leaves for [`Grammar::encode_block`].
pub struct BlockSymbols {
    seq: Vec<u16>,
    /// Where each block's symbols begin, and the end last.
    starts: Vec<usize>,
}

impl BlockSymbols {
    /// How many blocks.
    pub fn blocks(&self) -> usize {
        self.starts.len() - 1
    }

    /// Block `i`'s symbols.
    pub fn block(&self, i: usize) -> &[u16] {
        &self.seq[self.starts[i]..self.starts[i + 1]]
    }
}

/// A whole sector's codes in pair-coded blocks, in memory: what the
/// measurement program `pair_probe` weighs.
#[cfg(any(test, feature = "internals"))]
pub struct PairCode {
    grammar: Grammar,
    blocks: Vec<Vec<u8>>,
    block_len: usize,
    /// The codes' count.
    len: usize,
}

#[cfg(any(test, feature = "internals"))]
impl PairCode {
    /// Codes `codes` in blocks of `block_len` positions with at most
    /// `max_symbols` symbols.
    pub fn new(codes: &[u8], block_len: usize, max_symbols: usize) -> PairCode {
        PairCode::of(
            Grammar::build(codes, block_len, max_symbols),
            block_len,
            codes.len(),
        )
    }

    fn of((grammar, symbols): (Grammar, BlockSymbols), block_len: usize, len: usize) -> PairCode {
        let blocks = (0..symbols.blocks())
            .map(|i| grammar.encode_block(symbols.block(i)))
            .collect();
        PairCode {
            grammar,
            blocks,
            block_len,
            len,
        }
    }

    /// [`PairCode::new`], its pairs counted in a sample of about `counted`
    /// symbols where the codes are longer.
    #[cfg(test)]
    fn counted_in_sample(codes: &[u8], block_len: usize, counted: usize) -> PairCode {
        let built = Grammar::build_counting(codes, block_len, MAX_SYMBOLS, counted);
        PairCode::of(built, block_len, codes.len())
    }

    /// The grammar.
    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// Bytes a file's body would take: the blocks, 16 bytes of table per
    /// block, the grammar.
    pub fn stored_bytes(&self) -> usize {
        let blocks: usize = self.blocks.iter().map(Vec::len).sum();
        blocks + 16 * self.blocks.len() + self.grammar.to_bytes().len()
    }

    /// The code at `position`.
    pub fn get(&self, position: usize) -> u8 {
        let first = position / self.block_len * self.block_len;
        let positions = self.block_len.min(self.len - first);
        let block = &self.blocks[position / self.block_len];
        self.grammar
            .code_at(block, position - first, positions)
            .expect("a block it wrote")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(codes: &[u8], block_len: usize) {
        check_code(
            &PairCode::new(codes, block_len, MAX_SYMBOLS),
            codes,
            block_len,
        );
    }

    /// Every position of `code` reads back as in `codes`, one by one and
    /// through the stored grammar, each block decoded whole.
    fn check_code(code: &PairCode, codes: &[u8], block_len: usize) {
        for (i, &c) in codes.iter().enumerate() {
            assert_eq!(code.get(i), c, "position {i} of {}", codes.len());
        }
        // Through the stored grammar, each block decoded whole.
        let grammar = Grammar::from_bytes(&code.grammar.to_bytes(), block_len).unwrap();
        for (b, block) in code.blocks.iter().enumerate() {
            let expected = &codes[b * block_len..((b + 1) * block_len).min(codes.len())];
            assert!(grammar.decode_block(block, expected.len()).unwrap() == expected);
        }
    }

    /// The bytes a coding writes, pinned: a change to the grammar, the
    /// Huffman codes or the chunks that changes the files fails here
    /// (the files are the format; a new coding needs a new version).
    #[test]
    fn the_coded_bytes_stay_the_same() {
        let codes = runs(300_000, 7);
        let code = PairCode::new(&codes, MAX_BLOCK_LEN, MAX_SYMBOLS);
        let mut bytes = code.grammar.to_bytes();
        for block in &code.blocks {
            bytes.extend_from_slice(block);
        }
        assert_eq!(
            (bytes.len(), xxhash_rust::xxh3::xxh3_64(&bytes)),
            (15_192, 14_846_843_004_913_679_399),
        );
    }

    /// The bytes of a grammar counted in a sample, pinned: a change to how
    /// the sequence is rewritten must code exactly what it codes now.
    #[test]
    fn the_sampled_coded_bytes_stay_the_same() {
        let pinned = [
            (
                (400_000, 4),
                4096,
                100_000,
                (19_934, 5_692_956_619_887_258_013),
            ),
            (
                (300_000, 9),
                1000,
                30_000,
                (16_120, 16_269_933_234_411_861_927),
            ),
        ];
        for ((len, seed), block_len, counted, hashed) in pinned {
            let code = PairCode::counted_in_sample(&runs(len, seed), block_len, counted);
            let mut bytes = code.grammar.to_bytes();
            for block in &code.blocks {
                bytes.extend_from_slice(block);
            }
            assert_eq!((bytes.len(), xxhash_rust::xxh3::xxh3_64(&bytes)), hashed);
        }
    }

    /// Codes with runs and repeats, as a sector's values have.
    fn runs(len: usize, seed: u64) -> Vec<u8> {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            let value = [255u8, 255, 255, 1, 2, 3, 4, 17, 200][next() as usize % 9];
            let run = 1 + next() as usize % 40;
            out.extend(std::iter::repeat_n(value, run.min(len - out.len())));
        }
        out
    }

    #[test]
    fn every_position_reads_back() {
        check(&runs(200_000, 1), MAX_BLOCK_LEN);
        check(&runs(50_000, 2), 4096);
        check(&runs(30_001, 3), 1000);
    }

    /// A grammar whose pairs were counted in a sample of the blocks codes
    /// every position, and codes them about as small as one counted in all
    /// of them (the sample is what changes the grammar).
    #[test]
    fn a_grammar_counted_in_a_sample_reads_back() {
        let codes = runs(400_000, 4);
        let whole = PairCode::new(&codes, 4096, MAX_SYMBOLS);
        let sampled = PairCode::counted_in_sample(&codes, 4096, 100_000);
        check_code(&sampled, &codes, 4096);
        let bytes = |code: &PairCode| code.blocks.iter().map(Vec::len).sum::<usize>();
        assert!(sampled.grammar.to_bytes() != whole.grammar.to_bytes());
        assert!(
            bytes(&sampled) * 100 <= bytes(&whole) * 103,
            "{} against {}",
            bytes(&sampled),
            bytes(&whole)
        );
    }

    /// Blocks whose codes are cheap for a stretch and costly after (or the
    /// reverse) put the chunks' starts far from where an even spread would:
    /// the search from the guess must still find each position's chunk.
    #[test]
    fn positions_read_back_where_the_chunks_are_uneven() {
        let mut uneven = vec![255u8; 40_000];
        uneven.extend((0..40_000u32).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8));
        uneven.extend(std::iter::repeat_n(4u8, 50_000));
        check(&uneven, MAX_BLOCK_LEN);
        check(&uneven, 4096);
        // Every chunk found as a scan of the starts finds it.
        let code = PairCode::new(&uneven, MAX_BLOCK_LEN, MAX_SYMBOLS);
        for (b, block) in code.blocks.iter().enumerate() {
            let positions = MAX_BLOCK_LEN.min(uneven.len() - b * MAX_BLOCK_LEN);
            let chunks = Chunks::of(block).unwrap();
            assert!(chunks.count > 8, "block {b} has {} chunks", chunks.count);
            for offset in 0..positions {
                let scanned = (0..chunks.count)
                    .rev()
                    .find(|&k| chunks.start(k) <= offset)
                    .unwrap();
                assert_eq!(
                    chunks.containing(offset, positions),
                    scanned,
                    "block {b}, {offset}"
                );
            }
        }
    }

    #[test]
    fn one_code_reads_back() {
        check(&[7u8; 100_000], 1 << 14);
        // Blocks of one code throughout: symbols of 32,768 positions and
        // more, wider than a fast entry keeps (their spans read from the
        // grammar's table).
        let mut uniform_blocks = vec![1u8, 2, 3];
        uniform_blocks.extend(std::iter::repeat_n(7u8, 3_000_000));
        let code = PairCode::new(&uniform_blocks, MAX_BLOCK_LEN, MAX_SYMBOLS);
        assert!(code.grammar.lens.iter().any(|&len| len >= 1 << 15));
        check_code(&code, &uniform_blocks, MAX_BLOCK_LEN);
        check(&[3u8], 1 << 14);
    }

    #[test]
    fn every_byte_value_reads_back() {
        let codes: Vec<u8> = (0..100_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
            .collect();
        check(&codes, 1 << 14);
    }

    #[test]
    fn repeats_compress() {
        let codes = runs(1_000_000, 4);
        let code = PairCode::new(&codes, MAX_BLOCK_LEN, MAX_SYMBOLS);
        assert!(
            code.stored_bytes() < codes.len() / 4,
            "{} bytes",
            code.stored_bytes()
        );
    }

    #[test]
    fn damaged_grammars_are_refused() {
        let code = PairCode::new(&runs(100_000, 5), 4096, MAX_SYMBOLS);
        let bytes = code.grammar.to_bytes();
        assert!(Grammar::from_bytes(&bytes, 4096).is_some());
        assert!(Grammar::from_bytes(&bytes[..bytes.len() - 1], 4096).is_none());
        // A symbol longer than a block.
        assert!(Grammar::from_bytes(&bytes, 2).is_none());
        // A code length that breaks the prefix code.
        let mut longer = bytes.clone();
        let last = longer.len() - 1;
        longer[last] = 1;
        longer[last - 1] = 1;
        longer[last - 2] = 1;
        assert!(Grammar::from_bytes(&longer, 4096).is_none());
        // A pair naming itself.
        let leaves = u16::from_le_bytes([bytes[0], bytes[1]]) as usize;
        let mut circular = bytes.clone();
        circular[4 + leaves] = leaves as u8;
        circular[4 + leaves + 1] = (leaves >> 8) as u8 & 0xf;
        assert!(Grammar::from_bytes(&circular, 4096).is_none());
    }

    #[test]
    fn blocks_not_laid_out_as_written_are_refused() {
        let codes: Vec<u8> = (0..70_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
            .collect();
        let code = PairCode::new(&codes, MAX_BLOCK_LEN, MAX_SYMBOLS);
        let block = &code.blocks[0];
        assert!(code.grammar.layout_holds(block, MAX_BLOCK_LEN));
        assert!(u16::from_le_bytes([block[0], block[1]]) >= 3, "chunks");
        // Chunk 2 starting where chunk 1 does.
        let mut same = block.clone();
        same[4] = same[2];
        same[5] = same[3];
        assert!(!code.grammar.layout_holds(&same, MAX_BLOCK_LEN));
        // A chunk starting past the block's positions, no chunks, a whole
        // chunk cut short.
        assert!(!code.grammar.layout_holds(block, 10));
        assert!(!code.grammar.layout_holds(&[0, 0], MAX_BLOCK_LEN));
        let head = 2 * u16::from_le_bytes([block[0], block[1]]) as usize;
        assert!(
            !code
                .grammar
                .layout_holds(&block[..head + CHUNK_BYTES], MAX_BLOCK_LEN)
        );
        // Chunk 1 said to start at position 1, inside chunk 0's first
        // symbol (of runs, longer than one position).
        let runs = PairCode::new(&runs(100_000, 8), MAX_BLOCK_LEN, MAX_SYMBOLS);
        let mut early = runs.blocks[0].clone();
        early[2..4].copy_from_slice(&1u16.to_le_bytes());
        assert!(runs.grammar.layout_holds(&early, MAX_BLOCK_LEN));
        assert_eq!(runs.grammar.code_at(&early, 0, MAX_BLOCK_LEN), None);
    }

    #[test]
    fn damaged_blocks_give_no_code_past_their_bytes() {
        let codes = runs(20_000, 6);
        let code = PairCode::new(&codes, 1 << 14, MAX_SYMBOLS);
        let block = &code.blocks[0];
        for cut in 0..block.len().min(40) {
            let short = &block[..cut];
            assert_eq!(code.grammar.decode_block(short, 1 << 14), None);
            let _ = code.grammar.code_at(short, (1 << 14) - 1, 1 << 14);
        }
    }
}
