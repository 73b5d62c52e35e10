//! The pair rules of a pair grammar (`pair_code.rs`): a sector's
//! sequence of symbols rewritten, pass by pass, with new symbols that each
//! stand for a frequent pair of symbols.

use rayon::prelude::*;

/// The most symbols (leaves and pairs) a grammar has: 12-bit symbols.
pub const MAX_SYMBOLS: usize = 4096;
/// A pair seen fewer times than this in a pass is not worth a rule.
const MIN_PAIR_COUNT: u32 = 24;
/// The most rules one pass adds: 8 made the codes 1.5% smaller for six
/// times the build (see docs/PERFORMANCE.md).
const PAIRS_PER_PASS: usize = 64;
/// A symbol of the sequence that begins a block (the flag bit of a u16
/// whose low 12 bits are the symbol).
pub(super) const BLOCK_START: u16 = 1 << 15;

/// Rewrites `seq` with pair symbols, pass by pass, and returns the pairs
/// (symbol `lens.len()` before the call is the first); `lens` gets each new
/// symbol's length. Each pass counts the adjacent pairs within blocks (of
/// all of `seq`, or of a sample of its blocks of about `counted` symbols
/// where it is longer), then replaces the most frequent ones, left to
/// right. Pieces of blocks are counted and rewritten in parallel; no pair
/// spans two blocks, so the result is the same on any number of threads.
pub(super) fn add_pairs(
    seq: &mut Vec<u16>,
    lens: &mut Vec<u32>,
    max_symbols: usize,
    counted: usize,
) -> Vec<[u16; 2]> {
    let mut pairs = Vec::new();
    let mut chosen_pairs = ChosenPairs::default();
    // One table of counts per piece, made once: a table made and freed
    // each pass cost a third of the time in page faults.
    let mut tables: Vec<Vec<u32>> = Vec::new();
    // The pairs of a long sequence are counted in a sample of its blocks,
    // rewritten pass by pass as the sequence is; a pair seen there is
    // worth a rule at the count that stands for `MIN_PAIR_COUNT` in all,
    // or at 2 (a sample of one block in more than 12 asks more).
    let (mut sample, min_count) = match sampled_blocks(seq, counted) {
        Some((sample, every)) => (Some(sample), MIN_PAIR_COUNT.div_ceil(every).max(2)),
        None => (None, MIN_PAIR_COUNT),
    };
    loop {
        let counted: &[u16] = sample.as_deref().unwrap_or(seq);
        if lens.len() >= max_symbols || counted.len() <= 1 {
            break;
        }
        let symbols = lens.len();
        let bounds = pieces(counted);
        tables.resize_with(bounds.len() - 1, || vec![0u32; MAX_SYMBOLS * MAX_SYMBOLS]);
        count_pairs(counted, &bounds, symbols, &mut tables);
        let (counts, others) = tables.split_first_mut().expect("one piece at least");
        let mut best: Vec<(u32, usize)> = Vec::new();
        for (i, count) in counts[..symbols * symbols].iter_mut().enumerate() {
            for other in others.iter_mut() {
                *count = count.saturating_add(std::mem::take(&mut other[i]));
            }
            if *count >= min_count {
                best.push((*count, i));
            }
            *count = 0;
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
            .map(|&(_, i)| (i / symbols) * MAX_SYMBOLS + i % symbols)
            .collect();
        chosen_pairs.clear();
        for &i in &chosen {
            let (a, b) = (i / MAX_SYMBOLS, i % MAX_SYMBOLS);
            chosen_pairs.insert(a, b, lens.len() as u16);
            pairs.push([a as u16, b as u16]);
            lens.push(lens[a] + lens[b]);
        }
        if let Some(sample) = &mut sample {
            replace_pairs(sample, &pieces(sample), &chosen_pairs);
        }
        replace_pairs(seq, &pieces(seq), &chosen_pairs);
    }
    pairs
}

/// Every so many blocks of `seq`, at most about `most` symbols in all, and
/// how many blocks one kept stands for; `None` when `seq` is no longer
/// than that.
fn sampled_blocks(seq: &[u16], most: usize) -> Option<(Vec<u16>, u32)> {
    if seq.len() <= most {
        return None;
    }
    let every = seq.len().div_ceil(most);
    let mut sample = Vec::with_capacity(most);
    let (mut block, mut kept) = (0usize, false);
    for &symbol in seq {
        if symbol & BLOCK_START != 0 {
            kept = block.is_multiple_of(every);
            block += 1;
        }
        if kept {
            sample.push(symbol);
        }
    }
    Some((sample, every as u32))
}

/// Where `seq` splits into about one piece per thread (at most four: each
/// counts into a table of its own, 64 MiB), each beginning at a block's
/// start: the bounds, 0 first and the length last.
fn pieces(seq: &[u16]) -> Vec<usize> {
    let parts = rayon::current_num_threads().clamp(1, 4);
    let mut bounds = vec![0];
    for t in 1..parts {
        let mut at = seq.len() * t / parts;
        while at < seq.len() && seq[at] & BLOCK_START == 0 {
            at += 1;
        }
        if at < seq.len() && at > *bounds.last().expect("0 first") {
            bounds.push(at);
        }
    }
    bounds.push(seq.len());
    bounds
}

/// Counts, into the piece's table (zero before), how often each pair of
/// symbols follows within a block: `a * symbols + b` counts `b` after `a`.
fn count_pairs(seq: &[u16], bounds: &[usize], symbols: usize, tables: &mut [Vec<u32>]) {
    tables
        .par_iter_mut()
        .zip(bounds.par_windows(2))
        .for_each(|(counts, w)| {
            for pair in seq[w[0]..w[1]].windows(2) {
                if pair[1] & BLOCK_START == 0 {
                    let i = (pair[0] & !BLOCK_START) as usize * symbols + pair[1] as usize;
                    counts[i] = counts[i].saturating_add(1);
                }
            }
        });
}

/// The pairs one pass adds, each with its symbol, looked up by a row per
/// left symbol: a few hundred kilobytes that stay in the cache, where a
/// table of every pair (32 MiB) made the rewriting wait on memory.
#[derive(Default)]
struct ChosenPairs {
    /// Per symbol, the row of the pairs it is the left of (0: none).
    row_of_left: Vec<u8>,
    /// Per row, the symbol of each pair by its right symbol (0: none); row
    /// 0 all zeros, so that a symbol is looked up without a branch.
    rows: Vec<u16>,
}

impl ChosenPairs {
    fn clear(&mut self) {
        self.row_of_left.clear();
        self.row_of_left.resize(MAX_SYMBOLS, 0);
        self.rows.clear();
        self.rows.resize(MAX_SYMBOLS, 0);
    }

    fn insert(&mut self, left: usize, right: usize, symbol: u16) {
        if self.row_of_left[left] == 0 {
            self.row_of_left[left] =
                u8::try_from(self.rows.len() / MAX_SYMBOLS).expect("at most 255 rows a pass");
            self.rows.resize(self.rows.len() + MAX_SYMBOLS, 0);
        }
        let row = self.row_of_left[left] as usize;
        self.rows[row * MAX_SYMBOLS + right] = symbol;
    }

    /// The symbol of the pair `left`, `right` as the sequence has them
    /// (0 when it is not one, or when `right` begins a block).
    #[inline]
    fn symbol(&self, left: u16, right: u16) -> u16 {
        let row = self.row_of_left[(left & !BLOCK_START) as usize] as usize;
        let symbol = self.rows[row * MAX_SYMBOLS + (right & !BLOCK_START) as usize];
        if right & BLOCK_START == 0 { symbol } else { 0 }
    }
}

/// Replaces, left to right within each piece, each pair that has a symbol
/// in `chosen`, then closes the gaps.
fn replace_pairs(seq: &mut Vec<u16>, bounds: &[usize], chosen: &ChosenPairs) {
    let mut slices = Vec::with_capacity(bounds.len());
    let mut rest: &mut [u16] = seq;
    for w in bounds.windows(2) {
        let (piece, tail) = rest.split_at_mut(w[1] - w[0]);
        slices.push(piece);
        rest = tail;
    }
    let kept: Vec<usize> = slices
        .into_par_iter()
        .map(|piece| replace_in(piece, chosen))
        .collect();
    let mut write = 0;
    for (w, kept) in bounds.windows(2).zip(kept) {
        seq.copy_within(w[0]..w[0] + kept, write);
        write += kept;
    }
    seq.truncate(write);
}

/// Replaces, left to right, each pair of `stretch` (whole blocks) that has
/// a symbol in `chosen`, moving the rest down: the new length. One branch a
/// symbol, on whether its pair is replaced (see [`ChosenPairs::symbol`]).
fn replace_in(stretch: &mut [u16], chosen: &ChosenPairs) -> usize {
    let (mut read, mut write) = (0, 0);
    while read + 1 < stretch.len() {
        let here = stretch[read];
        let symbol = chosen.symbol(here, stretch[read + 1]);
        if symbol != 0 {
            stretch[write] = symbol | (here & BLOCK_START);
            read += 2;
        } else {
            stretch[write] = here;
            read += 1;
        }
        write += 1;
    }
    if read < stretch.len() {
        stretch[write] = stretch[read];
        write += 1;
    }
    write
}
