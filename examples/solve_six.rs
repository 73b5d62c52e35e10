//! Solve Six Men's Morris whole into a folder (about a second), then ask it
//! about the start: the library's `solve`, then a `Tablebase` over what it
//! wrote.
//!
//!     cargo run --release --example solve_six -- [DIR]
//!
//! DIR defaults to a folder in the system's temporary directory.

use anyhow::Result;
use morris::{Position, Selection, SolveOptions, Tablebase, Variant};

fn main() -> Result<()> {
    let dir = std::env::args()
        .nth(1)
        .map(Into::into)
        .unwrap_or_else(|| std::env::temp_dir().join("morris-six"));
    let six = Variant::by_name("six").expect("a variant of the rules");
    let options = SolveOptions::new(dir.clone(), six, Selection::All);
    // The solve reports its progress by events; this example ignores them.
    let summary = morris::solve(&options, &|_| {})?;
    println!(
        "solved {} positions into {}",
        summary.positions_solved,
        dir.display()
    );

    let tablebase = Tablebase::open_folder(&dir)?;
    let start = Position::start(six);
    let answer = tablebase.answer(&start, 0)?;
    println!("the start is a {}", answer.value.category.as_str());
    Ok(())
}
