//! Integration tests, one binary: the rules against a naive implementation,
//! the index exhaustively, the solver against a naive solver and published
//! facts, and the command line.

mod answer;
mod chances;
mod cli;
mod edges;
mod first_use;
mod house;
mod index;
mod move_count;
mod naive;
mod pack;
mod pack_wdl;
mod plan;
mod probe;
mod resume;
mod rules;
mod serve;
mod solver;
mod ultra;
mod verify;
mod zstd;

/// A folder of solved data that many tests read, built once for this build
/// of the tests and shared by their processes (nextest runs each test in a
/// process of its own), under cargo's target/tmp: nothing is left in /tmp,
/// and a later build starts afresh (its folders are keyed by the test
/// binary's time, older ones removed).
pub fn shared_folder(name: &str, build: impl FnOnce(&std::path::Path)) -> std::path::PathBuf {
    use std::time::UNIX_EPOCH;
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let exe = std::env::current_exe().unwrap();
    let built = std::fs::metadata(&exe).unwrap().modified().unwrap();
    let key = built.duration_since(UNIX_EPOCH).unwrap().as_nanos();
    let folder = root.join(format!("{name}-{key}"));
    if folder.join("complete").exists() {
        return folder;
    }
    // Folders of earlier builds go.
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with(&format!("{name}-")) && !file_name.ends_with(&key.to_string()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    // Built aside, then renamed into place: a second process that builds
    // it meanwhile finds it there and drops its own.
    let aside = tempfile::tempdir_in(root).unwrap();
    build(aside.path());
    std::fs::write(aside.path().join("complete"), "").unwrap();
    let aside = aside.keep();
    if std::fs::rename(&aside, &folder).is_err() {
        std::fs::remove_dir_all(&aside).unwrap();
        assert!(
            folder.join("complete").exists(),
            "{} was not built",
            folder.display()
        );
    }
    folder
}
