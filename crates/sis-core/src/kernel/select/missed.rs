//! The idle CPUs a decision never looked at (`missed_idle` in `sis decide` and the trace).

use super::{Outcome, Wakee, Waker};
use crate::kernel::state::SchedState;
use crate::kernel::stats::Counters;
use crate::kernel::trace::{Decision, Rule};

impl SchedState {
    /// `select_task_rq_fair` recorded into `d` from a fresh start, with the LLC flags it read;
    /// the engine and the trace replay fill in the rest (who, when) and [`Self::record_outcome`].
    pub(crate) fn decide_into(
        &mut self,
        p: &Wakee,
        w: &Waker,
        c: &mut Counters,
        d: &mut Decision,
    ) -> Outcome {
        d.reset();
        let llc = self.topo.llc_of(p.prev) as usize;
        d.has_idle_core = self.llcs[llc].has_idle_cores;
        d.nr_idle_scan = self.llcs[llc].nr_idle_scan;
        self.select_task_rq_fair(p, w, c, d)
    }

    /// What `d` records of the outcome: target, result and rule, and the idle CPUs it missed
    /// (select_task_rq_fair changes no CPU's state, so this is what it saw).
    pub(crate) fn record_outcome(&self, p: &Wakee, out: &Outcome, d: &mut Decision) {
        d.target = out.target;
        d.recent_used_cpu = p.recent_used_cpu;
        d.result = out.cpu;
        d.decided_by = Some(out.rule);
        let mut missed = std::mem::take(&mut d.missed_idle);
        self.missed_idle(p, out.target, d, &mut missed);
        d.missed_idle = missed;
    }

    /// Idle CPUs of `target`'s LLC that p may use and that no step of `d` looked at (the
    /// design's `missed_idle`: literal, whether or not the wake-up needed them).
    pub fn missed_idle(&self, p: &Wakee, target: u32, d: &Decision, out: &mut Vec<u32>) {
        out.clear();
        let llc = self.topo.llc_of(target);
        if let Some(idle) = &self.idle_cpus {
            // The same list a word at a time: with the idle mask kept, no CPU runs SCHED_IDLE
            // tasks, so both kinds of candidate are exactly the mask's CPUs.
            let mut looked = [0u64; (crate::kernel::topology::MAX_CPUS / 64) as usize];
            for s in d.steps.iter().filter(|s| s.rule != Rule::WakeAffine) {
                if let Some(w) = looked.get_mut((s.cpu / 64) as usize) {
                    *w |= 1u64 << (s.cpu % 64);
                }
            }
            let words = self.topo.llc_span(llc).words().iter();
            let words = words.zip(p.allowed.words()).zip(idle.words()).zip(looked);
            for (wi, (((span, allowed), idle), looked)) in words.enumerate() {
                let mut w = span & allowed & idle & !looked;
                while w != 0 {
                    out.push(wi as u32 * 64 + w.trailing_zeros());
                    w &= w - 1;
                }
            }
            #[cfg(debug_assertions)]
            {
                let mut slow = Vec::new();
                self.missed_idle_cpu_by_cpu(p, llc, d, &mut slow);
                debug_assert_eq!(*out, slow, "missed_idle: idle mask out of date");
            }
            return;
        }
        self.missed_idle_cpu_by_cpu(p, llc, d, out);
    }

    fn missed_idle_cpu_by_cpu(&self, p: &Wakee, llc: u32, d: &Decision, out: &mut Vec<u32>) {
        for cpu in self.topo.llc_span(llc).iter() {
            // The thin path takes only fully idle CPUs; the others count sched-idle ones too.
            let candidate = if self.features.replaces_sis() {
                self.rqs[cpu as usize].available_idle()
            } else {
                self.choose_idle_cpu(cpu)
            };
            if p.allowed.test(cpu)
                && candidate
                && !d
                    .steps
                    .iter()
                    .any(|s| s.cpu == cpu && s.rule != Rule::WakeAffine)
            {
                out.push(cpu);
            }
        }
    }
}
