//! A pair grammar with canonical Huffman codes over small blocks, after the
//! coding of Syzygy's chess tables: a sector's value bytes are rewritten,
//! pass by pass, with new symbols that each stand for a pair of symbols;
//! the final symbols get one Huffman code per sector and are cut into
//! blocks of a few dozen bytes. A probe finds its block, decodes symbols
//! from the block's start, adding up how many positions each stands for,
//! until one holds its position, then walks that symbol's pairs down to
//! the value. No table is decoded per block, and one symbol may stand for
//! thousands of positions, so a probe decodes tens of codes, not the
//! block's positions.
//!
//! Not yet a file encoding: the measurement program `pair_probe` weighs it
//! against the packings `pack` writes (see docs/PERFORMANCE.md).

/// The most symbols (leaves and pairs) a code has: pair ids fit 12 bits.
pub const MAX_SYMBOLS: usize = 4096;
/// The longest Huffman code, in bits.
const MAX_CODE_BITS: u32 = 24;
/// Codes this long or shorter are decoded by one table lookup.
const FAST_BITS: u32 = 11;
/// A pair seen fewer times than this in a pass is not worth a rule.
const MIN_PAIR_COUNT: u32 = 24;
/// The most rules one pass adds.
const PAIRS_PER_PASS: usize = 64;
/// The most positions one symbol stands for.
const MAX_SYMBOL_LEN: u32 = 1 << 30;

/// A sequence of bytes coded by a pair grammar, read at any position.
pub struct PairCode {
    /// The byte each leaf symbol stands for (symbols below `leaves.len()`).
    leaves: Vec<u8>,
    /// The two symbols each pair symbol stands for, in order of symbol.
    pairs: Vec<[u16; 2]>,
    /// How many positions each symbol stands for.
    lens: Vec<u32>,
    decoder: Decoder,
    block_bytes: usize,
    /// The coded blocks, `block_bytes` each.
    blocks: Vec<u8>,
    /// The first position of each block, and the count of positions last.
    block_starts: Vec<u64>,
    /// For every `1 << span_bits` positions, the block holding the first:
    /// a probe steps on from there.
    span_blocks: Vec<u32>,
    span_bits: u32,
}

impl PairCode {
    /// Codes `values` in blocks of `block_bytes` bytes (at least 8).
    pub fn new(values: &[u8], block_bytes: usize) -> PairCode {
        PairCode::with_symbols(values, block_bytes, MAX_SYMBOLS)
    }

    /// `new` with at most `max_symbols` symbols (up to `MAX_SYMBOLS`).
    pub fn with_symbols(values: &[u8], block_bytes: usize, max_symbols: usize) -> PairCode {
        assert!(block_bytes >= 8 && block_bytes.is_multiple_of(4));
        assert!(max_symbols <= MAX_SYMBOLS);
        let mut leaf_of = [u16::MAX; 256];
        let mut leaves = Vec::new();
        for &v in values {
            if leaf_of[v as usize] == u16::MAX {
                leaf_of[v as usize] = leaves.len() as u16;
                leaves.push(v);
            }
        }
        let mut seq: Vec<u16> = values.iter().map(|&v| leaf_of[v as usize]).collect();
        let mut lens = vec![1u32; leaves.len()];
        let pairs = build_grammar(&mut seq, &mut lens, max_symbols);
        let mut counts = vec![0u64; lens.len()];
        for &s in &seq {
            counts[s as usize] += 1;
        }
        let code_bits = huffman_lengths(&counts, MAX_CODE_BITS);
        let decoder = Decoder::new(&code_bits);
        let (blocks, block_starts) = cut_blocks(&seq, &lens, &decoder, &code_bits, block_bytes);
        let (span_blocks, span_bits) = span_index(&block_starts);
        PairCode {
            leaves,
            pairs,
            lens,
            decoder,
            block_bytes,
            blocks,
            block_starts,
            span_blocks,
            span_bits,
        }
    }

    /// How many positions the code holds.
    pub fn len(&self) -> u64 {
        *self.block_starts.last().unwrap_or(&0)
    }

    /// Whether the code holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many symbols the grammar has, leaves and pairs.
    pub fn symbols(&self) -> usize {
        self.lens.len()
    }

    /// How many blocks the code has.
    pub fn block_count(&self) -> usize {
        self.block_starts.len() - 1
    }

