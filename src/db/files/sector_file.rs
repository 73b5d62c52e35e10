//! One sector's file: written whole under a temporary name and renamed when
//! complete, read back through a memory map whose blocks are checked on
//! first read.

use std::fs::{self, File};
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use super::encoding::Encoding;
use super::header::{HEADER_LEN, Header, OVERFLOW_ENTRY_LEN, overflow_entry};
use super::mapped::{BLOCK_CHECKSUM_LEN, CheckedMap};
use super::packed::{KeptBlocks, NOT_LOST, PackedBody, Wins};
use super::predictor::{Model, cell};
use crate::db::clock_value::{ClockValue, marked_plain};
use crate::db::error::FileError;
use crate::db::value::{ESCAPE_BYTE, LossMark, Value, Wdl};
use crate::index::SectorKey;
use crate::rules::{Position, Variant};

/// File name of a sector's database.
pub fn file_name(sector: SectorKey) -> String {
    format!("{sector}.mdb")
}

/// The temporary name a file is written under before it is renamed to
/// `path`, `NAME.tmp.HOST.PID`: the host and process keep writers of one
/// folder apart, on one machine or several sharing it.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".tmp.{}.{}",
        crate::system::host_name(),
        std::process::id()
    ));
    path.with_file_name(name)
}

/// Whether `name` is a temporary file of this program's writers.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.contains(".tmp")
}

/// Writes `path` through a temporary file: `fill` writes the contents and
/// returns the file (flushed). The file appears under its final name only
/// once complete and synced, so an interruption never leaves a file that
/// passes as finished; on an error the temporary file is removed, so a full
/// disk does not stay full.
pub(crate) fn write_atomically(
    path: &Path,
    fill: impl FnOnce(File) -> std::io::Result<File>,
) -> Result<(), FileError> {
    write_atomically_checked(path, fill, |_| Ok(()))
}

