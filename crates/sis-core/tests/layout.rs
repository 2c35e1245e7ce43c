//! The house rules of the source tree: the core's three wings import only the wings before
//! them (kernel <- sim <- analysis), and no Rust file in the workspace is over 700 lines.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if p.is_dir() && name != "target" && name != "node_modules" && name != "dist" {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn wing_files(wing: &str) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(wing),
        &mut files,
    );
    assert!(!files.is_empty(), "no files in src/{wing}");
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

#[test]
fn each_wing_imports_only_the_wings_before_it() {
    // The crate root's re-exports of sim and analysis types count as imports of those wings.
    let sim_roots = [
        "crate::sim",
        "crate::Scenario",
        "crate::Simulation",
        "crate::RunReport",
    ];
    let forbidden: [(&str, Vec<&str>); 2] = [
        ("kernel", [&sim_roots[..], &["crate::analysis"]].concat()),
        ("sim", vec!["crate::analysis"]),
    ];
    for (wing, bad) in forbidden {
        for (path, text) in wing_files(wing) {
            for (i, line) in text.lines().enumerate() {
                for b in &bad {
                    assert!(
                        !line.contains(b),
                        "{}:{}: the {wing} wing imports {b}: {line}",
                        path.display(),
                        i + 1
                    );
                }
            }
        }
    }
}

#[test]
fn no_rust_file_is_over_700_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates", "src", "tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).ok()?.lines().count();
            (n > 700).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "over 700 lines: {long:?}");
}
