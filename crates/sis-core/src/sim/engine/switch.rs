//! Compare mode's two hooks: counting over a window of the caller's choosing, and a kernel
//! switched at run time (as `echo NO_SIS_UTIL > /sys/kernel/debug/sched/features` switches a
//! feature on a running machine), so two runs can start from one warm state.

use super::*;

impl Simulation {
    /// When counting started, ns: the warm-up's end, or the last [`Self::restart_counting`].
    pub(super) fn count_from_ns(&self) -> u64 {
        self.recount_from_ns.unwrap_or(self.warmup_ns)
    }

    /// The counted window: (its start in ns, the seq of the last decision before it). The
    /// counters, histogram and metrics cover exactly the decisions after that seq.
    pub fn counting_since(&self) -> (u64, u64) {
        (self.count_from_ns(), self.counted_after_seq)
    }

    /// Zeroes the counters, histograms and the window's clock now (ends the warm-up if it was
    /// still running), so two runs switched apart at the same moment count the same window.
    pub fn restart_counting(&mut self) {
        self.start_measuring();
        self.recount_from_ns = Some(self.now);
    }

    /// From now on, decides with `to`'s kernel: its preset's features and era, imbalance_pct
    /// and nr_expr. Everything else (tasks, PELT, runqueues, avg_idle) carries over, as on a
    /// machine whose sched_features change at run time; nr_idle_scan is recomputed at once by
    /// the new kernel's rule (its next periodic balance, brought forward). `to` must differ
    /// from the running scenario in those kernel fields only.
    pub fn switch_kernel(&mut self, to: &Scenario) -> Result<(), InputError> {
        to.check()?;
        let mut same = to.clone();
        same.preset.clone_from(&self.scenario.preset);
        same.features.clone_from(&self.scenario.features);
        same.imbalance_pct = self.scenario.imbalance_pct;
        same.nr_expr.clone_from(&self.scenario.nr_expr);
        if same != self.scenario {
            return Err(InputError::range(
                "preset",
                &to.preset,
                "a kernel switch changes only preset, features, imbalance_pct and nr_expr; \
                 the topology, machine and workload stay those of the running scenario",
            ));
        }
        self.st.features = to.features()?;
        self.st.imbalance_pct = to.imbalance_pct;
        self.st.pkg_imbalance_pct = crate::kernel::features::preset(&to.preset)
            .map(|p| p.pkg_imbalance_pct())
            .unwrap_or(117);
        self.st.nr_expr = to.nr_expr_rule();
        self.newidle_migration_cost_gate = to.newidle_migration_cost_gate();
        self.task_hot_ignores_smt = to.task_hot_ignores_smt();
        self.scenario = to.clone();
        // The new kernel's nr_idle_scan now, as its first periodic balance would write it: a
        // compare's B throttles by its own rule from its first wake-up, not A's.
        for llc in 0..self.scenario.llcs {
            self.st.update_idle_cpu_scan(llc);
        }
        // SIS_FILTER's mask starts empty under a kernel that keeps one, filled from its first tick.
        for cpu in 0..self.st.topo.nr_cpus() {
            self.st.set_overloaded(cpu, false);
        }
        self.arm_tick();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(preset: &str) -> Scenario {
        Scenario::from_pairs([("llc_weight", "16"), ("load", "150"), ("preset", preset)]).unwrap()
    }

    fn warm(preset: &str) -> Simulation {
        let mut s = Simulation::new(&scenario(preset)).unwrap();
        while !s.is_measuring() {
            assert!(s.step());
        }
        s
    }

    #[test]
    fn the_counters_cover_exactly_the_decisions_after_counting_started() {
        let mut s = warm("linux-6.0");
        let (from_ns, after) = s.counting_since();
        assert_eq!(from_ns, s.warmup_ns());
        assert!(after > 0, "the warm-up made decisions");
        for _ in 0..500 {
            s.next_wakeup();
        }
        assert_eq!(s.counters().wakeups, s.wakeups_total() - after);
        s.restart_counting();
        assert_eq!(s.counters().wakeups, 0);
        assert_eq!(s.counting_since(), (s.now_ns(), s.wakeups_total()));
        s.next_wakeup();
        assert_eq!(
            s.counters().wakeups,
            s.wakeups_total() - s.counting_since().1
        );
        assert_eq!(s.report().sim_time_ns, s.now_ns() - s.counting_since().0);
    }

    #[test]
    fn a_switched_run_decides_as_the_new_kernel_from_the_shared_state() {
        // Two runs of one scenario are one run until one switches kernel.
        let (mut a, mut b) = (warm("linux-5.15"), warm("linux-5.15"));
        assert_eq!(a.now_ns(), b.now_ns());
        b.switch_kernel(&scenario("linux-6.0")).unwrap();
        a.restart_counting();
        b.restart_counting();
        assert!(b.features().sis_util && !a.features().sis_util);
        assert_eq!(b.scenario().preset, "linux-6.0");
        // The first decision is the same wake-up in both; the streams then part.
        let (da, db) = (a.next_wakeup().unwrap().id, b.next_wakeup().unwrap().id);
        assert_eq!(
            (da.seq, da.wakee, da.time_ns),
            (db.seq, db.wakee, db.time_ns)
        );
        a.run_for(50_000_000);
        b.run_for(50_000_000);
        assert_eq!(a.counting_since().0, b.counting_since().0);
        assert!(b.counters().sis_scanned < a.counters().sis_scanned);
        // Only the kernel may change.
        let other = Scenario::from_pairs([("llc_weight", "8"), ("preset", "linux-6.0")]).unwrap();
        let e = b.switch_kernel(&other).unwrap_err().to_string();
        assert!(e.contains("preset") && e.contains("topology"), "{e}");
    }
}
