//! sched_ext's built-in idle selection, `scx_select_cpu_dfl()` as in v6.12
//! kernel/sched/ext.c: the sync waker's CPU while idle CPUs exist and nothing waits behind
//! the waker, prev if its whole core is idle, any wholly idle core, prev if it is idle, any
//! idle CPU, else prev. The idle masks are bitmaps, not runqueue reads: no probe costs time.

use super::{Ctx, Outcome, Wakee, Waker};
use crate::kernel::cpumask::CpuMask;
use crate::kernel::state::SchedState;
use crate::kernel::stats::Counters;
use crate::kernel::trace::{Recorder, Rule};

impl SchedState {
    /// v6.12 ext.c `scx_select_cpu_dfl()` (the SCX_DFL preset replaces select_task_rq_fair).
    pub fn scx_select_cpu_dfl<R: Recorder>(
        &mut self,
        p: &Wakee,
        w: &Waker,
        c: &mut Counters,
        rec: &mut R,
    ) -> Outcome {
        let mut ctx = Ctx::enter_sis(c, rec);
        let prev = p.prev;
        let mut out = Outcome::at_prev(prev, Rule::Fallback, p.recent_used_cpu);
        let n = self.topo.nr_cpus();
        let any_idle = (0..n).any(|cpu| self.rqs[cpu as usize].available_idle());
        // `(wake_flags & SCX_WAKE_SYNC) && !cpumask_empty(idle_masks.cpu) && ...
        // cpu_rq(cpu)->scx.local_dsq.nr == 0`: nothing queued behind the waker.
        if w.sync && any_idle && self.rqs[w.cpu as usize].nr_running <= 1 {
            if R::ON {
                ctx.rec
                    .step(Rule::ScxSync, w.cpu, self.saw_for(p, w.cpu), None);
            }
            if p.allowed.test(w.cpu) {
                out.cpu = w.cpu;
                out.rule = Rule::ScxSync;
                return out;
            }
        }
        if p.allowed.weight() == 1 {
            // `if (p->nr_cpus_allowed == 1)`: prev if idle, else prev without an idle CPU.
            if self.rqs[prev as usize].available_idle() {
                out.rule = Rule::ScxPrev;
            } else {
                ctx.c.sis_failed += 1;
            }
            return out;
        }
        ctx.c.sis_domain_search += 1;
        // `if (sched_smt_active())`: prev if its whole core is idle, then any idle core.
        if self.topo.smt() > 1 {
            if R::ON {
                ctx.rec
                    .step(Rule::ScxPrevCore, prev, self.rqs[prev as usize].saw(), None);
            }
            if self.core_idle(prev) {
                out.rule = Rule::ScxPrevCore;
                return out;
            }
            if let Some(cpu) = self.scx_pick_idle_cpu(&mut ctx, w.cpu, p.allowed, true) {
                out.cpu = cpu;
                out.rule = Rule::ScxIdleCore;
                out.found_by_scan = true;
                return out;
            }
        }
        if R::ON {
            ctx.rec
                .step(Rule::ScxPrev, prev, self.rqs[prev as usize].saw(), None);
        }
        if self.rqs[prev as usize].available_idle() {
            out.rule = Rule::ScxPrev;
            return out;
        }
        if let Some(cpu) = self.scx_pick_idle_cpu(&mut ctx, w.cpu, p.allowed, false) {
            out.cpu = cpu;
            out.rule = Rule::ScxIdleCpu;
            out.found_by_scan = true;
            return out;
        }
        ctx.c.sis_failed += 1;
        out
    }

    /// Every SMT sibling of `cpu` (itself included) is idle: its bit in `idle_masks.smt`.
    fn core_idle(&self, cpu: u32) -> bool {
        self.topo
            .smt_siblings(cpu)
            .iter()
            .all(|&s| self.rqs[s as usize].available_idle())
    }

    /// v6.12 ext.c `scx_pick_idle_cpu()`: a wholly idle core's CPU (with SMT), then (unless
    /// `core_only`) any idle CPU, each by `cpumask_any_and_distribute()`: the first allowed
    /// CPU after the one this CPU last picked, wrapping (lib/cpumask.c,
    /// distribute_cpu_mask_prev). Each mask lookup counts as one scanned entry.
    fn scx_pick_idle_cpu<R: Recorder>(
        &mut self,
        ctx: &mut Ctx<'_, R>,
        this: u32,
        allowed: &CpuMask,
        core_only: bool,
    ) -> Option<u32> {
        let smt = self.topo.smt() > 1;
        let masks: &[bool] = match (smt, core_only) {
            (true, true) => &[true],
            (true, false) => &[true, false],
            (false, _) => &[false],
        };
        let n = self.topo.nr_cpus();
        for &core in masks {
            ctx.c.sis_scanned += 1;
            let start = self.scx_distribute_prev[this as usize] + 1;
            let found = (0..n).map(|i| (start + i) % n).find(|&cpu| {
                allowed.test(cpu)
                    && if core {
                        self.core_idle(cpu)
                    } else {
                        self.rqs[cpu as usize].available_idle()
                    }
            });
            if let Some(cpu) = found {
                self.scx_distribute_prev[this as usize] = cpu;
                if R::ON {
                    let rule = if core {
                        Rule::ScxIdleCore
                    } else {
                        Rule::ScxIdleCpu
                    };
                    ctx.rec.step(rule, cpu, self.rqs[cpu as usize].saw(), None);
                }
                return Some(cpu);
            }
        }
        None
    }
}
