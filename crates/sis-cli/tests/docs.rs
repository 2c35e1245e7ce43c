//! The figures the README, the guide's seed table and the lessons quote from
//! docs/sweep-112.txt (and sweep-112-delay.txt) match them: each session regenerates those
//! files, and a figure copied from them by hand goes stale (the lessons' SIS_UTIL scene still
//! quoted session 30's sweep after session 31's).

use std::collections::BTreeMap;
use std::path::Path;

fn read(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The block of `doc` output by the `$ sis sweep` line that contains `command`.
fn run_output<'a>(doc: &'a str, command: &str) -> &'a str {
    let start = doc
        .find(&format!("$ sis sweep {command}"))
        .unwrap_or_else(|| panic!("no `$ sis sweep {command}` in the sweep doc"));
    let rest = &doc[start + 1..];
    &doc[start..start + 1 + rest.find("\n$ sis").unwrap_or(rest.len())]
}

/// The rows of the table under the first line of `block` starting with `title`: the load (the
/// number before " threads" or " groups") to the row's numbers, std% columns left out.
fn table(block: &str, title: &str) -> BTreeMap<u32, Vec<f64>> {
    let at = block
        .lines()
        .position(|l| l.starts_with(title))
        .unwrap_or_else(|| panic!("no table titled {title:?}"));
    let mut rows = BTreeMap::new();
    for line in block.lines().skip(at + 1) {
        if line.is_empty() {
            break;
        }
        // "TCP_RR  224 threads ..." or "process-pipe  8 groups ..." / "1 group ...".
        let Some((head, numbers)) = [" threads", " groups", " group"]
            .iter()
            .find_map(|unit| line.split_once(unit))
        else {
            continue;
        };
        let Some(threads) = head.split_whitespace().last().and_then(|n| n.parse().ok()) else {
            continue;
        };
        // "1.00 (  0.28)  +171.36 (  0.79)*  1287942.7": drop the std% in parentheses.
        let mut values = Vec::new();
        let mut in_std = false;
        for token in numbers
            .replace('(', " ( ")
            .replace(')', " ) ")
            .split_whitespace()
        {
            match token {
                "(" => in_std = true,
                ")" | ")*" | "*" => in_std = false,
                t if !in_std => values.push(t.trim_end_matches(['*', '%']).parse().unwrap()),
                _ => {}
            }
        }
        rows.insert(threads, values);
    }
    rows
}

/// The cells after the label of the README table row whose first cell is `label`.
fn readme_row<'a>(readme: &'a str, label: &str) -> Vec<&'a str> {
    let line = readme
        .lines()
        .find(|l| l.starts_with(&format!("| {label} |")))
        .unwrap_or_else(|| panic!("no README row {label:?}"));
    line.split('|')
        .skip(2)
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

/// `quoted`, rounded to as many decimals as it shows, is `exact` rounded the same way.
fn same(quoted: f64, exact: f64, decimals: i32) -> bool {
    let unit = 10f64.powi(-decimals);
    (quoted - exact).abs() <= unit / 2.0 + 1e-9
}

fn decimals_of(cell: &str) -> i32 {
    cell.split_once('.').map_or(0, |(_, d)| d.len() as i32)
}

fn check_row(
    readme: &str,
    label: &str,
    loads: &[u32],
    exact: &BTreeMap<u32, Vec<f64>>,
    col: usize,
) {
    let cells = readme_row(readme, label);
    assert_eq!(cells.len(), loads.len(), "{label}: one figure per load");
    for (&threads, cell) in loads.iter().zip(&cells) {
        let quoted: f64 = cell.parse().unwrap();
        let e = exact[&threads][col];
        assert!(
            same(quoted, e, decimals_of(cell)),
            "README {label:?} at {threads} threads quotes {cell}, docs/sweep-112.txt has {e}"
        );
    }
}

