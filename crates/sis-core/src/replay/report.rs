//! The replay's agreement table as text.

use super::*;

impl ReplayReport {
    /// The agreement table: per class, the wake-ups and each preset's agreement in percent.
    pub fn to_table(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let t = &self.trace;
        let n = &self.notes;
        if let Some(spec) = n.topology {
            let _ = writeln!(
                s,
                "topology: {} LLC x {} CPUs (smt {}, {}{})",
                spec.llcs,
                spec.llc_weight,
                spec.smt,
                spec.numbering.name(),
                if spec.cluster_size > 0 {
                    format!(", clusters of {}", spec.cluster_size)
                } else {
                    String::new()
                }
            );
        }
        let _ = writeln!(
            s,
            "trace: {} lines, {} sched events on {} CPUs, {} skipped lines",
            n.lines, t.events, t.cpus, t.skipped_lines
        );
        let c = &n.counts;
        let _ = writeln!(
            s,
            "wake-ups: {} sched_waking, {} paired with their sched_wakeup, {} unpaired; {} before \
             every CPU's first switch (left out); {} with the wakee still on a runqueue (no CPU \
             selected, left out)",
            c.wakings, t.wakeups, c.unpaired, t.incomplete, n.on_rq
        );
        let _ = writeln!(
            s,
            "inferred: {} sync wake-ups (the waker blocked within {} us), {} per-CPU kthread \
             wakees pinned to prev; {} queued tasks dropped when their CPU went idle",
            c.sync_inferred,
            rebuild::SYNC_WINDOW_NS / 1000,
            c.pinned,
            c.queue_fixups
        );
        s.push('\n');
        let w = self
            .classes
            .0
            .first()
            .map(|(_, a)| a.agree.iter().map(|(p, _)| p.len()).max().unwrap_or(6))
            .unwrap_or(6)
            .max(6);
        let _ = write!(s, "{:<w$}", "agree %");
        for (name, _) in &self.classes.0 {
            let _ = write!(s, " {:>20}", name);
        }
        s.push('\n');
        let _ = write!(s, "{:<w$}", "wake-ups");
        for (_, a) in &self.classes.0 {
            let _ = write!(s, " {:>20}", a.wakeups);
        }
        s.push('\n');
        let presets: Vec<&str> = self
            .classes
            .0
            .first()
            .map(|(_, a)| a.agree.iter().map(|(p, _)| p.as_str()).collect())
            .unwrap_or_default();
        for (i, p) in presets.iter().enumerate() {
            let _ = write!(s, "{:<w$}", p);
            for (_, a) in &self.classes.0 {
                let k = a.agree[i].1;
                let cell = if a.wakeups == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1} ({k})", k as f64 * 100.0 / a.wakeups as f64)
                };
                let _ = write!(s, " {:>20}", cell);
            }
            s.push('\n');
        }
        s
    }
}
