//! The measured window cut into slices (`sis run --windows`): what the counters did in each
//! slice, and the LLCs' state at its end. A run that changes regime inside its window (an
//! overloaded LLC whose scans start failing, and stay failing, once its idle CPUs are gone)
//! shows it here, where the whole window's averages blur it. Reading changes nothing: the
//! report at the end is [`Simulation::run_to_end`]'s, byte for byte.

use super::*;
use crate::kernel::stats::Metrics;

/// One slice of the measured window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowRow {
    /// The slice's end, ns since the run began.
    pub end_ns: u64,
    /// Its length, ns (the last slice may be shorter).
    pub len_ns: u64,
    pub wakeups: u64,
    /// The benchmark's own work in the slice (`counters.messages`).
    pub messages: u64,
    pub migrations: u64,
    /// The slice's counters as Chen Yu's and mmtests' formulas read them.
    pub metrics: Metrics,
    /// CPU time not idle in the slice, percent (scanning and spinning included).
    pub cpu_busy_pct: f64,
    /// CPUs idle at the slice's end, every LLC.
    pub idle_cpus: u32,
    /// LLCs whose `has_idle_cores` hint is set at the slice's end.
    pub has_idle_cores: u32,
    /// Each LLC's nr_idle_scan at the slice's end.
    pub nr_idle_scan: Vec<u32>,
    /// Each LLC's sum of util_avg at the slice's end, percent of its capacity (what
    /// SIS_UTIL's next periodic balance would read).
    pub llc_util_pct: Vec<f64>,
}

/// What the counters and the idle time were at a slice's end.
#[derive(Clone, Copy)]
struct Mark {
    at: u64,
    counters: Counters,
    idle_ns: u64,
}

impl Simulation {
    fn mark(&self) -> Mark {
        Mark {
            at: self.now,
            counters: self.counters,
            idle_ns: self.counters.idle_ns + self.pending_idle(),
        }
    }

    fn window_row(&self, from: &Mark, to: &Mark) -> WindowRow {
        let (a, b) = (from.counters.to_array(), to.counters.to_array());
        let mut d = [0u64; Counters::LEN];
        for (d, (a, b)) in d.iter_mut().zip(a.iter().zip(b)) {
            *d = b.saturating_sub(*a);
        }
        let delta = Counters::from_array(d);
        let len_ns = to.at - from.at;
        let cpus = self.cpus.len() as u64;
        let llcs = 0..self.scenario.llcs;
        let capacity =
            self.scenario.llc_weight as f64 * crate::kernel::throttle::SCHED_CAPACITY_SCALE as f64;
        WindowRow {
            end_ns: to.at,
            len_ns,
            wakeups: delta.wakeups,
            messages: delta.messages,
            migrations: delta.migrations,
            metrics: delta.metrics(),
            cpu_busy_pct: crate::kernel::stats::cpu_busy_pct(
                to.idle_ns.saturating_sub(from.idle_ns),
                cpus,
                len_ns,
            ),
            idle_cpus: (0..self.cpus.len() as u32)
                .filter(|&c| self.st.rqs[c as usize].available_idle())
                .count() as u32,
            has_idle_cores: self.st.llcs.iter().filter(|l| l.has_idle_cores).count() as u32,
            nr_idle_scan: self.st.llcs.iter().map(|l| l.nr_idle_scan).collect(),
            llc_util_pct: llcs
                .map(|l| 100.0 * self.llc_sum_util_now(l) as f64 / capacity)
                .collect(),
        }
    }

    /// [`Simulation::run_to_end`], calling `each` with every `slice_ns` of the measured window
    /// as it ends (the last one may be shorter), with the same report.
    pub fn run_to_end_in_windows(
        &mut self,
        slice_ns: u64,
        mut each: impl FnMut(&WindowRow),
    ) -> RunReport {
        // Counting starts at the warm-up's end, possibly before the first event after it.
        let mut last: Option<Mark> = None;
        self.run_in_slices(slice_ns, |sim| {
            let from = last.unwrap_or(Mark {
                at: sim.count_from_ns(),
                counters: Counters::default(),
                idle_ns: 0,
            });
            let now = sim.mark();
            each(&sim.window_row(&from, &now));
            last = Some(now);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(pairs: &[(&str, &str)]) -> Simulation {
        Simulation::new(&Scenario::from_pairs(pairs.iter().copied()).unwrap()).unwrap()
    }

    #[test]
    fn slicing_the_window_changes_nothing_and_the_slices_add_up_to_the_report() {
        for pairs in [
            &[("llc_weight", "16"), ("load", "150"), ("duration", "300ms")][..],
            &[
                ("llcs", "2"),
                ("llc_weight", "8"),
                ("workload", "hackbench"),
                ("load", "200"),
                ("duration", "200ms"),
                ("warmup", "50ms"),
            ][..],
        ] {
            let whole = sim(pairs).run_to_end();
            let mut rows = Vec::new();
            let sliced = sim(pairs).run_to_end_in_windows(30_000_000, |r| rows.push(r.clone()));
            assert_eq!(
                serde_json::to_string(&sliced).unwrap(),
                serde_json::to_string(&whole).unwrap(),
                "{pairs:?}"
            );
            // Slices of 30 ms cover the window, the last one shorter.
            let window = whole.sim_time_ns;
            assert_eq!(rows.len() as u64, window.div_ceil(30_000_000), "{pairs:?}");
            assert_eq!(rows.iter().map(|r| r.len_ns).sum::<u64>(), window);
            assert!(rows[..rows.len() - 1]
                .iter()
                .all(|r| r.len_ns == 30_000_000));
            let sum = |f: fn(&WindowRow) -> u64| rows.iter().map(f).sum::<u64>();
            assert_eq!(sum(|r| r.wakeups), whole.wakeups);
            assert_eq!(sum(|r| r.messages), whole.counters.messages);
            assert_eq!(sum(|r| r.migrations), whole.migrations);
            // The slices' busy time, weighted by length, is the window's (each figure is
            // truncated to a basis point, cpu_busy_pct()).
            let busy = rows
                .iter()
                .map(|r| r.cpu_busy_pct * r.len_ns as f64)
                .sum::<f64>()
                / window as f64;
            assert!(
                (busy - whole.cpu_busy_pct).abs() <= 0.02,
                "{busy} vs {}",
                whole.cpu_busy_pct
            );
            let last = rows.last().unwrap();
            assert_eq!(last.nr_idle_scan, whole.nr_idle_scan);
            assert_eq!(last.llc_util_pct.len(), whole.scenario.llcs as usize);
        }
    }

    #[test]
    fn a_slice_counts_only_its_own_searches() {
        // 16 CPUs at 25% load: every wake-up finds its CPU idle at once, so each slice's
        // success and fast rates are 100%, whatever came before it.
        let mut rows = Vec::new();
        sim(&[("llc_weight", "16"), ("load", "25"), ("duration", "200ms")])
            .run_to_end_in_windows(50_000_000, |r| rows.push(r.clone()));
        assert!(rows.len() >= 2);
        for r in &rows {
            assert!(r.wakeups > 0, "{r:?}");
            assert_eq!(r.metrics.success_rate, 100.0, "{r:?}");
            assert!(r.cpu_busy_pct > 0.0 && r.cpu_busy_pct < 100.0, "{r:?}");
        }
    }
}
