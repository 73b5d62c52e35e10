//! A pair grammar with canonical Huffman codes, after the coding of
//! Syzygy's chess tables: what the blocks of a pair-coded packed file
//! (format 4, `pack --pairs`) hold. A sector's codes are rewritten, pass by
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

/// The most symbols (leaves and pairs) a grammar has: 12-bit symbols.
pub const MAX_SYMBOLS: usize = 4096;
/// Bytes of codes per chunk: a probe decodes at most one chunk's codes.
pub const CHUNK_BYTES: usize = 64;
/// The most positions a pair-coded block holds: its chunks' first
/// positions are 16-bit.
pub const MAX_BLOCK_LEN: usize = 1 << 16;
/// The longest Huffman code, in bits.
const MAX_CODE_BITS: u32 = 24;
/// Codes this long or shorter are decoded by one table lookup.
const FAST_BITS: u32 = 11;
/// A pair seen fewer times than this in a pass is not worth a rule.
const MIN_PAIR_COUNT: u32 = 24;
/// The most rules one pass adds: 8 made the codes 1.5% smaller for six
/// times the build (see docs/PERFORMANCE.md).
const PAIRS_PER_PASS: usize = 64;
/// A symbol of the sequence that begins a block (the flag bit of a u16
/// whose low 12 bits are the symbol).
const BLOCK_START: u16 = 1 << 15;

/// A sector's symbols: the codes they stand for and their Huffman codes.
pub struct Grammar {
    /// The code each leaf symbol stands for (symbols below `leaves.len()`).
    leaves: Vec<u8>,
    /// The two symbols each pair symbol stands for, in order of symbol.
    pairs: Vec<[u16; 2]>,
    /// How many positions each symbol stands for.
    lens: Vec<u32>,
    /// Each symbol's code length (0: never coded).
    code_bits: Vec<u8>,
    decoder: Decoder,
}

