//! `sis`: the command line over sis-core (design.md "Contracts → CLI").
//!
//! Every command builds its text in memory and prints it once. Bad input of any kind (flags,
//! scenario or state files, clap's own usage errors) exits 2 with exactly one line on stderr,
//! `sis: <message>`; `--help` and `--version` exit 0.

mod args;
mod curve;
mod decide;
mod machines;
mod merge;
mod presets;
mod replay;
mod run;
mod sweep;

use clap::error::ErrorKind;
use clap::{ColorChoice, Parser, Subcommand};
use sis_core::InputError;
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "sis",
    version,
    color = ColorChoice::Never,
    args_override_self = true,
    about = "Simulate the Linux select_idle_sibling() wake-up path: SIS_UTIL's curve, runs, \
             sweeps in the seeds' table layout (with replicates and shards), decision traces and hand-built decisions."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// SIS_UTIL's nr_scan (update_idle_cpu_scan) over the LLC's sum of util_avg
    Curve(curve::CurveArgs),
    /// One run: counters, metrics, per-CPU placements and the scan-time histogram
    Run(run::RunArgs),
    /// Presets x loads in the seed's schedstat_parse.py layout, and baseline/compare% tables
    Sweep(sweep::SweepArgs),
    /// Shard files of `sis sweep --shard K/N` combined into the unsharded sweep's output
    Merge(merge::MergeArgs),
    /// The first N wake-up decisions of a run, step by step
    Trace(run::TraceArgs),
    /// One wake-up decision on a hand-built state file
    Decide(decide::DecideArgs),
    /// The kernel presets and their features
    Presets(presets::PresetsArgs),
    /// The machine presets: topology and the wake-up's cited costs (IPI, idle states, lock, cold start)
    Machines(machines::MachinesArgs),
    /// Replay a real kernel trace: each preset's choice beside the kernel's, per class
    Replay(replay::ReplayArgs),
}

/// Validates a `--format` value against the command's formats (first = default).
pub fn format_of<'a>(v: &Option<String>, allowed: &[&'a str]) -> Result<&'a str, InputError> {
    match v {
        None => Ok(allowed[0]),
        Some(v) => allowed
            .iter()
            .find(|a| **a == v.as_str())
            .copied()
            .ok_or_else(|| InputError::unknown("format", v, allowed.iter().copied())),
    }
}

/// A catalogue (`sis presets`, `sis machines`) as pretty JSON with a final newline.
pub fn json_lines<T: serde::Serialize>(all: &T) -> String {
    let mut s = serde_json::to_string_pretty(all).unwrap_or_default();
    s.push('\n');
    s
}

/// One line for stderr: control characters (newlines in echoed values) become spaces.
fn one_line(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// clap's error as one line: its first paragraph without "error: " (a missing argument's
/// name is on the lines after the first), plus its tip if any.
fn clap_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first: Vec<&str> = text
        .trim_start()
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    let first = if first.is_empty() {
        "invalid arguments".to_string()
    } else {
        first.join(" ")
    };
    let first = first.strip_prefix("error: ").unwrap_or(&first);
    match text.lines().map(str::trim).find(|l| l.starts_with("tip:")) {
        Some(tip) if !first.contains(tip) => format!("{first} ({tip})"),
        _ => first.to_string(),
    }
}

fn missing_subcommand() -> String {
    use clap::CommandFactory;
    let names: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    format!(
        "missing subcommand: expected one of {} (see sis --help)",
        names.join(", ")
    )
}

fn fail(msg: &str) -> ExitCode {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "sis: {}", one_line(msg));
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    ExitCode::SUCCESS
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                | ErrorKind::MissingSubcommand => fail(&missing_subcommand()),
                _ => fail(&clap_line(&e)),
            };
        }
    };
    if let Cmd::Trace(a) = &cli.cmd {
        // Streamed: written as it is made.
        return match run::trace(a, &mut std::io::stdout().lock()) {
            Ok(written) => wrote(written),
            Err(e) => fail(&e.to_string()),
        };
    }
    let out = match cli.cmd {
        Cmd::Curve(a) => curve::main(&a),
        Cmd::Run(a) => run::run(&a),
        Cmd::Sweep(a) => sweep::main(&a),
        Cmd::Merge(a) => merge::main(&a),
        Cmd::Trace(_) => unreachable!("streamed above"),
        Cmd::Decide(a) => decide::main(&a),
        Cmd::Presets(a) => presets::main(&a),
        Cmd::Machines(a) => machines::main(&a),
        Cmd::Replay(a) => replay::main(&a),
    };
    match out {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            wrote(
                stdout
                    .write_all(text.as_bytes())
                    .and_then(|_| stdout.flush()),
            )
        }
        Err(e) => fail(&e.to_string()),
    }
}

/// How writing the output ended: `sis ... | head` closing the pipe is not an error of ours.
fn wrote(r: std::io::Result<()>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "sis: cannot write output: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn clap_errors_become_one_line() {
        let e = Cli::try_parse_from(["sis", "run", "--llc-wieght", "8"]).unwrap_err();
        let l = clap_line(&e);
        assert!(!l.contains('\n') && l.contains("--llc-wieght"), "{l}");
        let e = Cli::try_parse_from(["sis", "sweep", "--jobs"]).unwrap_err();
        assert!(!clap_line(&e).contains('\n'));
        assert!(missing_subcommand()
            .contains("curve, run, sweep, merge, trace, decide, presets, machines, replay"));
    }

    #[test]
    fn formats() {
        assert_eq!(format_of(&None, &["table", "json"]).unwrap(), "table");
        assert_eq!(
            format_of(&Some("json".into()), &["table", "json"]).unwrap(),
            "json"
        );
        let e = format_of(&Some("jsno".into()), &["table", "json"]).unwrap_err();
        assert!(e.to_string().contains("did you mean 'json'"), "{e}");
        assert_eq!(one_line("a\nb\r\n"), "a b");
    }
}