    /// Bytes a file would take: the blocks, a 4-byte start per block and
    /// per span, 3 bytes per pair, a byte per symbol's code length and per
    /// leaf.
    pub fn stored_bytes(&self) -> usize {
        self.blocks.len()
            + 4 * (self.block_count() + self.span_blocks.len())
            + 3 * self.pairs.len()
            + self.lens.len()
            + self.leaves.len()
    }

    /// The byte at `position` (below `len()`).
    pub fn get(&self, position: u64) -> u8 {
        let mut block = self.span_blocks[(position >> self.span_bits) as usize] as usize;
        while self.block_starts[block + 1] <= position {
            block += 1;
        }
        let bytes = &self.blocks[block * self.block_bytes..(block + 1) * self.block_bytes];
        let mut reader = BitReader::new(bytes);
        let mut start = self.block_starts[block];
        loop {
            let symbol = self.decoder.decode(&mut reader);
            let len = self.lens[symbol as usize] as u64;
            if position < start + len {
                return self.leaf_at(symbol, (position - start) as u32);
            }
            start += len;
        }
    }

    /// The byte `offset` positions into what `symbol` stands for.
    fn leaf_at(&self, mut symbol: u16, mut offset: u32) -> u8 {
        let leaves = self.leaves.len() as u16;
        while symbol >= leaves {
            let [left, right] = self.pairs[(symbol - leaves) as usize];
            let left_len = self.lens[left as usize];
            if offset < left_len {
                symbol = left;
            } else {
                offset -= left_len;
                symbol = right;
            }
        }
        self.leaves[symbol as usize]
    }
}

/// Rewrites `seq` with pair symbols, pass by pass, and returns the pairs
/// (symbol `lens.len()` before the call is the first); `lens` gets each new
/// symbol's length. Each pass counts every adjacent pair, then replaces the
/// most frequent ones, left to right.
fn build_grammar(seq: &mut Vec<u16>, lens: &mut Vec<u32>, max_symbols: usize) -> Vec<[u16; 2]> {
    let mut pairs = Vec::new();
    let mut counts = vec![0u32; MAX_SYMBOLS * MAX_SYMBOLS];
    let mut pair_symbol = vec![0u16; MAX_SYMBOLS * MAX_SYMBOLS];
    while lens.len() < max_symbols && seq.len() > 1 {
        let symbols = lens.len();
        for w in seq.windows(2) {
            let at = w[0] as usize * MAX_SYMBOLS + w[1] as usize;
            counts[at] = counts[at].saturating_add(1);
        }
        let mut best: Vec<(u32, usize)> = Vec::new();
        for a in 0..symbols {
            for b in 0..symbols {
                let at = a * MAX_SYMBOLS + b;
                let count = counts[at];
                if count >= MIN_PAIR_COUNT && lens[a] + lens[b] <= MAX_SYMBOL_LEN {
                    best.push((count, at));
                }
                counts[at] = 0;
            }
        }
        if best.is_empty() {
            break;
        }
        best.sort_unstable_by(|x, y| y.cmp(x));
        let top = best[0].0;
        let room = max_symbols - symbols;
        let chosen: Vec<usize> = best
            .iter()
            .take(PAIRS_PER_PASS.min(room))
            .take_while(|&&(count, _)| count >= top / 8)
            .map(|&(_, at)| at)
            .collect();
        for &at in &chosen {
            let (a, b) = (at / MAX_SYMBOLS, at % MAX_SYMBOLS);
            pair_symbol[at] = lens.len() as u16;
            pairs.push([a as u16, b as u16]);
            lens.push(lens[a] + lens[b]);
        }
        let (mut read, mut write) = (0, 0);
        while read < seq.len() {
            if read + 1 < seq.len() {
                let at = seq[read] as usize * MAX_SYMBOLS + seq[read + 1] as usize;
                let symbol = pair_symbol[at];
                if symbol != 0 {
                    seq[write] = symbol;
                    write += 1;
                    read += 2;
                    continue;
                }
            }
            seq[write] = seq[read];
            write += 1;
            read += 1;
        }
        seq.truncate(write);
        for &at in &chosen {
            pair_symbol[at] = 0;
        }
    }
    pairs
}

/// The block of the first position of every span, with spans about eight
/// mean blocks long (a probe then steps over four block starts, which lie
/// together in memory).
fn span_index(block_starts: &[u64]) -> (Vec<u32>, u32) {
    let positions = *block_starts.last().unwrap_or(&0);
    let blocks = (block_starts.len() - 1).max(1) as u64;
    let span_bits = (8 * positions / blocks).max(1).ilog2();
    let mut span_blocks = Vec::with_capacity((positions >> span_bits) as usize + 1);
    let mut block = 0usize;
    for span in 0..=(positions >> span_bits) {
        let first = span << span_bits;
        while block + 2 < block_starts.len() && block_starts[block + 1] <= first {
            block += 1;
        }
        span_blocks.push(block as u32);
    }
    (span_blocks, span_bits)
}

