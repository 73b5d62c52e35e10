//! `pack`: a packed copy of a solved folder (format 4: pair-coded blocks,
//! or with --zstd format 3: zstd blocks), every
//! value or win/draw/loss only, the losses or plain, with the size of each
//! sector and of all. Resumable: sectors already packed (their file opens
//! as the encoding asked for and passes its header's checks) are kept.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};

use morris::Tablebase;
use morris::index::{SectorGraph, SectorKey};
use morris::verify::decoded::Decoded;

use super::PackHow;
use morris::db::{
    Coder, Encoding, PACKED_BLOCK_BYTES_BITS, PAIR_BLOCK_BITS, SectorFile, copy_stored_index,
    file_name, folder_storage, raw_file_len, sector_files, write_packed_checked,
};

pub fn pack(out: &mut dyn Write, source: &Tablebase, target: &Path, how: &PackHow) -> Result<()> {
    let (wdl_only, plain) = (how.wdl, how.plain);
    let coder = how.coder();
    let started = Instant::now();
    let variant = source.variant();
    let encoding = Encoding::packed(variant, wdl_only, plain);
    let sectors = sector_files(source.dir())?;
    if sectors.is_empty() {
        bail!("{} holds no sector file to pack", source.dir().display());
    }
    // A packed folder of losses (the default) or loss bits is decoded a
    // sector at a time (each value from the packed files, as a probe reads
    // it) and packed again.
    let block_bits = match coder {
        Coder::Pairs => PAIR_BLOCK_BITS,
        Coder::Zstd { block_bytes_bits } => {
            encoding.block_bits() + block_bytes_bits - PACKED_BLOCK_BYTES_BITS
        }
    };
    let packed_already = |sector: SectorKey| {
        SectorFile::open(&target.join(file_name(sector)), false).is_ok_and(|f| {
            f.is_packed()
                && f.header.encoding().as_requested() == encoding
                && f.header.block_bits() == block_bits
                && f.header.is_pair_coded() == (coder == Coder::Pairs)
        })
    };
    let mut decoded = None;
    if folder_storage(source.dir()).is_packed() {
        check_repackable(source, &encoding)?;
        let to_decode = |s: SectorKey| !packed_already(s);
        Decoded::refuse_without_room(Decoded::room_needed(source, &sectors, to_decode, true))?;
        decoded = Some(Decoded::new(source)?);
    }
    if encoding.wdl_only() && variant.n_move.is_some() {
        bail!(
            "{} holds values under the move-count rule: a value there depends on its plies to the next mill, so it cannot be packed win/draw/loss only (pack it without --wdl)",
            source.dir().display()
        );
    }
    let packed = Tablebase::create_packed(target, variant, encoding)?.marking_draws_like(source)?;
    writeln!(
        out,
        "{:<10} {:>13} {:>13} {:>13} {:>8}",
        "sector", "positions", "raw bytes", "packed bytes", "bits/pos"
    )?;
    let (mut positions, mut raw_total, mut packed_total) = (0u64, 0u64, 0u64);
    for &sector in &sectors {
        let path = target.join(file_name(sector));
        // Packed already (a resumed pack): read, not decoded again.
        let n = if packed_already(sector) {
            SectorFile::open(&path, false)?.header.positions()
        } else {
            let raw = match decoded.as_mut() {
                Some(d) => d.raw_sector(sector)?,
                None => source.sector(sector)?,
            };
            // Lossless, checked: every value read back equals the raw one.
            write_packed_checked(target, &raw, encoding, variant, coder)?;
            let n = raw.header.positions();
            if let Some(d) = decoded.as_mut() {
                drop(raw);
                d.forget(sector);
            }
            n
        };
        // The stored index is copied as it is.
        copy_stored_index(source.dir(), target, sector)?;
        let raw_bytes = match decoded {
            Some(_) => raw_file_len(variant, sector, n),
            None => std::fs::metadata(source.path(sector))?.len(),
        };
        let packed_bytes = std::fs::metadata(&path)?.len();
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

/// Whether a packed folder can be packed again as asked: one of losses or
/// loss bits (decoded by a one-ply search), without the move-count rule,
/// and with plies if plies are asked for.
fn check_repackable(source: &Tablebase, encoding: &Encoding) -> Result<()> {
    let dir = source.dir().display();
    if source.variant().n_move.is_some() {
        bail!("{dir} is packed under the move-count rule: pack its folder of raw files");
    }
    if source.is_wdl_only() && !encoding.wdl_only() {
        bail!(
            "{dir} holds win, draw or loss only: it has no plies to pack (pack it with --plain --wdl, or pack its folder of raw files)"
        );
    }
    // Loss bits record the longest win, which loss bits cannot give.
    if source.is_wdl_only() && encoding.losses_only() {
        bail!(
            "{dir} holds loss bits already, and loss bits packed again would lose the longest win they record: pack it with --plain --wdl, or pack its folder of raw files"
        );
    }
    let graph = SectorGraph::reachable(source.variant());
    for sector in sector_files(source.dir())? {
        let read = graph.successors(sector).iter();
        if let Some(lacking) = read.copied().find(|c| !source.has_sector(*c)) {
            bail!(
                "{dir} lacks {lacking}, which {sector} reads: a packed folder is packed again whole (finish the solve that packs it first)"
            );
        }
        if !Decoded::applies(source, sector)? {
            bail!(
                "{dir} holds {sector} packed with plain values or predicted loss bits: only a folder of losses (the default packing) or of loss bits (--wdl) is packed again; pack its folder of raw files"
            );
        }
    }
    Ok(())
}
