//! Two-bit win/draw/loss codes (what `pack --plain --wdl` stores: one read
//! per probe, no search) in zstd blocks of 512 bytes to 16 KiB, from every
//! `EVERY`-th region of 65,536 positions of a raw folder's sectors: bits per
//! position and the time to decode one block picked at random. A
//! measurement for the README, not part of the format:
//!
//!     cargo bench --bench block_probe -- ../dbs/standard 40 8-9 6-6

use std::path::Path;
use std::time::Instant;

use morris::db::{SectorFile, Value, Wdl, file_name};
use morris::index::SectorKey;

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let dir = Path::new(&args[1]);
    let every: usize = args[2].parse().unwrap();
    for sector in &args[3..] {
        let key: SectorKey = sector.parse().unwrap();
        let file = SectorFile::open(&dir.join(file_name(key)), false).unwrap();
        let bytes = file.bytes().unwrap();
        // Regions of 65,536 positions (16 KiB of codes), every EVERY-th.
        let region = 65_536usize;
        let mut codes: Vec<u8> = Vec::new();
        let mut positions = 0usize;
        for start in (0..bytes.len()).step_by(region * every) {
            let end = (start + region).min(bytes.len());
            let mut packed = vec![0u8; (end - start).div_ceil(4)];
            for i in start..end {
                let v = Value::from_byte(bytes[i]).unwrap_or_else(|| file.value(i as u64).unwrap());
                packed[(i - start) / 4] |= Wdl::of(v).code() << (2 * ((i - start) % 4));
            }
            positions += end - start;
            codes.extend_from_slice(&packed);
        }
        print!("{sector} ({positions} positions sampled):");
        for block in [512usize, 1024, 2048, 4096, 16384] {
            for level in [19] {
                let blocks: Vec<(Vec<u8>, usize)> = codes
                    .chunks(block)
                    .map(|c| (zstd::bulk::compress(c, level).unwrap(), c.len()))
                    .collect();
                let size: usize = blocks.iter().map(|b| b.0.len()).sum();
                let mut dec = zstd::bulk::Decompressor::new().unwrap();
                let mut out = vec![0u8; block];
                let started = Instant::now();
                let mut sum = 0usize;
                let mut k = 0usize;
                for _ in 0..blocks.len().max(20_000) {
                    k = (k + 7919) % blocks.len();
                    let (b, len) = &blocks[k];
                    let n = dec.decompress_to_buffer(b, &mut out[..*len]).unwrap();
                    sum += out[n / 2] as usize;
                }
                let per = started.elapsed().as_secs_f64() / blocks.len().max(20_000) as f64;
                print!(
                    "  {block} B L{level}: {:.4} bits, {:.2} us ({})",
                    size as f64 * 8.0 / positions as f64,
                    per * 1e6,
                    sum % 10
                );
            }
        }
        println!();
        // The same codes in small blocks with a dictionary trained on the
        // sector's own blocks (what a file would store once).
        for block in [256usize, 512, 1024] {
            for dict_size in [16usize << 10, 64 << 10] {
                let sizes: Vec<usize> = codes.chunks(block).map(|c| c.len()).collect();
                let Ok(dict) = zstd::dict::from_continuous(&codes, &sizes, dict_size) else {
                    print!("  {block} B dict {}K: no dictionary", dict_size >> 10);
                    continue;
                };
                let mut comp = zstd::bulk::Compressor::with_dictionary(19, &dict).unwrap();
                let blocks: Vec<(Vec<u8>, usize)> = codes
                    .chunks(block)
                    .map(|c| (comp.compress(c).unwrap(), c.len()))
                    .collect();
                let size: usize = blocks.iter().map(|b| b.0.len()).sum::<usize>() + dict.len();
                let ddict = zstd::dict::DecoderDictionary::copy(&dict);
                let mut dec = zstd::bulk::Decompressor::with_prepared_dictionary(&ddict).unwrap();
                let mut out = vec![0u8; block];
                let started = Instant::now();
                let mut sum = 0usize;
                let mut k = 0usize;
                let n = blocks.len().max(50_000);
                for _ in 0..n {
                    k = (k + 7919) % blocks.len();
                    let (b, len) = &blocks[k];
                    let m = dec.decompress_to_buffer(b, &mut out[..*len]).unwrap();
                    sum += out[m / 2] as usize;
                }
                let per = started.elapsed().as_secs_f64() / n as f64;
                print!(
                    "  {block} B dict {}K: {:.4} bits, {:.2} us ({})",
                    dict_size >> 10,
                    size as f64 * 8.0 / positions as f64,
                    per * 1e6,
                    sum % 10
                );
            }
        }
        println!();
    }
}
