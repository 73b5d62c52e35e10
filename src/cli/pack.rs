//! `pack`: a packed copy of a solved folder (format 4: pair-coded blocks,
//! or with --zstd format 3: zstd blocks), every
//! value or win/draw/loss only, the losses or plain, with the size of each
//! sector and of all. Resumable: sectors already packed (their file opens
//! as the encoding asked for and passes its header's checks) are kept.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use morris::Tablebase;

use super::PackHow;
use morris::db::{
    Coder, Encoding, PACKED_BLOCK_BYTES_BITS, PAIR_BLOCK_BITS, SectorFile, file_name,
    folder_storage, index_file_name, same_values, sector_files, write_packed_in_blocks,
};

pub fn pack(out: &mut dyn Write, source: &Tablebase, target: &Path, how: &PackHow) -> Result<()> {
    let (wdl_only, plain) = (how.wdl, how.plain);
    let coder = how.coder();
    let started = Instant::now();
    let variant = source.variant();
    let encoding = Encoding::packed(variant, wdl_only, plain);
    if encoding.wdl_only() && variant.n_move.is_some() {
        bail!(
            "{} holds values under the move-count rule: a value there depends on its plies to the next mill, so it cannot be packed win/draw/loss only (pack it without --wdl)",
            source.dir().display()
        );
    }
    if folder_storage(source.dir()).is_packed() {
        bail!(
            "{} is packed already: pack a folder of raw files",
            source.dir().display()
        );
    }
    let packed = Tablebase::create_packed(target, variant, encoding)?.marking_draws_like(source)?;
    let sectors = sector_files(source.dir())?;
    writeln!(
        out,
        "{:<10} {:>13} {:>13} {:>13} {:>8}",
        "sector", "positions", "raw bytes", "packed bytes", "bits/pos"
    )?;
    let (mut positions, mut raw_total, mut packed_total) = (0u64, 0u64, 0u64);
    for &sector in &sectors {
        let raw = source.sector(sector)?;
        let path = target.join(file_name(sector));
        let block_bits = match coder {
            Coder::Pairs => PAIR_BLOCK_BITS,
            Coder::Zstd { block_bytes_bits } => {
                encoding.block_bits() + block_bytes_bits - PACKED_BLOCK_BYTES_BITS
            }
        };
        let done = SectorFile::open(&path, false).is_ok_and(|f| {
            f.is_packed()
                && f.header.encoding().as_requested() == encoding
                && f.header.block_bits() == block_bits
                && f.header.is_pair_coded() == (coder == Coder::Pairs)
        });
        if !done {
            write_packed_in_blocks(target, &raw, encoding, variant, coder)?;
            // Lossless, checked: every value read back equals the raw one.
            same_values(&raw, &SectorFile::open(&path, false)?, variant)?;
        }
        // The stored index is copied as it is.
        let index = index_file_name(sector.us_board, sector.them_board);
        if !target.join(&index).exists() && source.dir().join(&index).exists() {
            std::fs::copy(source.dir().join(&index), target.join(&index))
                .with_context(|| format!("cannot copy {index}"))?;
        }
        let raw_bytes = std::fs::metadata(raw.path())?.len();
        let packed_bytes = std::fs::metadata(&path)?.len();
        let n = raw.header.positions();
        writeln!(
            out,
            "{:<10} {n:>13} {raw_bytes:>13} {packed_bytes:>13} {:>8.3}",
            sector.to_string(),
            packed_bytes as f64 * 8.0 / n.max(1) as f64
        )?;
        positions += n;
        raw_total += raw_bytes;
        packed_total += packed_bytes;
    }
    drop(packed);
    writeln!(
        out,
        "packed {} sectors, {positions} positions: {raw_total} bytes raw, {packed_total} packed ({:.3} bits per position, {:.1}x smaller) in {:.1} s; folder {}",
        sectors.len(),
        packed_total as f64 * 8.0 / positions.max(1) as f64,
        raw_total as f64 / packed_total.max(1) as f64,
        started.elapsed().as_secs_f64(),
        target.display()
    )?;
    Ok(())
}
