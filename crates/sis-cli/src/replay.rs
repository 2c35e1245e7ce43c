//! `sis replay --trace FILE`: a real kernel trace (ftrace `trace`, trace-cmd report or perf
//! script text; gzip or xz compressed or not) replayed through each preset, with the
//! agreement per class (design.md "Contracts → CLI").

use crate::args::field_help;
use crate::format_of;
use clap::Args;
use sis_core::analysis::replay::parse::{parse_line, Line};
use sis_core::analysis::replay::{
    Replay, ReplayConfig, ReplayError, ReplayReport, MAX_LINE_BYTES, MAX_TRACE_BYTES,
};
use sis_core::{InputError, Scenario};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The trace: the kernel's trace file, trace-cmd report or perf script text (.gz, .xz ok)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    trace: Option<String>,
    // The topology flags: help and range from the scenario's field table, the defaults a
    // trace implies.
    #[arg(long, value_name = "W", allow_hyphen_values = true,
          help = field_help("llc_weight", "default: the trace header's CPU count / --llcs"))]
    llc_weight: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = field_help("llcs", "default: 1"))]
    llcs: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = field_help("smt", "default: 1"))]
    smt: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = field_help("cluster_size", "default: 0"))]
    cluster_size: Option<String>,
    #[arg(long, value_name = "NUMBERING", allow_hyphen_values = true,
          help = field_help("numbering", "default: contiguous"))]
    numbering: Option<String>,
    #[arg(long, value_name = "HZ", allow_hyphen_values = true,
          help = field_help("hz", "the traced kernel's CONFIG_HZ, for its jiffies and tick; default: 1000"))]
    hz: Option<String>,
    /// Presets to replay, comma-separated [default: every preset]
    #[arg(long, value_name = "P,...", allow_hyphen_values = true)]
    presets: Option<String>,
    /// Print the first N wake-ups where a preset disagrees, check by check (0..=10000)
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    show: Option<String>,
    /// table or json [default: table]
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    format: Option<String>,
    /// Take the tasks to be in autogroups (a kernel with CONFIG_SCHED_AUTOGROUP), one per comm
    /// first seen, kernel threads in the root: linux-4.4's wake_affine reads effective_load()
    #[arg(long)]
    autogroup: bool,
}

/// gzip, xz or plain text, by the file's first bytes.
fn open(path: &str) -> Result<Box<dyn BufRead>, InputError> {
    let unreadable =
        |e: std::io::Error| InputError::range("trace", path, &format!("a readable file ({e})"));
    let mut f = File::open(path).map_err(unreadable)?;
    let mut magic = [0u8; 6];
    let mut got = 0;
    while got < magic.len() {
        match f.read(&mut magic[got..]).map_err(unreadable)? {
            0 => break,
            n => got += n,
        }
    }
    let f = File::open(path).map_err(unreadable)?;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    const CAP: usize = 1 << 16;
    Ok(if magic[..got].starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(
            CAP,
            flate2::read::MultiGzDecoder::new(f),
        ))
    } else if magic[..got].starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Box::new(BufReader::with_capacity(
            CAP,
            xz2::read::XzDecoder::new_multi_decoder(f),
        ))
    } else {
        if size > MAX_TRACE_BYTES {
            return Err(InputError::range(
                "trace",
                format!("{path} ({size} bytes)"),
                &format!(
                    "at most {MAX_TRACE_BYTES} bytes (1 GiB) of trace text (the replay's \
                     limit); read so far: nothing"
                ),
            ));
        }
        Box::new(BufReader::with_capacity(CAP, f))
    })
}

/// What the trace's first lines say of its CPUs.
enum Header {
    /// `#P:8` or `cpus=8`.
    Cpus(u32),
    /// Lines, but no CPU count before the first event.
    NoCount,
    /// Not one non-blank line.
    Empty,
}

/// The CPU count from the trace's header (`#P:8`, `cpus=8`) in its first lines.
fn header_cpus(path: &str) -> Result<Header, InputError> {
    let mut r = open(path)?;
    let mut buf = Vec::new();
    let mut any = false;
    for _ in 0..64 {
        buf.clear();
        let n = r
            .by_ref()
            .take(MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut buf)
            .unwrap_or(0);
        if n == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&buf);
        any |= !text.trim().is_empty();
        match parse_line(text.trim_end()) {
            Ok(Line::CpuCount(c)) => return Ok(Header::Cpus(c)),
            Ok(Line::Event(_)) => break,
            _ => {}
        }
    }
    Ok(if any { Header::NoCount } else { Header::Empty })
}

/// Feeds every line of the file to the replay; lines longer than the limit are handed over
/// cut at the limit + 1 so that the replay names them.
fn feed(r: &mut Replay, path: &str, mut input: Box<dyn BufRead>) -> Result<(), ReplayError> {
    let mut line: Vec<u8> = Vec::with_capacity(256);
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let read = r.counts();
                let lines = r.lines();
                return Err(ReplayError {
                    error: InputError::range(
                        "trace",
                        path,
                        &format!(
                            "a readable file or gzip/xz stream ({e}) after line {lines}; read so \
                             far: {} sched events, {} wake-ups paired",
                            read.events, read.wakeups
                        ),
                    ),
                    line: Some(lines),
                    read_so_far: Box::new(read),
                });
            }
        };
        if buf.is_empty() {
            if !line.is_empty() {
                r.feed_line(&line)?;
            }
            return Ok(());
        }
        let used = match sis_core::analysis::replay::line_end(buf) {
            Some(i) => {
                if line.is_empty() {
                    r.feed_line(&buf[..i])?;
                } else {
                    line.extend_from_slice(&buf[..i]);
                    r.feed_line(&line)?;
                    line.clear();
                }
                i + 1
            }
            None => {
                let take = buf
                    .len()
                    .min(MAX_LINE_BYTES + 1 - line.len().min(MAX_LINE_BYTES));
                line.extend_from_slice(&buf[..take]);
                if line.len() > MAX_LINE_BYTES {
                    r.feed_line(&line)?;
                }
                take
            }
        };
        input.consume(used);
    }
}