/// The numbers a table cell quotes, each with its decimals: "**+168.4**", "+68.9 (std
/// 3.3%)" and "38.3 / 79.6 / 100" alike.
fn cell_numbers(cell: &str) -> Vec<(f64, i32)> {
    let cell = cell.replace('*', "");
    let quoted = cell.split(" (").next().unwrap_or("");
    quoted
        .split(" / ")
        .map(|n| {
            let n = n.trim();
            (n.parse().unwrap(), decimals_of(n))
        })
        .collect()
}

const LOADS: [u32; 5] = [112, 140, 168, 196, 224];
const NETPERF: &str = "--workload netperf --llc-weight 112 --smt 2 --presets linux-5.19,linux-6.0";
const NETPERF_V4: &str =
    "--workload netperf --llc-weight 112 --smt 2 --presets linux-5.19,sis-util-v4";
const MESSAGES: &str = "throughput (messages/s";

#[test]
fn the_readmes_seed_000_table_quotes_the_sweep_doc() {
    let doc = read("docs/sweep-112.txt");
    let readme = read("README.md");
    let six = run_output(&doc, NETPERF);
    let v4 = run_output(&doc, NETPERF_V4);
    // Compare tables: [baseline 1.00, compare%, baseline, compare].
    check_row(
        &readme,
        "throughput (transactions/s) compare%, model (`linux-6.0`)",
        &LOADS,
        &table(six, MESSAGES),
        1,
    );
    check_row(
        &readme,
        "throughput (transactions/s) compare%, model (`sis-util-v4`: the patch on v5.19-rc1)",
        &LOADS,
        &table(v4, MESSAGES),
        1,
    );
    // The vanilla kernel's efficiency table: [se_eff, dom_eff, fast_rate, success_rate].
    let vanilla = table(six, "preset linux-5.19");
    check_row(&readme, "vanilla success_rate%, model", &LOADS, &vanilla, 3);
    check_row(&readme, "vanilla fast_rate%, model", &LOADS, &vanilla, 2);
}

#[test]
fn the_readmes_hackbench_sentence_quotes_the_sweep_doc() {
    let doc = read("docs/sweep-112.txt");
    let hackbench = run_output(
        &doc,
        "--workload hackbench --llc-weight 112 --smt 2 --presets linux-5.19,linux-6.0",
    );
    let gain = table(hackbench, MESSAGES);
    let readme = read("README.md");
    let start = readme
        .find("hackbench (process-pipe")
        .expect("the README's hackbench sentence");
    let sentence = &readme[start..start + readme[start..].find("\n\n").unwrap()];
    let within = (1..=5).map(|g| gain[&g][1].abs()).fold(0.0, f64::max);
    assert!(
        sentence.contains(&format!(
            "within ±{within:.1}% of `linux-5.19` up to 5 groups"
        )),
        "README: hackbench within ±{within:.1}% up to 5 groups"
    );
    let tail = format!(
        "{:+.1}% at 6, {:+.1}% at 7 and {:+.1}% at 8",
        gain[&6][1], gain[&7][1], gain[&8][1]
    );
    assert!(
        sentence.replace('\n', " ").contains(&tail),
        "README should say {tail:?}"
    );
}

