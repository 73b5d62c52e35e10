//! What other codings of a sector's loss bits (the `pack --wdl` codes)
//! would cost, on every `EVERY`-th block of 131,072 positions of a raw
//! folder: zstd's size and speed by level; the order-0 and order-1 byte
//! entropies and the entropy of the runs of equal bits (what a static coder
//! without zstd's matches could reach); and zstd over smaller blocks, with
//! and without a dictionary trained on other blocks of the sector, with the
//! time to decode one (what a probe pays per block it reads). A
//! measurement for the README's packing section, not part of the format:
//!
//!     cargo bench --bench codec_probe -- ../dbs/standard 8-9 40
//!
//! `ONLY_LEVELS=1` stops after the levels.

use std::path::Path;
use std::time::Instant;

use morris::db::{SectorFile, Value, file_name};
use morris::index::SectorKey;

const PER_BLOCK: usize = 131_072;

fn lost_bits(file: &SectorFile, bytes: &[u8], range: std::ops::Range<usize>) -> Vec<u8> {
    let mut out = vec![0u8; range.len().div_ceil(8)];
    for (k, i) in range.enumerate() {
        let b = bytes[i];
        let lost = match b {
            255 => false,
            254 => matches!(file.value(i as u64).unwrap(), Value::Loss(_)),
            n => n % 2 == 0,
        };
        if lost {
            out[k / 8] |= 1 << (k % 8);
        }
    }
    out
}

