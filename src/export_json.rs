//! Exports through the one JSON path the CLI uses (serde_json over sis-core's types): a run's
//! report as `sis run --format json` prints it, the Chrome/Perfetto trace of
//! `sis_core::analysis::export::chrome_trace`, and the decisions recorded while playing. Text and CSV
//! come from sis-core directly (`export::metrics_text`, `export::metrics_csv`); scenario files
//! are `Scenario::to_json` / `Scenario::from_json`.
//!
//! Pure Rust; the browser side (Blob downloads, canvas PNGs) is in `components/export.rs`.

use sis_core::kernel::trace::Decision;
use sis_core::sim::engine::RunReport;

/// Decisions kept by a recording (~1 KB each at most): bounded, so a long play stays bounded.
pub const RECORD_CAP: usize = 20_000;

/// A run's report as JSON: the text of `sis run --format json`.
pub fn report_json(r: &RunReport) -> String {
    let mut s = serde_json::to_string_pretty(r).unwrap_or_default();
    s.push('\n');
    s
}

/// The Chrome/Perfetto trace of `decisions` (sis-core's `export::chrome_trace`) as text.
pub fn chrome_trace_json<'a>(
    decisions: impl IntoIterator<Item = &'a Decision>,
    nr_cpus: u32,
    probe_cost_ns: u64,
) -> String {
    let mut s = sis_core::analysis::export::chrome_trace(decisions, nr_cpus, probe_cost_ns);
    s.push('\n');
    s
}

/// Decisions captured while playing (the Simulation's ring holds only the last 256): every
/// new decision is appended after each slice of simulated time, up to [`RECORD_CAP`].
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub decisions: Vec<Decision>,
    /// Decisions that passed between two captures (more than the ring in one slice) or after
    /// the cap: not in the recording.
    pub lost: u64,
    /// Capturing (Record pressed); a stopped recording keeps its decisions for export.
    pub active: bool,
    last_seq: Option<u64>,
}

impl Recording {
    /// An active recording that starts after decision `after` (None: from the start).
    pub fn start(after: Option<u64>) -> Self {
        Recording {
            active: true,
            last_seq: after,
            ..Recording::default()
        }
    }

    /// Appends the decisions of `ring` newer than the last captured one (when active);
    /// returns how many decisions were made since the last capture.
    pub fn capture<'a>(&mut self, ring: impl DoubleEndedIterator<Item = &'a Decision>) -> u64 {
        if !self.active {
            return 0;
        }
        let last = self.last_seq;
        let mut new: Vec<&Decision> = ring
            .rev()
            .take_while(|d| last.is_none_or(|l| d.id.seq > l))
            .collect();
        new.reverse();
        let Some(first) = new.first() else { return 0 };
        let gap = last.map_or(0, |l| first.id.seq.saturating_sub(l + 1));
        self.lost += gap;
        let made = gap + new.len() as u64;
        self.last_seq = new.last().map(|d| d.id.seq);
        for d in new {
            if self.decisions.len() < RECORD_CAP {
                self.decisions.push(d.clone());
            } else {
                self.lost += 1;
            }
        }
        made
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sis_core::{Scenario, Simulation};

    #[test]
    fn report_json_is_the_cli_text_and_reads_back() {
        let sc = Scenario::from_pairs([("llc_weight", "8"), ("duration", "5ms")]).unwrap();
        let r = sis_core::run(&sc).unwrap();
        let text = report_json(&r);
        assert!(text.ends_with("}\n"));
        let back: RunReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn recording_captures_across_ring_turnovers() {
        let sc = Scenario::from_pairs([("llc_weight", "8")]).unwrap();
        let mut sim = Simulation::new(&sc).unwrap();
        sim.set_recording(true);
        let mut rec = Recording::start(None);
        for _ in 0..600 {
            sim.next_wakeup();
            rec.capture(sim.decisions().iter());
        }
        assert_eq!(rec.decisions.len(), 600);
        assert_eq!(rec.lost, 0);
        let seqs: Vec<u64> = rec.decisions.iter().map(|d| d.id.seq).collect();
        assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
        for _ in 0..300 {
            sim.next_wakeup();
        }
        rec.capture(sim.decisions().iter());
        assert_eq!(rec.lost, 44, "300 new, the ring kept 256");
    }
}
