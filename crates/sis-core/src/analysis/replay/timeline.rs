//! What ran where, from the trace's sched_switch events: per CPU, the spans a task ran (idle is
//! no span), for views that draw swimlanes around a wake-up. Kept only when asked
//! (`ReplayConfig::timeline`) and bounded: the first [`MAX_SPANS`] runs.

/// The most runs one replay keeps for its timeline (24 bytes each: 24 MB).
pub const MAX_SPANS: usize = 1_000_000;

/// One run of a task on a CPU, ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunSpan {
    pub start_ns: u64,
    pub end_ns: u64,
    pub pid: u32,
}

/// Per CPU, its runs in time order (a CPU's runs do not overlap).
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    cpus: Vec<Vec<RunSpan>>,
    /// When each CPU's current task started running (None: idle or not yet known).
    running: Vec<Option<(u64, u32)>>,
    total: usize,
    /// Runs not kept once MAX_SPANS were.
    pub dropped: u64,
}

impl Timeline {
    pub fn new(nr_cpus: u32) -> Self {
        Timeline {
            cpus: vec![Vec::new(); nr_cpus as usize],
            running: vec![None; nr_cpus as usize],
            ..Default::default()
        }
    }

    /// A sched_switch on `cpu` at `now` to `next` (0: idle).
    pub fn switch(&mut self, cpu: u32, now: u64, next: u32) {
        let c = cpu as usize;
        if let Some((start, pid)) = self.running[c].take() {
            if self.total < MAX_SPANS {
                self.cpus[c].push(RunSpan {
                    start_ns: start,
                    end_ns: now.max(start),
                    pid,
                });
                self.total += 1;
            } else {
                self.dropped += 1;
            }
        }
        if next != 0 {
            self.running[c] = Some((now, next));
        }
    }

    /// The runs of `cpu` that overlap `[from, to)`, at most `max` of them; a run still going
    /// at the last event ends at `now`.
    pub fn window(&self, cpu: u32, from: u64, to: u64, now: u64, max: usize) -> Vec<RunSpan> {
        let Some(spans) = self.cpus.get(cpu as usize) else {
            return Vec::new();
        };
        // Runs end in time order: the first that ends after `from`.
        let i = spans.partition_point(|s| s.end_ns <= from);
        let mut out: Vec<RunSpan> = spans[i..]
            .iter()
            .take_while(|s| s.start_ns < to)
            .take(max)
            .copied()
            .collect();
        if let Some((start, pid)) = self.running[cpu as usize] {
            if start < to && now > from && out.len() < max {
                out.push(RunSpan {
                    start_ns: start,
                    end_ns: now,
                    pid,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_between_switches_and_a_window_around_a_time() {
        let mut t = Timeline::new(2);
        t.switch(0, 100, 7);
        t.switch(0, 250, 0); // 7 ran 100..250, then idle
        t.switch(0, 400, 9); // 9 runs from 400 on
        t.switch(1, 50, 3);
        t.switch(1, 300, 4);
        let w = t.window(0, 200, 500, 600, 10);
        assert_eq!(
            w,
            vec![
                RunSpan {
                    start_ns: 100,
                    end_ns: 250,
                    pid: 7
                },
                RunSpan {
                    start_ns: 400,
                    end_ns: 600,
                    pid: 9
                },
            ]
        );
        assert!(
            t.window(0, 260, 390, 600, 10).is_empty(),
            "idle between them"
        );
        assert_eq!(t.window(1, 0, 1000, 1000, 1).len(), 1, "at most max");
        assert!(t.window(5, 0, 10, 10, 10).is_empty(), "no such CPU");
    }

    /// The worker keeps a timeline for a trace of any size (a 100 MB one in the browser): past
    /// MAX_SPANS runs it counts, and keeps no more.
    #[test]
    fn at_most_max_spans_runs_are_kept_and_the_rest_counted() {
        let mut t = Timeline::new(2);
        let runs = MAX_SPANS as u64 + 1_000;
        for i in 0..=runs {
            t.switch((i % 2) as u32, i * 10, 1 + (i % 5) as u32);
        }
        // Each switch but each CPU's first ends a run.
        let kept = t.window(0, 0, u64::MAX, u64::MAX, usize::MAX).len()
            + t.window(1, 0, u64::MAX, u64::MAX, usize::MAX).len()
            - 2; // the two runs still going at the end
        assert_eq!(kept, MAX_SPANS);
        assert_eq!(t.dropped, runs + 1 - 2 - MAX_SPANS as u64);
        assert!(t.cpus.iter().map(Vec::capacity).sum::<usize>() < 2 * MAX_SPANS);
    }
}