impl Grammar {
    /// The grammar of `codes`, in blocks of `block_len` positions (at most
    /// [`MAX_BLOCK_LEN`]), and each block's symbols.
    pub fn build(codes: &[u8], block_len: usize, max_symbols: usize) -> (Grammar, Vec<Vec<u16>>) {
        assert!(block_len <= MAX_BLOCK_LEN && max_symbols <= MAX_SYMBOLS);
        let mut leaf_of = [u16::MAX; 256];
        let mut leaves = Vec::new();
        for &c in codes {
            if leaf_of[c as usize] == u16::MAX {
                leaf_of[c as usize] = leaves.len() as u16;
                leaves.push(c);
            }
        }
        let mut seq: Vec<u16> = codes
            .iter()
            .enumerate()
            .map(|(i, &c)| leaf_of[c as usize] | if i % block_len == 0 { BLOCK_START } else { 0 })
            .collect();
        let mut lens = vec![1u32; leaves.len()];
        let pairs = add_pairs(&mut seq, &mut lens, max_symbols);
        let mut counts = vec![0u64; lens.len()];
        for &s in &seq {
            counts[(s & !BLOCK_START) as usize] += 1;
        }
        let code_bits = huffman_lengths(&counts, MAX_CODE_BITS);
        let decoder = Decoder::new(&code_bits);
        let mut blocks: Vec<Vec<u16>> = Vec::with_capacity(codes.len().div_ceil(block_len.max(1)));
        for &s in &seq {
            if s & BLOCK_START != 0 {
                blocks.push(Vec::new());
            }
            blocks
                .last_mut()
                .expect("the first symbol begins a block")
                .push(s & !BLOCK_START);
        }
        let grammar = Grammar {
            leaves,
            pairs,
            lens,
            code_bits,
            decoder,
        };
        (grammar, blocks)
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
        let decoder = Decoder::new(&code_bits);
        Some(Grammar {
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
        for &s in symbols {
            let bits = self.code_bits[s as usize] as usize;
            if used + bits > CHUNK_BYTES * 8 {
                chunks.push(Vec::with_capacity(CHUNK_BYTES));
                starts.push(position as u16);
                used = 0;
            }
            let chunk = chunks.last_mut().expect("one at least");
            let code = self.decoder.codes[s as usize];
            for k in 0..bits {
                let at = used + k;
                if at / 8 == chunk.len() {
                    chunk.push(0);
                }
                if code >> (bits - 1 - k) & 1 == 1 {
                    chunk[at / 8] |= 0x80 >> (at % 8);
                }
            }
            used += bits;
            position += self.lens[s as usize] as usize;
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

    /// The code at `offset` of a block whose bytes are `block`; `None`
    /// where the block does not hold it.
    #[inline]
    pub fn code_at(&self, block: &[u8], offset: usize) -> Option<u8> {
        let chunks = Chunks::of(block)?;
        // The last chunk that starts at or before `offset`.
        let (mut low, mut high) = (0, chunks.count - 1);
        while low < high {
            let mid = (low + high).div_ceil(2);
            if chunks.start(mid) <= offset {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        let mut reader = BitReader::new(chunks.bytes(low)?);
        let mut start = chunks.start(low);
        loop {
            let symbol = self.decoder.decode(&mut reader)?;
            let len = self.lens[symbol as usize] as usize;
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
        while symbol >= leaves {
            let [left, right] = self.pairs[(symbol - leaves) as usize];
            let left_len = self.lens[left as usize] as usize;
            if offset < left_len {
                symbol = left;
            } else {
                offset -= left_len;
                symbol = right;
            }
        }
        self.leaves[symbol as usize]
    }

    /// Appends the codes `symbol` stands for (`stack`: room to work in).
    fn push_leaves(&self, symbol: u16, out: &mut Vec<u8>, stack: &mut Vec<u16>) {
        let leaves = self.leaves.len() as u16;
        stack.push(symbol);
        while let Some(s) = stack.pop() {
            if s < leaves {
                out.push(self.leaves[s as usize]);
            } else {
                let [left, right] = self.pairs[(s - leaves) as usize];
                stack.push(right);
                stack.push(left);
            }
        }
    }
}

/// A block's chunks: their count, first positions and bytes.
struct Chunks<'a> {
    block: &'a [u8],
    count: usize,
    /// Where the chunks' bytes begin.
    head: usize,
}

impl<'a> Chunks<'a> {
    fn of(block: &'a [u8]) -> Option<Chunks<'a>> {
        let count = u16::from_le_bytes(block.get(..2)?.try_into().ok()?) as usize;
        let head = 2 * count;
        (count >= 1 && head <= block.len()).then_some(Chunks { block, count, head })
    }

    /// The first position of chunk `k` (below `count`).
    fn start(&self, k: usize) -> usize {
        if k == 0 {
            return 0;
        }
        u16::from_le_bytes([self.block[2 * k], self.block[2 * k + 1]]) as usize
    }

    /// The bytes of chunk `k`.
    fn bytes(&self, k: usize) -> Option<&'a [u8]> {
        let begin = self.head + k * CHUNK_BYTES;
        let end = if k + 1 < self.count {
            begin + CHUNK_BYTES
        } else {
            self.block.len()
        };
        self.block.get(begin..end)
    }
}

/// Rewrites `seq` with pair symbols, pass by pass, and returns the pairs
/// (symbol `lens.len()` before the call is the first); `lens` gets each new
/// symbol's length. Each pass counts every adjacent pair within a block,
/// then replaces the most frequent ones, left to right.
fn add_pairs(seq: &mut Vec<u16>, lens: &mut Vec<u32>, max_symbols: usize) -> Vec<[u16; 2]> {
    let mut pairs = Vec::new();
    let mut counts = vec![0u32; MAX_SYMBOLS * MAX_SYMBOLS];
    let mut pair_symbol = vec![0u16; MAX_SYMBOLS * MAX_SYMBOLS];
    let at = |a: u16, b: u16| (a & !BLOCK_START) as usize * MAX_SYMBOLS + b as usize;
    while lens.len() < max_symbols && seq.len() > 1 {
        let symbols = lens.len();
        for w in seq.windows(2) {
            if w[1] & BLOCK_START == 0 {
                let i = at(w[0], w[1]);
                counts[i] = counts[i].saturating_add(1);
            }
        }
        let mut best: Vec<(u32, usize)> = Vec::new();
        for a in 0..symbols {
            for b in 0..symbols {
                let i = a * MAX_SYMBOLS + b;
                if counts[i] >= MIN_PAIR_COUNT {
                    best.push((counts[i], i));
                }
                counts[i] = 0;
            }
        }
        if best.is_empty() {
            break;
        }
        best.sort_unstable_by(|x, y| y.cmp(x));
        let top = best[0].0;
        let chosen: Vec<usize> = best
            .iter()
            .take(PAIRS_PER_PASS.min(max_symbols - symbols))
            .take_while(|&&(count, _)| count >= top / 8)
            .map(|&(_, i)| i)
            .collect();
        for &i in &chosen {
            let (a, b) = (i / MAX_SYMBOLS, i % MAX_SYMBOLS);
            pair_symbol[i] = lens.len() as u16;
            pairs.push([a as u16, b as u16]);
            lens.push(lens[a] + lens[b]);
        }
        let (mut read, mut write) = (0, 0);
        while read < seq.len() {
            let here = seq[read];
            if read + 1 < seq.len() && seq[read + 1] & BLOCK_START == 0 {
                let symbol = pair_symbol[at(here, seq[read + 1])];
                if symbol != 0 {
                    seq[write] = symbol | (here & BLOCK_START);
                    write += 1;
                    read += 2;
                    continue;
                }
            }
            seq[write] = here;
            write += 1;
            read += 1;
        }
        seq.truncate(write);
        for &i in &chosen {
            pair_symbol[i] = 0;
        }
    }
    pairs
}

/// A whole sector's codes in pair-coded blocks, in memory: what the
/// measurement program `pair_probe` weighs.
#[cfg(any(test, feature = "internals"))]
pub struct PairCode {
    grammar: Grammar,
    blocks: Vec<Vec<u8>>,
    block_len: usize,
}

#[cfg(any(test, feature = "internals"))]
impl PairCode {
    /// Codes `codes` in blocks of `block_len` positions with at most
    /// `max_symbols` symbols.
    pub fn new(codes: &[u8], block_len: usize, max_symbols: usize) -> PairCode {
        let (grammar, symbols) = Grammar::build(codes, block_len, max_symbols);
        let blocks = symbols.iter().map(|s| grammar.encode_block(s)).collect();
        PairCode {
            grammar,
            blocks,
            block_len,
        }
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
        let block = &self.blocks[position / self.block_len];
        self.grammar
            .code_at(block, position % self.block_len)
            .expect("a block it wrote")
    }
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
        // The coded symbols by (length, symbol): a counting sort, as a
        // file's first probe builds this.
        let mut count = [0u32; MAX_CODE_BITS as usize + 2];
        for &b in code_bits {
            count[b as usize] += 1;
        }
        count[0] = 0;
        let mut slot = [0u32; MAX_CODE_BITS as usize + 2];
        for len in 1..=MAX_CODE_BITS as usize {
            slot[len] = slot[len - 1] + count[len - 1];
        }
        let mut sorted = vec![0u16; count.iter().sum::<u32>() as usize];
        for (s, &b) in code_bits.iter().enumerate() {
            if b > 0 {
                sorted[slot[b as usize] as usize] = s as u16;
                slot[b as usize] += 1;
            }
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

    /// The next symbol of `reader`; `None` past its bytes or where the
    /// bits are no code.
    #[inline]
    fn decode(&self, reader: &mut BitReader) -> Option<u16> {
        let window = reader.peek32();
        let entry = self.fast[(window >> (32 - FAST_BITS)) as usize];
        if entry != 0 {
            reader.consume(entry & 0xff)?;
            return Some((entry >> 8) as u16);
        }
        for len in FAST_BITS + 1..=MAX_CODE_BITS {
            let code = window >> (32 - len);
            let first = self.first_code[len as usize];
            if code >= first && code < first + self.count[len as usize] {
                reader.consume(len)?;
                return Some(self.sorted[(self.first_index[len as usize] + code - first) as usize]);
            }
        }
        None
    }
}

/// Reads a chunk's bits from the most significant bit of its first byte.
struct BitReader<'a> {
    bytes: &'a [u8],
    /// The bits not yet consumed, left-aligned (zeros past the bytes).
    window: u64,
    /// How many bits of `window` are valid.
    valid: u32,
    next_byte: usize,
    /// Bits of `bytes` not yet consumed.
    left: u32,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> BitReader<'a> {
        let mut reader = BitReader {
            bytes,
            window: 0,
            valid: 0,
            next_byte: 0,
            left: 8 * bytes.len() as u32,
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

    /// Consumes `bits`; `None` if the bytes do not hold that many.
    #[inline]
    fn consume(&mut self, bits: u32) -> Option<()> {
        self.left = self.left.checked_sub(bits)?;
        self.window <<= bits;
        self.valid -= bits;
        if self.valid < 32 {
            self.refill();
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(codes: &[u8], block_len: usize) {
        let code = PairCode::new(codes, block_len, MAX_SYMBOLS);
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

    #[test]
    fn one_code_reads_back() {
        check(&[7u8; 100_000], 1 << 14);
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
    fn damaged_blocks_give_no_code_past_their_bytes() {
        let codes = runs(20_000, 6);
        let code = PairCode::new(&codes, 1 << 14, MAX_SYMBOLS);
        let block = &code.blocks[0];
        for cut in 0..block.len().min(40) {
            let short = &block[..cut];
            assert_eq!(code.grammar.decode_block(short, 1 << 14), None);
            let _ = code.grammar.code_at(short, (1 << 14) - 1);
        }
    }
}
