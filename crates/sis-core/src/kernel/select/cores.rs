//! The per-core checks of select_idle_sibling: select_idle_smt() on one core's siblings and
//! the single pass's select_idle_core().

use super::{Ctx, Wakee, NR_INF};
use crate::kernel::cpumask::CpuMask;
use crate::kernel::state::SchedState;
use crate::kernel::trace::{Recorder, Rule, Saw};

impl SchedState {
    /// `select_idle_smt(p, sd, cpu)`: the first idle SMT sibling of `core_cpu` that p may use.
    /// 5.13+ skips `core_cpu` itself; the legacy third pass (4.13-5.11) tests it too.
    pub(super) fn select_idle_smt<R: Recorder>(
        &self,
        p: &Wakee,
        core_cpu: u32,
        target: u32,
        include_self: bool,
        ctx: &mut Ctx<'_, R>,
    ) -> Option<u32> {
        let llc = self.topo.llc_of(target);
        for &cpu in self.topo.smt_siblings(core_cpu) {
            if !include_self && cpu == core_cpu {
                // Mel Gorman's schedstat patch bumps sis_scanned at the top of the loop: the
                // skipped CPU and the disallowed ones below count as looked at, unprobed.
                ctx.c.sis_scanned += 1;
                continue;
            }
            if !p.allowed.test(cpu) || self.topo.llc_of(cpu) != llc {
                ctx.c.sis_scanned += 1;
                if R::ON {
                    ctx.rec
                        .step(Rule::SelectIdleSmt, cpu, Saw::NotAllowed, None);
                }
                continue;
            }
            if ctx.probe(self, Rule::SelectIdleSmt, cpu, NR_INF) {
                return Some(cpu);
            }
        }
        None
    }

    /// Single-pass `select_idle_core(p, core, cpus, &idle_cpu)` (5.12+, seed 003).
    pub(super) fn select_idle_core<R: Recorder>(
        &self,
        p: &Wakee,
        core: u32,
        cpus: &mut CpuMask,
        idle_cpu: &mut Option<u32>,
        ctx: &mut Ctx<'_, R>,
    ) -> Option<u32> {
        let mut idle = true;
        for &cpu in self.topo.smt_siblings(core) {
            ctx.probe(self, Rule::SelectIdleCore, cpu, NR_INF);
            let rq = &self.rqs[cpu as usize];
            if !rq.available_idle() {
                idle = false;
                if idle_cpu.is_none() {
                    if rq.sched_idle() && self.features.sched_idle_as_idle && p.allowed.test(cpu) {
                        *idle_cpu = Some(cpu);
                        break;
                    }
                    continue;
                }
                break;
            }
            if idle_cpu.is_none() && p.allowed.test(cpu) {
                *idle_cpu = Some(cpu);
            }
        }
        if idle {
            return Some(core);
        }
        cpus.and_not(self.topo.smt_mask(core));
        None
    }
}
