//! Canonical Huffman codes for the pair-coded blocks (`pair_code.rs`):
//! code lengths from counts, limited to [`MAX_CODE_BITS`]; a decoder that
//! reads most codes by one table lookup; and the bit reader of a chunk.

/// The longest Huffman code, in bits.
pub(super) const MAX_CODE_BITS: u32 = 24;
/// Codes this long or shorter are decoded by one table lookup.
const FAST_BITS: u32 = 11;

/// Huffman code lengths for `counts` (0 for a symbol never seen), none
/// longer than `max_bits`: the counts are halved until the code fits.
pub(super) fn huffman_lengths(counts: &[u64], max_bits: u32) -> Vec<u8> {
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
    // Counts of u64 keep a depth under 93 (a Fibonacci tree), so a byte holds it.
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
pub(super) struct Decoder {
    /// For each `FAST_BITS` prefix: span << 17 | symbol << 5 | code length,
    /// or 0 when the code is longer (see [`Decoder::decode_spanned`]).
    fast: Vec<u32>,
    /// For each length: its first code, and the index in `sorted` of its
    /// first symbol.
    first_code: [u32; MAX_CODE_BITS as usize + 1],
    first_index: [u32; MAX_CODE_BITS as usize + 1],
    count: [u32; MAX_CODE_BITS as usize + 1],
    /// The coded symbols by (length, symbol).
    sorted: Vec<u16>,
    /// Each symbol's code.
    codes: Vec<u32>,
}

/// Bits of a fast entry: the code length, the symbol, then its span.
const LEN_BITS: u32 = 5;
const SYMBOL_BITS: u32 = 12;
const SPAN_SHIFT: u32 = LEN_BITS + SYMBOL_BITS;

impl Decoder {
    /// The decoder of the codes whose lengths are `code_bits` (0: a symbol
    /// not coded). `spans` gives each symbol a number the fast table keeps
    /// beside it, where it fits, for [`Decoder::decode_spanned`] (a pair
    /// code's positions a symbol stands for).
    pub(super) fn new(code_bits: &[u8], spans: &[u32]) -> Decoder {
        const { assert!(MAX_CODE_BITS < 1 << LEN_BITS) };
        assert!(code_bits.len() <= 1 << SYMBOL_BITS);
        assert_eq!(spans.len(), code_bits.len());
        // The coded symbols by (length, symbol): a counting sort, as a
        // file's first probe builds this.
        let mut count = [0u32; MAX_CODE_BITS as usize + 1];
        for &b in code_bits {
            count[b as usize] += 1;
        }
        count[0] = 0;
        let mut slot = [0u32; MAX_CODE_BITS as usize + 1];
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
        let mut first_code = [0u32; MAX_CODE_BITS as usize + 1];
        let mut first_index = [0u32; MAX_CODE_BITS as usize + 1];
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
                // A span too wide for the entry is left 0: read from `spans`.
                let span = Some(spans[s as usize])
                    .filter(|&span| span < 1 << (32 - SPAN_SHIFT))
                    .unwrap_or(0);
                for entry in &mut fast[base..base + (1 << (FAST_BITS - len))] {
                    *entry = span << SPAN_SHIFT | (s as u32) << LEN_BITS | len;
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

    /// `symbol`'s code (its length is the caller's).
    pub(super) fn code(&self, symbol: u16) -> u32 {
        self.codes[symbol as usize]
    }

    /// The next symbol of `reader`; `None` past its bytes or where the
    /// bits are no code.
    #[inline]
    pub(super) fn decode(&self, reader: &mut BitReader) -> Option<u16> {
        let window = reader.peek32();
        let entry = self.fast[(window >> (32 - FAST_BITS)) as usize];
        if entry != 0 {
            reader.consume(entry & ((1 << LEN_BITS) - 1))?;
            return Some(((entry >> LEN_BITS) & ((1 << SYMBOL_BITS) - 1)) as u16);
        }
        self.decode_long(reader, window)
    }

    /// [`Decoder::decode`] and the symbol's span, `spans` being those the
    /// decoder was built with: a short code's span comes from the entry
    /// that decoded it, so the read that walks a chunk waits on one table
    /// per symbol, not two.
    #[inline]
    pub(super) fn decode_spanned(
        &self,
        reader: &mut BitReader,
        spans: &[u32],
    ) -> Option<(u16, u32)> {
        let window = reader.peek32();
        let entry = self.fast[(window >> (32 - FAST_BITS)) as usize];
        let span = entry >> SPAN_SHIFT;
        if span != 0 {
            reader.consume(entry & ((1 << LEN_BITS) - 1))?;
            return Some((
                ((entry >> LEN_BITS) & ((1 << SYMBOL_BITS) - 1)) as u16,
                span,
            ));
        }
        let symbol = self.decode(reader)?;
        Some((symbol, *spans.get(symbol as usize)?))
    }

    /// A code longer than the fast table's prefixes.
    #[cold]
    fn decode_long(&self, reader: &mut BitReader, window: u32) -> Option<u16> {
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
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    /// The bits not yet consumed, left-aligned (zeros past the bytes).
    window: u64,
    /// How many bits of `window` are valid.
    valid: u32,
    next_byte: usize,
    /// Bits of `bytes` not yet consumed.
    left: usize,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> BitReader<'a> {
        let mut reader = BitReader {
            bytes,
            window: 0,
            valid: 0,
            next_byte: 0,
            left: 8 * bytes.len(),
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
        self.left = self.left.checked_sub(bits as usize)?;
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

    /// Fibonacci counts make the most lopsided tree: 40 symbols, depths up
    /// to 39 without the limit, none over it with.
    #[test]
    fn lengths_stay_within_the_limit() {
        let mut counts = vec![1u64, 1];
        while counts.len() < 40 {
            let n = counts.len();
            counts.push(counts[n - 1] + counts[n - 2]);
        }
        assert_eq!(unlimited_lengths(&counts).iter().max(), Some(&39));
        let bits = huffman_lengths(&counts, MAX_CODE_BITS);
        assert!(bits.iter().all(|&b| (1..=MAX_CODE_BITS as u8).contains(&b)));
        let kraft: f64 = bits.iter().map(|&b| 0.5f64.powi(b as i32)).sum();
        assert!((kraft - 1.0).abs() < 1e-9, "{kraft}");
    }
}
