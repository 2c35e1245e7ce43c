//! sched_ext's built-in idle selection, `scx_select_cpu_dfl()` as in v6.12
//! kernel/sched/ext.c: the sync waker's CPU while idle CPUs exist and nothing waits behind
//! the waker, prev if its whole core is idle, any wholly idle core, prev if it is idle, any
//! idle CPU, else prev. The idle masks are bitmaps, not runqueue reads: no probe costs time.
//!
//! With SCX_TOPO and SCX_SYNC_NODE_MASK, as in v6.15 kernel/sched/ext_idle.c: a sync
//! wake-up first keeps an idle prev that shares the waker's LLC; the waker's-CPU shortcut
//! reads a per-node idle mask nothing updates (never fires); and prev's LLC, then prev's node,
//! is searched for an idle core, then an idle CPU, before the whole machine (`llc_cpus`: more
//! than one LLC; `numa_cpus`: more than one node and nodes of several LLCs; each only for a
//! task allowed on every CPU).

use super::{Ctx, Outcome, Wakee, Waker};
use crate::kernel::cpumask::CpuMask;
use crate::kernel::state::SchedState;
use crate::kernel::stats::Counters;
use crate::kernel::trace::{Recorder, Rule};

/// Where a 6.15 idle pick looks: the whole allowed mask, prev's LLC or prev's node.
#[derive(Clone, Copy, Debug)]
enum Within {
    All,
    Llc(u32),
    Node(u32),
}

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
        let topo = self.features.scx_topo;
        if topo && p.allowed.weight() == 1 {
            // 6.15 select_task_rq(): ops.select_cpu() only runs for nr_cpus_allowed > 1;
            // otherwise `cpu = cpumask_any(p->cpus_ptr)`.
            out.cpu = p.allowed.first().unwrap_or(prev);
            return out;
        }
        // v6.15 ext_idle.c: `if (p->nr_cpus_allowed >= num_possible_cpus())` ... `if
        // (static_branch_maybe(CONFIG_SCHED_MC, &scx_selcpu_topo_llc)) llc_cpus =
        // llc_span(prev_cpu);` (scx_selcpu_topo_llc: the first CPU's LLC is not every CPU).
        let everywhere = topo && p.allowed.weight() >= n;
        let llc = (everywhere && self.topo.spec.llcs > 1).then(|| self.topo.llc_of(prev));
        // `if (static_branch_maybe(CONFIG_NUMA, &scx_selcpu_topo_numa)) numa_cpus =
        // numa_span(prev_cpu);` (scx_selcpu_topo_numa: the first CPU's node is not every CPU,
        // and llc_numa_mismatch(): a node is not one LLC).
        let node = (everywhere && self.topo.spec.nodes > 1 && self.topo.llcs_per_node() > 1)
            .then(|| self.topo.node_of_llc(self.topo.llc_of(prev)));
        let steps = [llc.map(Within::Llc), node.map(Within::Node)];
        // v6.15: `if (cpus_share_cache(cpu, prev_cpu) && scx_idle_test_and_clear_cpu(prev_cpu))`
        // under WAKE_SYNC: keep an idle prev in the waker's LLC.
        if w.sync
            && topo
            && self.topo.share_llc(w.cpu, prev)
            && self.rqs[prev as usize].available_idle()
        {
            if R::ON {
                ctx.rec
                    .step(Rule::ScxPrev, prev, self.rqs[prev as usize].saw(), None);
            }
            out.rule = Rule::ScxPrev;
            return out;
        }
        // 6.12: `!cpumask_empty(idle_masks.cpu)`; 6.15: `!cpumask_empty(idle_cpumask(
        // waker_node)->cpu)` with waker_node = cpu_to_node(cpu), a per-node mask that only
        // SCX_OPS_BUILTIN_IDLE_PER_NODE updates: empty.
        let any_idle = !self.features.scx_sync_node_mask
            && (0..n).any(|cpu| self.rqs[cpu as usize].available_idle());
        // `(wake_flags & SCX_WAKE_SYNC) && !cpumask_empty(...) && ...
        // cpu_rq(cpu)->scx.local_dsq.nr == 0`: nothing queued behind the waker.
        // ... `&& !(current->flags & PF_EXITING)` (6.12 ext.c, 6.15 ext_idle.c).
        if w.sync && !w.exiting && any_idle && self.rqs[w.cpu as usize].nr_running <= 1 {
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
            // v6.15: `if (llc_cpus) cpu = pick_idle_cpu_in_node(llc_cpus, node,
            // SCX_PICK_IDLE_CORE);` before any idle core of the machine.
            // Then `if (numa_cpus) cpu = pick_idle_cpu_in_node(numa_cpus, node, SCX_PICK_IDLE_CORE)`.
            for within in steps.into_iter().flatten() {
                if let Some(cpu) = self.scx_pick_idle_cpu(&mut ctx, w.cpu, p.allowed, within, true)
                {
                    out.cpu = cpu;
                    out.rule = Rule::ScxIdleCore;
                    out.found_by_scan = true;
                    return out;
                }
            }
            if let Some(cpu) = self.scx_pick_idle_cpu(&mut ctx, w.cpu, p.allowed, Within::All, true)
            {
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
        // v6.15: `if (llc_cpus) cpu = pick_idle_cpu_in_node(llc_cpus, node, 0);` (an idle
        // core first with SMT, then any idle CPU) before the whole machine.
        // Then `if (numa_cpus) cpu = pick_idle_cpu_in_node(numa_cpus, node, 0)`.
        for within in steps.into_iter().flatten() {
            if let Some(cpu) = self.scx_pick_idle_cpu(&mut ctx, w.cpu, p.allowed, within, false) {
                out.cpu = cpu;
                out.rule = Rule::ScxIdleCpu;
                out.found_by_scan = true;
                return out;
            }
        }
        if let Some(cpu) = self.scx_pick_idle_cpu(&mut ctx, w.cpu, p.allowed, Within::All, false) {
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
    /// distribute_cpu_mask_prev). Each mask lookup counts as one scanned entry. `within`: only
    /// an LLC's or a node's CPUs (6.15's `pick_idle_cpu_in_node(llc_cpus or numa_cpus, ..)`,
    /// the same per-CPU cursor).
    fn scx_pick_idle_cpu<R: Recorder>(
        &mut self,
        ctx: &mut Ctx<'_, R>,
        this: u32,
        allowed: &CpuMask,
        within: Within,
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
                    && match within {
                        Within::All => true,
                        Within::Llc(l) => self.topo.llc_of(cpu) == l,
                        Within::Node(nd) => self.topo.node_of_llc(self.topo.llc_of(cpu)) == nd,
                    }
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
