//! One sector's file: written whole under a temporary name and renamed when
//! complete, read back through a memory map.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{Advice, Mmap};

use super::format::{
    BLOCK_CHECKSUM_LEN, FormatError, HEADER_LEN, Header, OVERFLOW_ENTRY_LEN, overflow_entry,
};
use super::value::Value;
use crate::index::SectorKey;

/// File name of a sector's database.
pub fn file_name(sector: SectorKey) -> String {
    format!("{sector}.mdb")
}

/// Writes a sector file: `values` yields one byte per index in order, and
/// `overflow` the `(index, plies)` of escaped values in ascending order. The
/// file appears under its final name only once complete and synced, so an
/// interruption never leaves a file that passes as finished.
///
/// # Errors
/// Any I/O error.
pub fn write_sector(
    dir: &Path,
    mut header: Header,
    values: impl FnOnce(&mut dyn FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()>,
    overflow: &[(u64, u32)],
) -> std::io::Result<PathBuf> {
    let final_path = dir.join(file_name(header.sector));
    let temp_path = dir.join(format!("{}.tmp", file_name(header.sector)));
    let file = File::create(&temp_path)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&[0u8; HEADER_LEN])?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut written = 0u64;
    // Block checksums: each block's hasher is fed as the bytes stream by.
    let mut block_sums: Vec<u64> = Vec::with_capacity(header.blocks() as usize);
    let mut block = xxhash_rust::xxh3::Xxh3::new();
    let block_len = 1u64 << header.block_bits;
    values(&mut |mut chunk: &[u8]| {
        hasher.update(chunk);
        out.write_all(chunk)?;
        while !chunk.is_empty() {
            let room = (block_len - written % block_len) as usize;
            let (now, rest) = chunk.split_at(room.min(chunk.len()));
            block.update(now);
            written += now.len() as u64;
            if written.is_multiple_of(block_len) {
                block_sums.push(block.digest());
                block.reset();
            }
            chunk = rest;
        }
        Ok(())
    })?;
    assert_eq!(written, header.positions, "one value byte per position");
    if !written.is_multiple_of(block_len) {
        block_sums.push(block.digest());
    }
    let mut overflow_hasher = xxhash_rust::xxh3::Xxh3::new();
    for &(index, plies) in overflow {
        let mut e = [0u8; OVERFLOW_ENTRY_LEN];
        e[0..8].copy_from_slice(&index.to_le_bytes());
        e[8..12].copy_from_slice(&plies.to_le_bytes());
        hasher.update(&e);
        overflow_hasher.update(&e);
        out.write_all(&e)?;
    }
    for sum in &block_sums {
        hasher.update(&sum.to_le_bytes());
        out.write_all(&sum.to_le_bytes())?;
    }
    header.overflow_entries = overflow.len() as u64;
    header.overflow_checksum = overflow_hasher.digest();
    header.checksum = hasher.digest();
    let mut file = out.into_inner().map_err(|e| e.into_error())?;
    use std::io::Seek;
    file.seek(std::io::SeekFrom::Start(0))?;
    file.write_all(&header.to_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp_path, &final_path)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(final_path)
}

/// Asks the system to start reading `ranges` (offset, length) of the file
/// at `path`, so that reads the program will need one after the other go to
/// the disk together. Only advice: errors are ignored.
pub fn read_ahead(path: &Path, ranges: &[(u64, u64)]) {
    let Ok(file) = File::open(path) else { return };
    // SAFETY: the map is only advised, never read.
    let Ok(map) = (unsafe { Mmap::map(&file) }) else {
        return;
    };
    for &(offset, len) in ranges {
        let end = (offset.saturating_add(len)).min(map.len() as u64);
        if offset < end {
            let _ = map.advise_range(Advice::WillNeed, offset as usize, (end - offset) as usize);
        }
    }
}

/// A sector file mapped for reading. Each block of values is checked
/// against its checksum the first time a value in it is read.
pub struct SectorFile {
    pub header: Header,
    map: Mmap,
    /// One bit per block: checked and found intact.
    checked: Box<[AtomicU64]>,
}

/// Why a sector file could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Format { path: PathBuf, source: FormatError },
}