/// Huffman code lengths for `counts` (0 for a symbol never seen), none
/// longer than `max_bits`: the counts are halved until the code fits.
fn huffman_lengths(counts: &[u64], max_bits: u32) -> Vec<u8> {
    let mut scaled: Vec<u64> = counts.to_vec();
    loop {
        let bits = unlimited_lengths(&scaled);
        if bits.iter().all(|&b| b as u32 <= max_bits) {
            return bits;
        }
        for c in scaled.iter_mut().filter(|c| **c > 0) {
            *c = (*c / 2).max(1);
        }
    }
}

/// Huffman code lengths without a limit (a lone symbol gets one bit).
fn unlimited_lengths(counts: &[u64]) -> Vec<u8> {
    let mut bits = vec![0u8; counts.len()];
    let used: Vec<usize> = (0..counts.len()).filter(|&s| counts[s] > 0).collect();
    if used.len() == 1 {
        bits[used[0]] = 1;
        return bits;
    }
    // Nodes: the leaves, then the merged ones; parent links give depths.
    let mut weight: Vec<u64> = used.iter().map(|&s| counts[s]).collect();
    let mut parent = vec![usize::MAX; used.len()];
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> = (0..used.len())
        .map(|n| std::cmp::Reverse((weight[n], n)))
        .collect();
    while heap.len() > 1 {
        let std::cmp::Reverse((wa, a)) = heap.pop().unwrap();
        let std::cmp::Reverse((wb, b)) = heap.pop().unwrap();
        let node = weight.len();
        weight.push(wa + wb);
        parent.push(usize::MAX);
        parent[a] = node;
        parent[b] = node;
        heap.push(std::cmp::Reverse((wa + wb, node)));
    }
    let mut depth = vec![0u8; weight.len()];
    for n in (0..weight.len()).rev() {
        if parent[n] != usize::MAX {
            depth[n] = depth[parent[n]] + 1;
        }
    }
    for (n, &s) in used.iter().enumerate() {
        bits[s] = depth[n];
    }
    bits
}

/// Cuts the coded symbols into blocks of `block_bytes`; no code crosses a
/// block's end (the rest of a block is zeros, never read).
fn cut_blocks(
    seq: &[u16],
    lens: &[u32],
    decoder: &Decoder,
    code_bits: &[u8],
    block_bytes: usize,
) -> (Vec<u8>, Vec<u64>) {
    let block_bits = block_bytes * 8;
    let mut blocks = Vec::new();
    let mut starts = Vec::new();
    let mut block = vec![0u8; block_bytes];
    let mut used = 0usize;
    let mut position = 0u64;
    for &s in seq {
        let bits = code_bits[s as usize] as usize;
        if used + bits > block_bits || starts.is_empty() {
            if !starts.is_empty() {
                blocks.extend_from_slice(&block);
                block.fill(0);
            }
            starts.push(position);
            used = 0;
        }
        let code = decoder.code_of(s);
        for k in 0..bits {
            if code >> (bits - 1 - k) & 1 == 1 {
                block[(used + k) / 8] |= 0x80 >> ((used + k) % 8);
            }
        }
        used += bits;
        position += lens[s as usize] as u64;
    }
    if !starts.is_empty() {
        blocks.extend_from_slice(&block);
    }
    starts.push(position);
    (blocks, starts)
}

/// Canonical Huffman decoding: codes of one length are consecutive numbers,
/// shorter codes numerically first when left-aligned.
struct Decoder {
    /// For each `FAST_BITS` prefix: symbol << 8 | code length, or 0 when
    /// the code is longer.
    fast: Vec<u32>,
    /// For each length: its first code, and the index in `sorted` of its
    /// first symbol.
    first_code: [u32; MAX_CODE_BITS as usize + 2],
    first_index: [u32; MAX_CODE_BITS as usize + 2],
    count: [u32; MAX_CODE_BITS as usize + 2],
    /// The coded symbols by (length, symbol).
    sorted: Vec<u16>,
    /// Each symbol's code.
    codes: Vec<u32>,
}