fn entropy(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / total as f64;
            -(c as f64) * p.log2()
        })
        .sum()
}

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let [_, dir, sector, every] = &args[..] else {
        eprintln!("usage: codec_probe DIR SECTOR EVERY (a raw standard folder)");
        std::process::exit(2);
    };
    let key: SectorKey = sector.parse().unwrap();
    let every: usize = every.parse().unwrap();
    let file = SectorFile::open(&Path::new(dir).join(file_name(key)), false).unwrap();
    let bytes = file.bytes().unwrap();
    let size = bytes.len();
    let blocks: Vec<Vec<u8>> = (0..size.div_ceil(PER_BLOCK))
        .step_by(every)
        .map(|b| lost_bits(&file, bytes, b * PER_BLOCK..((b + 1) * PER_BLOCK).min(size)))
        .collect();
    // Training blocks: the ones just after the sampled ones.
    let training: Vec<Vec<u8>> = (0..size.div_ceil(PER_BLOCK))
        .skip(every / 2)
        .step_by(every)
        .map(|b| lost_bits(&file, bytes, b * PER_BLOCK..((b + 1) * PER_BLOCK).min(size)))
        .collect();
    let total_bytes: usize = blocks.iter().map(Vec::len).sum();
    let positions = total_bytes as f64 * 8.0;
    let bits = |n: usize| 8.0 * n as f64 / positions;
    let base: usize = blocks
        .iter()
        .map(|b| zstd::bulk::compress(b, 12).unwrap().len())
        .sum();
    println!(
        "{key}: {} blocks, zstd12 16KiB {:.4} bits",
        blocks.len(),
        bits(base)
    );
    for level in [12, 14, 16, 19] {
        let started = Instant::now();
        let n: usize = blocks
            .iter()
            .map(|b| zstd::bulk::compress(b, level).unwrap().len())
            .sum();
        let mb = total_bytes as f64 / 1e6 / started.elapsed().as_secs_f64();
        println!("  level {level}: {:.4} bits, {mb:.1} MB/s", bits(n));
    }
    if std::env::var("ONLY_LEVELS").is_ok() {
        return;
    }
    let mut counts = vec![0u64; 256];
    for b in &blocks {
        for &x in b {
            counts[x as usize] += 1;
        }
    }
    println!(
        "  order-0 byte entropy {:.4} bits",
        entropy(&counts) / positions
    );
    let mut c1 = vec![vec![0u64; 256]; 256];
    for b in &blocks {
        for w in b.windows(2) {
            c1[w[0] as usize][w[1] as usize] += 1;
        }
    }
    let h1: f64 = c1.iter().map(|c| entropy(c)).sum();
    println!("  order-1 byte entropy {:.4} bits", h1 / positions);
    let mut ctx = vec![vec![0u64; 256]; 3];
    for b in &blocks {
        let mut prev = 0u8;
        for &x in b {
            let c = match prev {
                0 => 0,
                255 => 1,
                _ => 2,
            };
            ctx[c][x as usize] += 1;
            prev = x;
        }
    }
    let hc: f64 = ctx.iter().map(|c| entropy(c)).sum();
    println!(
        "  byte entropy, context prev class 0/ff/other {:.4} bits",
        hc / positions
    );
    // Runs of equal bits, lengths capped at 4096 (a longer run continues).
    let mut runs = [vec![0u64; 4097], vec![0u64; 4097]];
    let mut nruns = 0u64;
    for b in &blocks {
        let mut cur = b[0] & 1;
        let mut len = 0usize;
        for k in 0..b.len() * 8 {
            let bit = (b[k / 8] >> (k % 8)) & 1;
            if bit == cur && len < 4096 {
                len += 1;
            } else {
                runs[cur as usize][len] += 1;
                nruns += 1;
                cur = bit;
                len = 1;
            }
        }
        runs[cur as usize][len] += 1;
        nruns += 1;
    }
    // Lengths coded as Elias-gamma bucket (entropy-coded) plus raw low bits.
    let mut hr = 0.0;
    for r in &runs {
        let mut buckets = vec![0u64; 14];
        let mut raw = 0.0;
        for (len, &c) in r.iter().enumerate().skip(1) {
            let k = 63 - (len as u64).leading_zeros() as usize;
            buckets[k] += c;
            raw += (k as f64) * c as f64;
        }
        hr += entropy(&buckets) + raw;
        let exact = entropy(r);
        println!(
            "    runs exact-length entropy {:.4} bits",
            exact / positions
        );
    }
    println!(
        "  runs: {:.1} positions per run, gamma-bucket coding {:.4} bits",
        positions / nruns as f64,
        hr / positions
    );
    for chunk in [256usize, 512, 1024, 2048] {
        let plain: usize = blocks
            .iter()
            .flat_map(|b| b.chunks(chunk))
            .map(|c| zstd::bulk::compress(c, 12).unwrap().len())
            .sum();
        let samples: Vec<&[u8]> = training.iter().flat_map(|b| b.chunks(chunk)).collect();
        let sizes: Vec<usize> = samples.iter().map(|s| s.len()).collect();
        let flat: Vec<u8> = samples.concat();
        for dict_size in [16 << 10, 64 << 10] {
            let dict = zstd::dict::from_continuous(&flat, &sizes, dict_size).unwrap();
            let mut comp = zstd::bulk::Compressor::with_dictionary(12, &dict).unwrap();
            let packed: Vec<(Vec<u8>, usize)> = blocks
                .iter()
                .flat_map(|b| b.chunks(chunk))
                .map(|c| (comp.compress(c).unwrap(), c.len()))
                .collect();
            let with: usize = packed.iter().map(|p| p.0.len()).sum();
            let ddict = zstd::dict::DecoderDictionary::copy(&dict);
            let mut dec = zstd::bulk::Decompressor::with_prepared_dictionary(&ddict).unwrap();
            let started = Instant::now();
            let mut sum = 0usize;
            for (p, len) in &packed {
                sum += dec.decompress(p, *len).unwrap()[0] as usize;
            }
            let per = started.elapsed().as_secs_f64() / packed.len() as f64;
            println!(
                "  {chunk} B blocks: plain {:.4} bits; dict {} KiB {:.4} bits, decode {:.2} us ({sum})",
                bits(plain),
                dict_size >> 10,
                bits(with),
                per * 1e6
            );
        }
    }
}
