//! What the measurements of one raw standard sector share: their command
//! line (`DIR SECTOR EVERY`), the sector's file and index, and the blocks of
//! positions they sample.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use morris::db::{SectorFile, file_name};
use morris::index::{SectorIndex, SectorKey};
use morris::rules::Variant;

/// A raw sector of a standard folder, every `every`-th block of it sampled.
pub struct SampledSector {
    pub key: SectorKey,
    pub file: SectorFile,
    pub index: Arc<SectorIndex>,
    pub every: usize,
}

impl SampledSector {
    /// The sector the command line `DIR SECTOR EVERY` names; the usage,
    /// under `bench`'s name, and exit when it names none.
    pub fn from_args(bench: &str) -> SampledSector {
        // `cargo bench` adds `--bench`.
        let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
        let [_, dir, sector, every] = &args[..] else {
            eprintln!("usage: {bench} DIR SECTOR EVERY (a raw standard folder)");
            std::process::exit(2);
        };
        let key: SectorKey = sector.parse().expect("a sector such as 8-9");
        let file =
            SectorFile::open(&Path::new(dir).join(file_name(key)), false).expect("a raw file");
        let index = SectorIndex::of(
            Variant::standard().board,
            key.us_board as usize,
            key.them_board as usize,
        );
        let every = every.parse().expect("a block stride");
        SampledSector {
            key,
            file,
            index,
            every,
        }
    }

    /// The sampled blocks of `per_block` positions, as ranges of indices.
    pub fn blocks(&self, per_block: u64) -> Vec<Range<u64>> {
        let size = self.index.size();
        (0..size.div_ceil(per_block))
            .step_by(self.every)
            .map(|block| block * per_block..((block + 1) * per_block).min(size))
            .collect()
    }
}