impl Decoder {
    fn new(code_bits: &[u8]) -> Decoder {
        let mut sorted: Vec<u16> = (0..code_bits.len() as u16)
            .filter(|&s| code_bits[s as usize] > 0)
            .collect();
        sorted.sort_by_key(|&s| (code_bits[s as usize], s));
        let mut count = [0u32; MAX_CODE_BITS as usize + 2];
        for &s in &sorted {
            count[code_bits[s as usize] as usize] += 1;
        }
        let mut first_code = [0u32; MAX_CODE_BITS as usize + 2];
        let mut first_index = [0u32; MAX_CODE_BITS as usize + 2];
        let (mut code, mut index) = (0u32, 0u32);
        for len in 1..=MAX_CODE_BITS as usize {
            first_code[len] = code;
            first_index[len] = index;
            code = (code + count[len]) << 1;
            index += count[len];
        }
        let mut codes = vec![0u32; code_bits.len()];
        let mut next = first_code;
        for &s in &sorted {
            let len = code_bits[s as usize] as usize;
            codes[s as usize] = next[len];
            next[len] += 1;
        }
        let mut fast = vec![0u32; 1 << FAST_BITS];
        for &s in &sorted {
            let len = code_bits[s as usize] as u32;
            if len <= FAST_BITS {
                let base = (codes[s as usize] << (FAST_BITS - len)) as usize;
                for entry in &mut fast[base..base + (1 << (FAST_BITS - len))] {
                    *entry = (s as u32) << 8 | len;
                }
            }
        }
        Decoder {
            fast,
            first_code,
            first_index,
            count,
            sorted,
            codes,
        }
    }

    fn code_of(&self, symbol: u16) -> u32 {
        self.codes[symbol as usize]
    }

    /// The next symbol of `reader`.
    #[inline]
    fn decode(&self, reader: &mut BitReader) -> u16 {
        let window = reader.peek32();
        let entry = self.fast[(window >> (32 - FAST_BITS)) as usize];
        if entry != 0 {
            reader.consume(entry & 0xff);
            return (entry >> 8) as u16;
        }
        for len in FAST_BITS + 1..=MAX_CODE_BITS {
            let code = window >> (32 - len);
            let first = self.first_code[len as usize];
            if code < first + self.count[len as usize] {
                reader.consume(len);
                return self.sorted[(self.first_index[len as usize] + code - first) as usize];
            }
        }
        unreachable!("a block holds only whole codes")
    }
}

/// Reads a block's bits from the most significant bit of its first byte.
struct BitReader<'a> {
    bytes: &'a [u8],
    /// The bits not yet consumed, left-aligned.
    window: u64,
    /// How many bits of `window` are valid.
    valid: u32,
    next_byte: usize,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> BitReader<'a> {
        let mut reader = BitReader {
            bytes,
            window: 0,
            valid: 0,
            next_byte: 0,
        };
        reader.refill();
        reader
    }

    #[inline]
    fn refill(&mut self) {
        while self.valid <= 56 {
            let byte = self.bytes.get(self.next_byte).copied().unwrap_or(0);
            self.window |= (byte as u64) << (56 - self.valid);
            self.valid += 8;
            self.next_byte += 1;
        }
    }

    #[inline]
    fn peek32(&self) -> u32 {
        (self.window >> 32) as u32
    }

    #[inline]
    fn consume(&mut self, bits: u32) {
        self.window <<= bits;
        self.valid -= bits;
        if self.valid < 32 {
            self.refill();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(values: &[u8], block_bytes: usize) {
        let code = PairCode::new(values, block_bytes);
        assert_eq!(code.len(), values.len() as u64);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(code.get(i as u64), v, "position {i} of {}", values.len());
        }
    }

    /// A sequence with runs and repeats, as a sector's values have.
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
        check(&runs(200_000, 1), 64);
        check(&runs(50_000, 2), 8);
        check(&runs(30_000, 3), 512);
    }

    #[test]
    fn one_value_and_none_read_back() {
        check(&[7u8; 100_000], 16);
        check(&[3u8], 8);
        let empty = PairCode::new(&[], 8);
        assert!(empty.is_empty());
    }

    #[test]
    fn every_byte_value_reads_back() {
        let values: Vec<u8> = (0..100_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
            .collect();
        check(&values, 32);
    }

    #[test]
    fn repeats_compress() {
        let values = runs(1_000_000, 4);
        let code = PairCode::new(&values, 64);
        assert!(
            code.stored_bytes() < values.len() / 4,
            "{} bytes",
            code.stored_bytes()
        );
    }
}