impl SectorFile {
    /// Maps a file and checks its header and length (not its checksum: see
    /// [`SectorFile::verify_checksum`]).
    ///
    /// # Errors
    /// I/O errors, and [`FormatError`] for a file that is not a complete
    /// sector file.
    pub fn open(path: &Path) -> Result<SectorFile, OpenError> {
        SectorFile::open_with(path, false)
    }

    /// [`SectorFile::open`], telling the system when reads will be scattered
    /// (probes): each page fault then reads its page, not megabytes around it.
    ///
    /// # Errors
    /// As [`SectorFile::open`].
    pub fn open_with(path: &Path, scattered: bool) -> Result<SectorFile, OpenError> {
        let io = |source| OpenError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        // SAFETY: database files are written once under a temporary name and
        // renamed into place; the program never modifies a finished file, and
        // we assume no other process does while it is mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        if scattered {
            let _ = map.advise(Advice::Random);
        }
        let format = |source| OpenError::Format {
            path: path.to_path_buf(),
            source,
        };
        let header = Header::parse(&map, len).map_err(format)?;
        let checked = (0..header.blocks().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        let file = SectorFile {
            header,
            map,
            checked,
        };
        if xxhash_rust::xxh3::xxh3_64(file.overflow_table()) != file.header.overflow_checksum {
            return Err(format(FormatError::Checksum));
        }
        Ok(file)
    }

    /// True when the body matches the header's checksum.
    pub fn verify_checksum(&self) -> Result<(), FormatError> {
        let digest = xxhash_rust::xxh3::xxh3_64(&self.map[HEADER_LEN..]);
        if digest == self.header.checksum {
            Ok(())
        } else {
            Err(FormatError::Checksum)
        }
    }

    /// The value bytes, one per index.
    pub fn bytes(&self) -> &[u8] {
        &self.map[HEADER_LEN..HEADER_LEN + self.header.positions as usize]
    }

    fn overflow_table(&self) -> &[u8] {
        let start = HEADER_LEN + self.header.positions as usize;
        &self.map[start..start + self.header.overflow_entries as usize * OVERFLOW_ENTRY_LEN]
    }

    /// Checks the block holding `index` once; later calls cost one load.
    #[inline]
    fn check_block(&self, index: u64) -> Result<(), FormatError> {
        let bits = self.header.block_bits;
        let block = index >> bits;
        let (word, bit) = ((block / 64) as usize, 1u64 << (block % 64));
        if self.checked[word].load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = (block << bits) as usize;
        let end = (start + (1 << bits)).min(self.header.positions as usize);
        let table = self.map.len() - self.header.blocks() as usize * BLOCK_CHECKSUM_LEN;
        let at = table + block as usize * BLOCK_CHECKSUM_LEN;
        // The block's pages and its checksum's are read together, not one
        // after the other, when reads are scattered.
        let _ = self
            .map
            .advise_range(Advice::WillNeed, HEADER_LEN + start, end - start);
        let _ = self
            .map
            .advise_range(Advice::WillNeed, at, BLOCK_CHECKSUM_LEN);
        let stored = u64::from_le_bytes(self.map[at..at + BLOCK_CHECKSUM_LEN].try_into().unwrap());
        if xxhash_rust::xxh3::xxh3_64(&self.bytes()[start..end]) != stored {
            return Err(FormatError::Checksum);
        }
        self.checked[word].fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    /// The value at `index`.
    ///
    /// # Errors
    /// When an escaped value is missing from the overflow table (a corrupted file).
    #[inline]
    pub fn value(&self, index: u64) -> Result<Value, FormatError> {
        if index >= self.header.positions {
            return Err(FormatError::Header("index past the end"));
        }
        self.check_block(index)?;
        let byte = self.bytes()[index as usize];
        match Value::from_byte(byte) {
            Some(v) => Ok(v),
            None => self.overflow_value(index),
        }
    }

    fn overflow_value(&self, index: u64) -> Result<Value, FormatError> {
        let table = self.overflow_table();
        let n = table.len() / OVERFLOW_ENTRY_LEN;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (i, plies) = overflow_entry(table, mid);
            if i == index {
                return u16::try_from(plies)
                    .map(Value::from_plies)
                    .map_err(|_| FormatError::Header("overflow distance out of range"));
            }
            if i < index { lo = mid + 1 } else { hi = mid }
        }
        Err(FormatError::Header(
            "escaped value missing from the overflow table",
        ))
    }
}
