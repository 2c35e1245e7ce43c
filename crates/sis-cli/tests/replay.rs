//! `sis replay` end to end: compressed and plain input, the JSON contract, --show, and bad
//! input exiting 2 with one line that names the line or the limit.

use crate::cli::{ok, sis};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::PathBuf;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../sis-core/testdata/traces/many-threads.ftrace.txt.xz"
);
const TOPO: [&str; 6] = [
    "--llc-weight",
    "8",
    "--smt",
    "2",
    "--numbering",
    "interleaved",
];

/// Exit 2 and exactly one line on stderr.
fn fails(args: &[&str]) -> String {
    let o = sis(args);
    assert_eq!(o.status.code(), Some(2), "sis {args:?} should fail");
    let e = String::from_utf8(o.stderr).unwrap();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sis-replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn sample_text() -> Vec<u8> {
    let mut out = Vec::new();
    xz2::read::XzDecoder::new(std::fs::File::open(SAMPLE).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn json_contract_and_every_compression_give_the_same_report() {
    let json = |path: &str| -> Value {
        let mut args = vec!["replay", "--trace", path, "--format", "json"];
        args.extend(TOPO);
        serde_json::from_str(&ok(&args)).unwrap()
    };
    let v = json(SAMPLE);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["classes", "trace"]);
    assert_eq!(v["trace"]["wakeups"], 6743);
    assert_eq!(v["trace"]["events"], 41811);
    assert_eq!(v["trace"]["cpus"], 8);
    assert_eq!(v["trace"]["incomplete"], 11);
    let classes: Vec<&String> = v["classes"].as_object().unwrap().keys().collect();
    assert_eq!(
        classes,
        [
            "all",
            "dl",
            "kernel_moved",
            "none_idle",
            "prev_busy_some_idle",
            "prev_idle",
            "rt"
        ]
    );
    for c in v["classes"].as_object().unwrap().values() {
        let n = c["wakeups"].as_u64().unwrap();
        let agree = c["agree"].as_object().unwrap();
        assert_eq!(
            agree.len(),
            sis_core::presets().len() + 2,
            "every preset by default, and the baselines"
        );
        // The baselines (design.md: `agree` also holds keep_prev and waker_cpu).
        assert!(agree["keep_prev"].as_u64().unwrap() <= n);
        assert!(agree["waker_cpu"].as_u64().unwrap() <= n);
        assert!(agree.values().all(|k| k.as_u64().unwrap() <= n));
    }
    let text = sample_text();
    let plain = tmp("plain.txt", &text);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    let gz = tmp("trace.gz", &gz.finish().unwrap());
    assert_eq!(json(plain.to_str().unwrap()), v);
    assert_eq!(json(gz.to_str().unwrap()), v);
}

#[test]
fn table_presets_and_show() {
    let mut args = vec![
        "replay",
        "--trace",
        SAMPLE,
        "--presets",
        "linux-4.13,linux-6.0",
        "--show",
        "2",
    ];
    args.extend(TOPO);
    let out = ok(&args);
    assert!(
        out.contains("topology: 1 LLC x 8 CPUs (smt 2, interleaved)"),
        "{out}"
    );
    assert!(out.contains("6743 paired"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("linux-")).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(
        out.contains("the first 2 wake-ups where a preset disagrees"),
        "{out}"
    );
    assert_eq!(out.matches("kernel chose cpu").count(), 2, "{out}");
    // The check-by-check trace as `sis trace` prints it.
    assert!(out.contains("  => cpu "), "{out}");
}

#[test]
fn bad_input_names_the_line_or_the_limit() {
    let text = sample_text();
    // Truncated in the middle of line 3000.
    let mut end = 0;
    for _ in 0..2999 {
        end += text[end..].iter().position(|b| *b == b'\n').unwrap() + 1;
    }
    let cut = tmp("cut.txt", &text[..end + 60]);
    let mut a = vec!["replay", "--trace", cut.to_str().unwrap()];
    a.extend(TOPO);
    let e = fails(&a);
    // The error names the file and the line, as PATH:LINE.
    let at = format!("{}:3000", cut.to_str().unwrap());
    assert!(
        e.contains(&at) && e.contains("read so far: 2999 lines"),
        "{e}"
    );
    // Binary.
    let bin = tmp("bin.dat", &[0x7f, b'E', b'L', b'F', 0, 0, 1, b'\n']);
    let e = fails(&[
        "replay",
        "--trace",
        bin.to_str().unwrap(),
        "--llc-weight",
        "8",
    ]);
    let at = format!("{}:1 ", bin.to_str().unwrap());
    assert!(e.contains(&at) && e.contains("binary"), "{e}");
    // No sched events.
    let none = tmp("none.txt", b"# tracer: nop\n#P:4\n");
    let e = fails(&[
        "replay",
        "--trace",
        none.to_str().unwrap(),
        "--llc-weight",
        "4",
    ]);
    assert!(e.contains("without a sched event"), "{e}");
    assert!(e.contains(none.to_str().unwrap()), "names the file: {e}");
    // An empty file, with no topology given: the file is named, not --llc-weight blamed.
    let empty = tmp("empty.txt", b"");
    let e = fails(&["replay", "--trace", empty.to_str().unwrap()]);
    assert!(
        e.contains(empty.to_str().unwrap()) && e.contains("no text"),
        "{e}"
    );
    // Text but no CPU count: --llc-weight is asked for, and the file named.
    let nohdr = tmp("nohdr.txt", b"# tracer: nop\n");
    let e = fails(&["replay", "--trace", nohdr.to_str().unwrap()]);
    assert!(e.contains("nohdr.txt"), "{e}");
    // A CPU beyond the topology.
    let e = fails(&["replay", "--trace", SAMPLE, "--llc-weight", "4"]);
    assert!(
        e.contains(&format!("{SAMPLE}:7 ")) && e.contains("0..=3"),
        "{e}"
    );
    // Flags.
    let e = fails(&["replay", "--trace", SAMPLE, "--presets", "linux-6.1"]);
    assert!(e.contains("presets") && e.contains("linux-6.0"), "{e}");
    let e = fails(&["replay", "--trace", SAMPLE, "--show", "-1"]);
    assert!(e.contains("show"), "{e}");
    let e = fails(&["replay", "--trace", SAMPLE, "--smt", "3"]);
    assert!(e.contains("smt"), "{e}");
    let e = fails(&["replay", "--trace", SAMPLE, "--hz", "200"]);
    assert!(e.contains("hz") && e.contains("250"), "{e}");
    let e = fails(&["replay", "--trace", "/nonexistent/trace"]);
    assert!(e.contains("/nonexistent/trace"), "{e}");
    let e = fails(&["replay"]);
    assert!(e.contains("--trace"), "{e}");
    // A corrupt xz stream: what was read before it is reported.
    let mut xz = std::fs::read(SAMPLE).unwrap();
    let n = xz.len();
    xz.truncate(n / 2);
    let half = tmp("half.xz", &xz);
    let mut a = vec!["replay", "--trace", half.to_str().unwrap()];
    a.extend(TOPO);
    let e = fails(&a);
    assert!(
        e.contains("read so far") && e.contains("sched events"),
        "{e}"
    );
}

#[test]
fn events_that_go_back_in_time_are_a_warning_naming_the_file_and_line() {
    let text = sample_text();
    let mut end = 0;
    for _ in 0..3000 {
        end += text[end..].iter().position(|b| *b == b'\n').unwrap() + 1;
    }
    let early = text
        .split(|b| *b == b'\n')
        .find(|l| l.windows(12).any(|w| w == b"sched_switch"))
        .unwrap();
    let mut body = text[..end].to_vec();
    body.extend_from_slice(early);
    body.push(b'\n');
    let back = tmp("back.txt", &body);
    let mut a = vec!["replay", "--trace", back.to_str().unwrap()];
    a.extend(TOPO);
    let o = sis(&a);
    assert_eq!(o.status.code(), Some(0));
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(
        e.contains(back.to_str().unwrap())
            && e.contains("1 event goes back in time, the first at line 3001"),
        "{e}"
    );
    // The sample itself is in time order: no warning.
    let mut a = vec!["replay", "--trace", SAMPLE];
    a.extend(TOPO);
    assert_eq!(String::from_utf8(sis(&a).stderr).unwrap(), "");
}
