//! One sector's file: written whole under a temporary name and renamed when
//! complete, read back through a memory map.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::format::{FormatError, HEADER_LEN, Header, OVERFLOW_ENTRY_LEN, overflow_entry};
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
    values(&mut |chunk: &[u8]| {
        hasher.update(chunk);
        written += chunk.len() as u64;
        out.write_all(chunk)
    })?;
    assert_eq!(written, header.positions, "one value byte per position");
    for &(index, plies) in overflow {
        let mut e = [0u8; OVERFLOW_ENTRY_LEN];
        e[0..8].copy_from_slice(&index.to_le_bytes());
        e[8..12].copy_from_slice(&plies.to_le_bytes());
        hasher.update(&e);
        out.write_all(&e)?;
    }
    header.overflow_entries = overflow.len() as u64;
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

/// A sector file mapped for reading.
pub struct SectorFile {
    pub header: Header,
    map: Mmap,
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
        let header = Header::parse(&map, len).map_err(|source| OpenError::Format {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(SectorFile { header, map })
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
        &self.map[HEADER_LEN + self.header.positions as usize..]
    }

    /// The value at `index`.
    ///
    /// # Errors
    /// When an escaped value is missing from the overflow table (a corrupted file).
    #[inline]
    pub fn value(&self, index: u64) -> Result<Value, FormatError> {
        let byte = *self
            .bytes()
            .get(index as usize)
            .ok_or(FormatError::Header("index past the end"))?;
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
