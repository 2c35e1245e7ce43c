//! Seed 002's LB_PROMOTE wake-up path: prev, recent_used_cpu, the first idle CPU of the LLC,
//! then of the rest of the allowed CPUs, else prev.

use super::{Ctx, Outcome, Wakee};
use crate::kernel::state::SchedState;
use crate::kernel::stats::Counters;
use crate::kernel::trace::{Recorder, Rule};

impl Outcome {
    /// Prev, chosen by `rule` without a scan, the task's recent_used_cpu set to `recent`: where
    /// a path of its own (the thin path, sched_ext's default) starts from.
    pub(super) fn at_prev(prev: u32, rule: Rule, recent: Option<u32>) -> Self {
        Outcome {
            cpu: prev,
            rule,
            target: prev,
            found_by_scan: false,
            probes: 0,
            select_idle_cpu_ns: None,
            recent_used_cpu: recent,
            waker_recent_used_cpu: None,
        }
    }
}

impl SchedState {
    /// Seed 002 `select_task_rq_fair_thin()` (LB_PROMOTE).
    pub fn select_task_rq_fair_thin<R: Recorder>(
        &mut self,
        p: &Wakee,
        c: &mut Counters,
        rec: &mut R,
    ) -> Outcome {
        let mut ctx = Ctx::enter_sis(c, rec);
        let prev = p.prev;
        let mut out = Outcome::at_prev(prev, Rule::Prev, Some(prev));
        if R::ON {
            ctx.rec
                .step(Rule::Prev, prev, self.rqs[prev as usize].saw(), None);
        }
        if self.rqs[prev as usize].available_idle() {
            out.recent_used_cpu = p.recent_used_cpu;
            out.probes = ctx.probes;
            return out;
        }
        // p->recent_used_cpu = prev_cpu (already in `out`)
        if let Some(r) = p.recent_used_cpu {
            if r != prev {
                if R::ON {
                    ctx.rec
                        .step(Rule::RecentUsedCpu, r, self.saw_for(p, r), None);
                }
                // select_task_rq() would reject a CPU outside p->cpus_ptr, so test it here.
                if self.rqs[r as usize].available_idle() && p.allowed.test(r) {
                    ctx.c.sis_recent_hit += 1;
                    out.cpu = r;
                    out.rule = Rule::RecentUsedCpu;
                    out.probes = ctx.probes;
                    return out;
                }
                ctx.c.sis_recent_miss += 1;
            }
        }
        ctx.c.sis_domain_search += 1;
        let llc = self.topo.llc_of(prev);
        let mut first_llc = None;
        for cpu in self.topo.llc_span(llc).iter() {
            if p.allowed.test(cpu) {
                first_llc = Some(cpu);
                break;
            }
        }
        let start = first_llc.or_else(|| p.allowed.first());
        if let Some(start) = start {
            let mut cur = p.allowed.wrap_cursor(start);
            while let Some(cpu) = cur.next(p.allowed) {
                let rule = if self.topo.llc_of(cpu) == llc {
                    Rule::ThinLlc
                } else {
                    Rule::ThinRest
                };
                ctx.c.sis_scanned += 1;
                ctx.probes += 1;
                if R::ON {
                    ctx.rec.step(rule, cpu, self.rqs[cpu as usize].saw(), None);
                }
                if self.rqs[cpu as usize].available_idle() {
                    out.cpu = cpu;
                    out.rule = rule;
                    out.found_by_scan = true;
                    out.probes = ctx.probes;
                    return out;
                }
            }
        }
        ctx.c.sis_failed += 1;
        out.rule = Rule::Fallback;
        out.probes = ctx.probes;
        out
    }
}
