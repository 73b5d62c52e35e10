//! Counting and ranking point sets: binomials, colex ranks of a subset among
//! the free points (BMI2 `pext`/`pdep` where the processor has them), and
//! walking subsets in rank order. The index is built from these.

use std::sync::LazyLock;

use crate::rules::Bitboard;

/// Binomial coefficients up to 32, computed when the program is built: a
/// plain table, no check of a lazy one on each use in the inner loops.
static BINOMIAL: [[u64; 33]; 33] = pascal();

const fn pascal() -> [[u64; 33]; 33] {
    let mut c = [[0u64; 33]; 33];
    let mut n = 0;
    while n < 33 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + c[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    c
}

/// `n` choose `k`.
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n { 0 } else { BINOMIAL[n][k] }
}

/// Rank of `set` among the subsets of its size of `free`, in colex order:
/// the points of `free` are numbered from 0 upwards and the rank is the sum of
/// `C(position, i + 1)` over the set's points in increasing order.
#[inline]
pub(crate) fn colex_rank(set: Bitboard, free: Bitboard) -> u64 {
    combination_rank(Bitboard(compress(set.0, free.0)))
}

/// The bits of `bits` at the points of `mask`, packed to the low end (BMI2's
/// `pext` where the processor has it).
#[inline]
pub(super) fn compress(bits: u32, mask: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: the processor supports BMI2.
        return unsafe { pext(bits, mask) };
    }
    let (mut out, mut rest, mut slot) = (0, mask, 0);
    while rest != 0 {
        let p = rest.trailing_zeros();
        out |= (bits >> p & 1) << slot;
        slot += 1;
        rest &= rest - 1;
    }
    out
}

/// Whether the processor has BMI2: known when the program is built for it
/// (as `.cargo/config.toml` builds for the building processor), else asked once.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn has_bmi2() -> bool {
    static DETECTED: LazyLock<bool> = LazyLock::new(|| is_x86_feature_detected!("bmi2"));
    cfg!(target_feature = "bmi2") || *DETECTED
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
pub(super) unsafe fn pext(bits: u32, mask: u32) -> u32 {
    std::arch::x86_64::_pext_u32(bits, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
pub(super) unsafe fn pdep(bits: u32, mask: u32) -> u32 {
    std::arch::x86_64::_pdep_u32(bits, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
pub(super) unsafe fn pdep64(bits: u64, mask: u64) -> u64 {
    std::arch::x86_64::_pdep_u64(bits, mask)
}

/// For each byte of a set of up to 24 points and each number of points below
/// that byte, the byte's share of the combination rank (computed when the
/// program is built, as [`BINOMIAL`]).
static RANK_BY_BYTE: [[[u32; 256]; 25]; 3] = rank_by_byte();

const fn rank_by_byte() -> [[[u32; 256]; 25]; 3] {
    let mut table = [[[0u32; 256]; 25]; 3];
    let mut place = 0;
    while place < 3 {
        let mut below = 0;
        while below < 25 {
            let mut byte = 0;
            while byte < 256 {
                let (mut k, mut bit, mut share) = (below + 1, 0, 0u64);
                while bit < 8 {
                    if byte >> bit & 1 == 1 {
                        let n = place * 8 + bit;
                        if k <= n {
                            share += BINOMIAL[n][k];
                        }
                        k += 1;
                    }
                    bit += 1;
                }
                table[place][below][byte] = share as u32;
                byte += 1;
            }
            below += 1;
        }
        place += 1;
    }
    table
}

/// Colex rank of `set` among the subsets of its size of all points: the
/// special case of [`colex_rank`] with every point free.
#[inline]
pub(super) fn combination_rank(set: Bitboard) -> u64 {
    let bits = set.0;
    if bits >> 24 != 0 {
        return combination_rank_by_bits(bits);
    }
    let table = &RANK_BY_BYTE;
    let (b0, b1, b2) = (bits & 255, bits >> 8 & 255, bits >> 16);
    let c1 = b0.count_ones() as usize;
    let c2 = c1 + b1.count_ones() as usize;
    (table[0][0][b0 as usize] + table[1][c1][b1 as usize] + table[2][c2][b2 as usize]) as u64
}

/// [`combination_rank`] one point at a time, for boards past 24 points.
pub(super) fn combination_rank_by_bits(mut bits: u32) -> u64 {
    let mut rank = 0;
    let mut k = 1;
    while bits != 0 {
        rank += BINOMIAL[bits.trailing_zeros() as usize][k];
        k += 1;
        bits &= bits - 1;
    }
    rank
}

/// The subset of `free` with `count` points and colex rank `rank`.
#[inline]
pub(super) fn colex_unrank(mut rank: u64, count: usize, free: Bitboard) -> Bitboard {
    let mut bits = 0u32;
    let mut top = free.count() as usize;
    for k in (1..=count).rev() {
        // The largest position whose binomial does not exceed the rank.
        let mut c = top - 1;
        while BINOMIAL[c][k] > rank {
            c -= 1;
        }
        rank -= BINOMIAL[c][k];
        bits |= 1 << c;
        top = c;
    }
    expand(bits, free)
}

/// The position of the `n`-th (from 0) set bit of `bits`.
#[inline]
pub(super) fn select_bit(bits: u64, n: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: the processor supports BMI2.
        return unsafe { pdep64(1 << n, bits) }.trailing_zeros();
    }
    let mut rest = bits;
    for _ in 0..n {
        rest &= rest - 1;
    }
    rest.trailing_zeros()
}

/// Calls `f` with the `size`-point subsets of the first `points` points whose
/// colex ranks are in `ranks`, in that order.
pub fn for_each_subset(
    points: usize,
    size: usize,
    ranks: std::ops::Range<u64>,
    mut f: impl FnMut(Bitboard),
) {
    let end = ranks.end.min(binomial(points, size));
    if ranks.start >= end {
        return;
    }
    let mut set = compress_unrank(ranks.start, size);
    for _ in ranks.start..end {
        f(Bitboard(set));
        set = next_combination(set);
    }
}

/// The set with colex rank `rank` among `count`-subsets of `0..32`, as bits.
pub(super) fn compress_unrank(rank: u64, count: usize) -> u32 {
    colex_unrank(rank, count, Bitboard::first(32)).0
}

/// The next larger integer with the same number of set bits (Gosper's hack).
#[inline]
pub(super) fn next_combination(x: u32) -> u32 {
    if x == 0 {
        return 0;
    }
    let c = x & x.wrapping_neg();
    let r = x.wrapping_add(c);
    if r == 0 {
        return 0;
    }
    (((r ^ x) >> 2) / c) | r
}

/// Deposits the low bits of `bits` on the points of `free`, in order (BMI2's
/// `pdep` where the processor has it).
#[inline]
pub(super) fn expand(mut bits: u32, free: Bitboard) -> Bitboard {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: the processor supports BMI2.
        return Bitboard(unsafe { pdep(bits, free.0) });
    }
    let mut out = 0;
    let mut slots = free.0;
    while bits != 0 && slots != 0 {
        let slot = slots & slots.wrapping_neg();
        if bits & 1 != 0 {
            out |= slot;
        }
        bits >>= 1;
        slots ^= slot;
    }
    Bitboard(out)
}