fn parse_show(v: &Option<String>) -> Result<usize, InputError> {
    match v {
        None => Ok(0),
        Some(s) => s
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= 10_000)
            .ok_or_else(|| InputError::range("show", s, "an integer in 0..=10000")),
    }
}

pub fn main(a: &ReplayArgs) -> Result<String, InputError> {
    let path = a
        .trace
        .as_deref()
        .ok_or_else(|| InputError::range("trace", "", "a trace file (--trace FILE is required)"))?;
    let format = format_of(&a.format, &["table", "json"])?;
    let show = parse_show(&a.show)?;
    let presets: Vec<String> = match &a.presets {
        None => Vec::new(),
        Some(s) => {
            let v: Vec<String> = s
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            if v.is_empty() {
                return Err(InputError::range(
                    "presets",
                    s,
                    "a comma-separated list of presets (see sis presets)",
                ));
            }
            for p in &v {
                sis_core::preset(p).map_err(|e| InputError {
                    field: "presets".into(),
                    ..e
                })?;
            }
            v
        }
    };
    // The topology through the scenario's own validation.
    let llcs: u32 = match &a.llcs {
        Some(v) => Scenario::from_pairs([("llcs", v.as_str())])?.llcs,
        None => 1,
    };
    let llc_weight = match &a.llc_weight {
        Some(v) => v.clone(),
        None => match header_cpus(path)? {
            Header::Cpus(n) if n % llcs == 0 => (n / llcs).to_string(),
            Header::Cpus(n) => {
                return Err(InputError::range(
                    "llcs",
                    llcs,
                    &format!("a divisor of the {n} CPUs {path} says it has (or give --llc-weight)"),
                ))
            }
            Header::NoCount => {
                return Err(InputError::range(
                    "llc_weight",
                    "not given",
                    &format!(
                        "--llc-weight: {path} has no '#P:N' or 'cpus=N' header saying how many \
                         CPUs it has"
                    ),
                ))
            }
            Header::Empty => {
                return Err(InputError::range(
                    "trace",
                    path,
                    "a trace with sched events (this file has no text)",
                ))
            }
        },
    };
    let mut pairs: Vec<(&str, String)> = vec![
        ("llc_weight", llc_weight),
        ("llcs", llcs.to_string()),
        ("smt", a.smt.clone().unwrap_or_else(|| "1".into())),
    ];
    if let Some(v) = &a.cluster_size {
        pairs.push(("cluster_size", v.clone()));
    }
    if let Some(v) = &a.numbering {
        pairs.push(("numbering", v.clone()));
    }
    if let Some(v) = &a.hz {
        pairs.push(("hz", v.clone()));
    }
    let sc = Scenario::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))?;
    let cfg = ReplayConfig {
        topology: Some(sc.topology_spec()),
        presets,
        show,
        autogroup: a.autogroup,
        hz: sc.hz as u64,
        ..Default::default()
    };
    let report = run(cfg, path)?;
    Ok(match format {
        "json" => {
            let mut s = if show > 0 {
                serde_json::to_string_pretty(&serde_json::json!({
                    "trace": report.trace,
                    "classes": report.classes,
                    "disagreements": report.disagreements,
                }))
            } else {
                serde_json::to_string_pretty(&report)
            }
            .unwrap_or_default();
            s.push('\n');
            s
        }
        _ => table(&report, show),
    })
}

/// Replays the file with `cfg`. Errors about the trace name the file; events that go back in
/// time are a warning on stderr.
pub fn run(cfg: ReplayConfig, path: &str) -> Result<ReplayReport, InputError> {
    let mut r = Replay::new(cfg)?;
    let input = open(path)?;
    let in_file = |e: ReplayError| {
        let mut e = e.error;
        if let Some(line) = e.field.strip_prefix("trace line ") {
            e.field = format!("{path}:{line}");
        } else if e.field == "trace" {
            e.field = format!("trace {path}");
        } else {
            e.expected = format!("{} (in {path})", e.expected);
        }
        e
    };
    feed(&mut r, path, input).map_err(in_file)?;
    let order = r.time_order();
    if order.backwards > 0 {
        let n = order.backwards;
        eprintln!(
            "warning: {path}: {n} {} back in time, the first at line {} (up to {} us back); \
             replayed in file order. ftrace's per-CPU local clock can step back a few us; \
             larger steps mean a concatenated or edited trace",
            if n == 1 { "event goes" } else { "events go" },
            order.first_line,
            order.max_step_ns / 1000
        );
    }
    r.finish().map_err(in_file)
}

fn table(r: &ReplayReport, show: usize) -> String {
    let mut s = r.to_table();
    if show > 0 {
        s.push_str(&format!(
            "\nthe first {} wake-ups where a preset disagrees with the kernel\n",
            r.disagreements.len()
        ));
        for d in &r.disagreements {
            s.push('\n');
            s.push_str(&d.to_text());
        }
    }
    s
}