/// [`write_atomically`], `check` run on the complete temporary file before
/// it takes its final name: a file that fails it is removed, so no run
/// after an interruption finds it in place and takes it for checked.
pub(crate) fn write_atomically_checked(
    path: &Path,
    fill: impl FnOnce(File) -> std::io::Result<File>,
    check: impl FnOnce(&Path) -> Result<(), FileError>,
) -> Result<(), FileError> {
    let temp = temp_path(path);
    let written = File::create(&temp)
        .and_then(fill)
        .and_then(|file| file.sync_all());
    let checked = match written {
        Ok(()) => check(&temp),
        Err(source) => Err(FileError::Write {
            path: path.to_path_buf(),
            source,
        }),
    };
    let renamed = checked.and_then(|()| {
        fs::rename(&temp, path).map_err(|source| FileError::Write {
            path: path.to_path_buf(),
            source,
        })
    });
    if let Err(e) = renamed {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    if let Some(dir) = path.parent()
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Bytes of the raw file of a sector of `positions` values (without the
/// few entries of values too long for a byte): what `solve` writes.
pub fn raw_file_len(variant: &Variant, sector: SectorKey, positions: u64) -> u64 {
    Header::new(variant, sector, positions)
        .file_len()
        .unwrap_or(u64::MAX)
}

/// Writes a sector file into `dir`: `values` yields one byte per index in
/// order, and `overflow` the `(index, plies)` of escaped values in ascending
/// order. See [`write_atomically`].
///
/// # Errors
/// Any I/O error, with the file's name.
pub fn write_sector(
    dir: &Path,
    mut header: Header,
    values: impl FnOnce(&mut dyn FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()>,
    overflow: &[(u64, u32)],
) -> Result<PathBuf, FileError> {
    let final_path = dir.join(file_name(header.sector));
    write_atomically(&final_path, |file| {
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
        file.seek(std::io::SeekFrom::Start(0))?;
        file.write_all(&header.to_bytes())?;
        Ok(file)
    })?;
    Ok(final_path)
}

/// A sector file mapped for reading, raw (format 2) or packed (format 3 or
/// 4, see `packed.rs`). Each block of values is checked against its checksum
/// the first time a value in it is read.
pub struct SectorFile {
    pub header: Header,
    path: PathBuf,
    body: Body,
    /// A predicted loss-bits file's losses and model, checked at opening.
    predictor: Option<(u64, Model)>,
}

enum Body {
    Raw(CheckedMap),
    Packed(PackedBody),
}

impl SectorFile {
    /// Maps a file and checks its header, its length and its overflow table
    /// (not the whole body: see [`SectorFile::verify_checksum`]).
    /// `scattered` tells the system that reads will be scattered (probes):
    /// each page fault then reads its page, not megabytes around it.
    ///
    /// # Errors
    /// An unreadable file, or one that is not a complete sector file.
    pub fn open(path: &Path, scattered: bool) -> Result<SectorFile, FileError> {
        SectorFile::open_with(path, scattered, KeptBlocks::Probing)
    }

    /// [`SectorFile::open`]; a packed file keeps the decoded blocks `kept`
    /// says (every one, for reading it whole at random).
    ///
    /// # Errors
    /// As [`SectorFile::open`].
    pub fn open_with(
        path: &Path,
        scattered: bool,
        kept: KeptBlocks,
    ) -> Result<SectorFile, FileError> {
        let (map, len) = CheckedMap::map(path, scattered)?;
        let header = Header::parse(&map, len, path)?;
        let body = if header.encoding.is_packed() {
            Body::Packed(PackedBody::new(path, map, &header, kept)?)
        } else {
            let values = HEADER_LEN..HEADER_LEN + header.positions as usize;
            let sums_at = map.len() - header.blocks() as usize * BLOCK_CHECKSUM_LEN;
            Body::Raw(CheckedMap::new(
                path,
                map,
                values,
                header.block_bits,
                sums_at,
            ))
        };
        let mut file = SectorFile {
            header,
            path: path.to_path_buf(),
            body,
            predictor: None,
        };
        if xxhash_rust::xxh3::xxh3_64(file.overflow_table()) != file.header.overflow_checksum {
            return Err(FileError::corrupted(
                path,
                "its overflow table fails its checksum",
            ));
        }
        if let Body::Packed(body) = &file.body
            && file.header.encoding.predicted()
        {
            // Every value read depends on the model: its table (a few
            // pages) is checked before any.
            if xxhash_rust::xxh3::xxh3_64(body.table()) != file.header.checksum {
                return Err(FileError::corrupted(
                    path,
                    "its block table fails the header's checksum",
                ));
            }
            file.predictor = body.predictor()?;
        }
        Ok(file)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file is packed (format 3 or 4).
    pub fn is_packed(&self) -> bool {
        matches!(self.body, Body::Packed(_))
    }

    /// Checks the whole file: its body against the header's checksum, and
    /// every block against its own (a packed block is decoded too).
    ///
    /// # Errors
    /// The first mismatch.
    pub fn verify_checksum(&self) -> Result<(), FileError> {
        self.check_body_checksum()?;
        match &self.body {
            Body::Raw(map) => map.check_all(),
            Body::Packed(body) => body.check_all(),
        }
    }

    /// [`SectorFile::verify_checksum`] without decoding a packed file's
    /// blocks: their checksums only (a sample then reads a few values, each
    /// decoded and checked from its chunk).
    ///
    /// # Errors
    /// The first mismatch.
    pub fn verify_checksums_only(&self) -> Result<(), FileError> {
        self.check_body_checksum()?;
        match &self.body {
            Body::Raw(map) => map.check_all(),
            Body::Packed(body) => body.check_checksums(),
        }
    }

    /// The header's checksum of the body (a packed file's: its table).
    fn check_body_checksum(&self) -> Result<(), FileError> {
        let covered = match &self.body {
            Body::Raw(map) => &map.raw()[HEADER_LEN..],
            Body::Packed(body) => body.table(),
        };
        if xxhash_rust::xxh3::xxh3_64(covered) != self.header.checksum {
            return Err(FileError::corrupted(
                self.path(),
                "its body fails the header's checksum",
            ));
        }
        Ok(())
    }

    /// The value bytes, one per index, of a raw file, unchecked (the
    /// solver's prefetches and block reads; values come from
    /// [`SectorFile::value`]). `None` for a packed file.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Raw(map) => {
                Some(&map.raw()[HEADER_LEN..HEADER_LEN + self.header.positions as usize])
            }
            Body::Packed(_) => None,
        }
    }

    /// The value bytes of a raw file whose every block has been checked
    /// (by [`SectorFile::verify_checksum`] or [`SectorFile::check_blocks`]),
    /// one per index; `None` before, and for a packed file.
    pub fn checked_bytes(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Raw(map) => map.checked_bytes(),
            Body::Packed(_) => None,
        }
    }

    /// Checks every block of a raw file not checked yet, in parallel, so
    /// that [`SectorFile::checked_bytes`] gives its values; nothing for a
    /// packed file.
    ///
    /// # Errors
    /// A block that fails its checksum.
    pub fn check_blocks(&self) -> Result<(), FileError> {
        match &self.body {
            Body::Raw(map) => map.check_all(),
            Body::Packed(_) => Ok(()),
        }
    }

    /// Every value byte in order, block by block, each block checked
    /// (decoded, for a packed file).
    ///
    /// # Errors
    /// A block that fails its check.
    pub fn for_each_block(&self, mut f: impl FnMut(&[u8])) -> Result<(), FileError> {
        match &self.body {
            Body::Raw(_) => {
                self.verify_checksum()?;
                f(self.bytes().expect("a raw file"));
                Ok(())
            }
            Body::Packed(body) => body.for_each_block(f),
        }
    }

    /// The body of a packed file.
    pub(crate) fn packed_body(&self) -> Option<&PackedBody> {
        match &self.body {
            Body::Packed(body) => Some(body),
            Body::Raw(_) => None,
        }
    }

    pub(crate) fn overflow_table(&self) -> &[u8] {
        let entries = self.header.overflow_entries;
        match &self.body {
            Body::Raw(map) => {
                let start = HEADER_LEN + self.header.positions as usize;
                &map.raw()[start..start + entries as usize * OVERFLOW_ENTRY_LEN]
            }
            Body::Packed(body) => body.overflow_table(entries),
        }
    }

    /// The value at `index`, its block checked first.
    ///
    /// # Errors
    /// An index past the end, a block that fails its checksum, or an escaped
    /// value missing from the overflow table or out of range.
    #[inline]
    pub fn value(&self, index: u64) -> Result<Value, FileError> {
        match self.header.encoding {
            Encoding::PackedWdl | Encoding::PackedLossBits | Encoding::PackedPredictedLossBits => {
                Err(FileError::corrupted(
                    self.path(),
                    "it holds win/draw/loss only, not the distances asked for",
                ))
            }
            Encoding::PackedLosses => Err(self.losses_only()),
            Encoding::RawPlies
            | Encoding::RawMillClock
            | Encoding::PackedPlies
            | Encoding::PackedMillClock => match Value::from_byte(self.byte(index)?) {
                Some(v) => Ok(v),
                None => self.overflow_value(index),
            },
        }
    }

    /// The stored byte at `index`, its block checked first.
    ///
    /// # Errors
    /// An index past the end, or a block that fails its checksum.
    #[inline]
    pub fn byte(&self, index: u64) -> Result<u8, FileError> {
        if index >= self.header.positions {
            return Err(FileError::corrupted(
                self.path(),
                format!("index {index} is past its end"),
            ));
        }
        match &self.body {
            Body::Raw(map) => map.byte_at(HEADER_LEN + index as usize),
            Body::Packed(body) => body.byte(index),
        }
    }

    /// Win, draw or loss at `index`, from any file without the move-count
    /// rule.
    ///
    /// # Errors
    /// As [`SectorFile::value`], or a code that is no value.
    pub fn wdl(&self, index: u64) -> Result<Wdl, FileError> {
        match self.header.encoding {
            Encoding::PackedLosses
            | Encoding::PackedLossBits
            | Encoding::PackedPredictedLossBits => Err(self.losses_only()),
            Encoding::PackedWdl => {
                let code = self.byte(index)?;
                Wdl::from_code(code).ok_or_else(|| {
                    FileError::corrupted(
                        self.path(),
                        format!("index {index} holds the code {code}, which is no value"),
                    )
                })
            }
            Encoding::RawPlies
            | Encoding::RawMillClock
            | Encoding::PackedPlies
            | Encoding::PackedMillClock => self.value(index).map(Wdl::of),
        }
    }

    /// The error of asking a losses file for what only a search gives.
    fn losses_only(&self) -> FileError {
        FileError::corrupted(
            self.path(),
            "it holds the lost positions only: a win or draw needs a one-ply search (Tablebase::value)",
        )
    }

    /// A predicted loss-bits file's losses and model (see `predictor.rs`).
    pub fn predictor(&self) -> Option<(u64, Model)> {
        self.predictor
    }

    /// Whether `pos` (of `variant`), at `index`, is lost for its side to
    /// move, with its plies where the file keeps them: what a losses file
    /// holds (see `packed.rs`), and any other file without the move-count
    /// rule. The position matters only to a predicted file, whose bit is
    /// XOR its model's guess.
    ///
    /// # Errors
    /// As [`SectorFile::value`], or a byte that is no such mark.
    #[inline]
    pub fn loss_mark(
        &self,
        index: u64,
        pos: &Position,
        variant: &Variant,
    ) -> Result<LossMark, FileError> {
        let no_mark = |byte: u8| {
            FileError::corrupted(
                self.path(),
                format!("index {index} holds {byte}, which marks no loss"),
            )
        };
        match self.header.encoding {
            Encoding::PackedLossBits | Encoding::PackedPredictedLossBits => {
                let byte = self.byte(index)?;
                let guess = self
                    .predictor
                    .is_some_and(|(_, model)| model.guesses_lost(cell(variant, pos)));
                match byte ^ guess as u8 {
                    0 => Ok(LossMark::NotLost),
                    1 => Ok(LossMark::Lost(None)),
                    _ => Err(no_mark(byte)),
                }
            }
            Encoding::PackedLosses => match self.byte(index)? {
                NOT_LOST => Ok(LossMark::NotLost),
                ESCAPE_BYTE => match self.overflow_value(index)? {
                    Value::Loss(n) => Ok(LossMark::Lost(Some(n))),
                    _ => Err(no_mark(ESCAPE_BYTE)),
                },
                n if n.is_multiple_of(2) => Ok(LossMark::Lost(Some(n.into()))),
                byte => Err(no_mark(byte)),
            },
            Encoding::PackedWdl => Ok(match self.wdl(index)? {
                Wdl::Loss => LossMark::Lost(None),
                _ => LossMark::NotLost,
            }),
            Encoding::RawPlies
            | Encoding::RawMillClock
            | Encoding::PackedPlies
            | Encoding::PackedMillClock => Ok(match self.value(index)? {
                Value::Loss(n) => LossMark::Lost(Some(n)),
                _ => LossMark::NotLost,
            }),
        }
    }

    /// A losses file's record of its sector's wins, checked with the rest
    /// of its table against the header's body checksum; `None` for other
    /// files.
    ///
    /// # Errors
    /// A table that fails the checksum.
    pub fn wins(&self) -> Result<Option<Wins>, FileError> {
        let Body::Packed(body) = &self.body else {
            return Ok(None);
        };
        if xxhash_rust::xxh3::xxh3_64(body.table()) != self.header.checksum {
            return Err(FileError::corrupted(
                self.path(),
                "its block table fails the header's checksum",
            ));
        }
        Ok(body.wins())
    }

    /// The value under the move-count rule of `n` plies at `index`.
    ///
    /// # Errors
    /// As [`SectorFile::byte`], or a byte that is no such value.
    pub fn clock_value(&self, index: u64, n: u8) -> Result<ClockValue, FileError> {
        let byte = self.byte(index)?;
        ClockValue::from_byte(byte, n).ok_or_else(|| {
            FileError::corrupted(
                self.path(),
                format!("index {index} holds {byte}, which is no value under a rule of {n} plies"),
            )
        })
    }

    /// The value without the rule of a fresh draw at `index` of a file of
    /// a marked folder (bytes 253 and 254, then 255 a true draw); `None`
    /// where the position is not a fresh draw.
    ///
    /// # Errors
    /// As [`SectorFile::byte`].
    pub fn marked_plain(&self, index: u64) -> Result<Option<Wdl>, FileError> {
        Ok(marked_plain(self.byte(index)?))
    }

    fn overflow_value(&self, index: u64) -> Result<Value, FileError> {
        let table = self.overflow_table();
        let n = table.len() / OVERFLOW_ENTRY_LEN;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (i, plies) = overflow_entry(table, mid);
            if i == index {
                // Escaped distances do not fit a byte, and one more ply
                // (the parent's) must still fit a value.
                return u16::try_from(plies)
                    .ok()
                    .filter(|p| (254..u16::MAX).contains(p))
                    .map(Value::from_plies)
                    .ok_or_else(|| {
                        FileError::corrupted(
                            self.path(),
                            format!("its overflow entry for index {index} is out of range ({plies} plies)"),
                        )
                    });
            }
            if i < index { lo = mid + 1 } else { hi = mid }
        }
        Err(FileError::corrupted(
            self.path(),
            format!("index {index} is escaped but missing from the overflow table"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file whose check fails never takes its name, and leaves no
    /// temporary file; one that passes does.
    #[test]
    fn a_file_failing_its_check_is_not_left_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("3-3.mdb");
        let fill = |mut file: File| {
            std::io::Write::write_all(&mut file, b"contents")?;
            Ok(file)
        };
        let refused = |temp: &Path| {
            assert_eq!(fs::read(temp).unwrap(), b"contents", "checked complete");
            Err(FileError::corrupted(temp, "planted"))
        };
        let error = write_atomically_checked(&path, fill, refused).unwrap_err();
        assert!(error.to_string().contains("planted"), "{error}");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        write_atomically_checked(&path, fill, |_| Ok(())).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"contents");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