#[test]
fn the_guides_seed_000_table_quotes_the_sweep_docs() {
    let doc = read("docs/sweep-112.txt");
    let delay_doc = read("docs/sweep-112-delay.txt");
    let six = run_output(&doc, NETPERF);
    let delay = run_output(&delay_doc, "--workload netperf");
    let (gain, gain_v4, gain_delay) = (
        table(six, MESSAGES),
        table(run_output(&doc, NETPERF_V4), MESSAGES),
        table(delay, MESSAGES),
    );
    let (vanilla, vanilla_delay) = (
        table(six, "preset linux-5.19"),
        table(delay, "preset linux-5.19"),
    );
    let seeds = read("guide/src/seeds.md");
    let mut rows = 0;
    for line in seeds.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | threads | seed | linux-6.0 | sis-util-v4 | linux-6.0 delay | seed | linux-5.19 | delay |
        let Some(threads) = cells.get(1).and_then(|c| c.parse::<u32>().ok()) else {
            continue;
        };
        if cells.len() != 10 {
            continue;
        }
        rows += 1;
        // Efficiency cells: se_eff / fast_rate / success_rate, the table's columns 0, 2, 3.
        let efficiency = |t: &BTreeMap<u32, Vec<f64>>| {
            let r = &t[&threads];
            vec![r[0], r[2], r[3]]
        };
        let checks = [
            ("linux-6.0", cells[3], vec![gain[&threads][1]]),
            ("sis-util-v4", cells[4], vec![gain_v4[&threads][1]]),
            ("linux-6.0 delay", cells[5], vec![gain_delay[&threads][1]]),
            ("linux-5.19", cells[7], efficiency(&vanilla)),
            ("linux-5.19 delay", cells[8], efficiency(&vanilla_delay)),
        ];
        for (what, cell, exact) in checks {
            let quoted = cell_numbers(cell);
            assert_eq!(quoted.len(), exact.len(), "{what} at {threads}: {cell}");
            for ((q, d), e) in quoted.into_iter().zip(exact) {
                assert!(
                    same(q, e, d),
                    "guide/src/seeds.md: {what} at {threads} threads quotes {cell}, the sweep doc has {e}"
                );
            }
        }
    }
    assert_eq!(rows, 8, "one row per load, 28 to 224 threads");
}

#[test]
fn the_lessons_sis_util_scene_quotes_the_sweep_doc() {
    let doc = read("docs/sweep-112.txt");
    let six = run_output(&doc, NETPERF);
    let at_224 = |title: &str| table(six, title)[&224].clone();
    let scanned = at_224("sis_scanned (")[1];
    let gain = at_224(MESSAGES)[1];
    let remote = at_224("remote wake-ups (");
    let lessons = read("static/lessons/lessons.js");
    for quote in [
        format!("Model at 224 threads: {:.1}% fewer, +{gain:.0}%", -scanned),
        format!(
            "remote wake-ups {:.1} M on v5.19, {:.0} here",
            remote[2] / 1e6,
            remote[3]
        ),
    ] {
        assert!(
            lessons.contains(&quote),
            "static/lessons/lessons.js should say {quote:?} (docs/sweep-112.txt at 224 threads)"
        );
    }
}

#[test]
fn the_guides_tbench_bullet_quotes_the_sweep_doc() {
    let doc = read("docs/sweep-112.txt");
    let tbench = run_output(
        &doc,
        "--workload tbench --llc-weight 112 --smt 2 --presets linux-5.19,linux-6.0",
    );
    let (vanilla, gain) = (table(tbench, "preset linux-5.19"), table(tbench, MESSAGES));
    let success = |v: f64| {
        if v == 100.0 {
            "100".to_string()
        } else {
            format!("{v:.3}")
        }
    };
    let efficiency = |threads: u32| {
        let r = &vanilla[&threads];
        format!("{:.1} / {:.1} / {}", r[0], r[2], success(r[3]))
    };
    let seeds = read("guide/src/seeds.md").replace("\n  ", " ");
    for quote in [
        format!("has {} and {} there", efficiency(84), efficiency(112)),
        format!(
            "({} / {} / {} / {}% at 140-224)",
            success(vanilla[&140][3]),
            success(vanilla[&168][3]),
            success(vanilla[&196][3]),
            success(vanilla[&224][3])
        ),
        format!(
            "gains {:+.1}% at 140, {:+.1}% at 168 and {:+.1} / {:+.1}% at 196 / 224",
            gain[&140][1], gain[&168][1], gain[&196][1], gain[&224][1]
        ),
    ] {
        assert!(
            seeds.contains(&quote),
            "guide/src/seeds.md's tbench bullet should say {quote:?} (docs/sweep-112.txt)"
        );
    }
}
