//! What the posted proposals add around select_idle_cpu(): its budget under a user's
//! `--nr-expr` rule and under SIS_FILTER's overloaded-CPU count, and SIS_NODE's scan of the
//! other LLCs.

use super::{Budget, Ctx, Wakee, Waker};
use crate::kernel::state::{SchedState, MIGRATION_COST_NS};
use crate::kernel::trace::{Recorder, ScanEnd};

/// What SIS_SHORT reads of a task (Chen Yu's v6, February 2023): `p->se.dur_avg`, the
/// update_avg() of its CPU time between voluntary sleeps, ns, and `p->wakee_flips`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskDuration {
    pub dur_avg: u64,
    pub wakee_flips: u32,
    /// SIS_CURRENT v8: its `last_wakee` is the other side of this wake-up (for the wakee: the
    /// waker, `p->last_wakee == current`; for the waker: `current->last_wakee == p`).
    pub last_wakee_is_peer: bool,
}

/// SIS_CACHE v2's locals in select_idle_cpu: how many cache-hot idle CPUs may still be passed
/// over (`nr_hot`, `nr >> 1` under SIS_UTIL, else 0), the first one passed (`hot_cpu`), and
/// the clock they are compared at.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CacheHot {
    pub check: bool,
    pub nr_hot: i64,
    pub hot_cpu: Option<u32>,
    pub now_ns: u64,
}

impl CacheHot {
    pub fn new(sis_cache: bool, by_sis_util: bool, nr: i64, now_ns: u64) -> Self {
        CacheHot {
            check: sis_cache,
            // `nr_hot = nr >> 1;` where SIS_UTIL set nr (and nr_hot = 0 otherwise).
            nr_hot: if by_sis_util { nr >> 1 } else { 0 },
            hot_cpu: None,
            now_ns,
        }
    }
}

impl SchedState {
    /// SIS_FILTER v3 fair.c select_idle_cpu, before SIS_PROP: `nro = atomic_read(&sds->
    /// nr_overloaded_cpus); if (nro == weight) goto out;` (which clears has_idle_cores when
    /// scanning for a core), `nr = min_t(int, weight, p->nr_cpus_allowed)`, `if (weight - nro <
    /// (nr >> 4) && !has_idle_core) return -1;`. Some((nr, whether the mask applies)), or None
    /// for no scan.
    #[inline(never)]
    pub(super) fn sis_filter_nr<R: Recorder>(
        &mut self,
        p: &Wakee,
        has_idle_core: bool,
        llc: u32,
        ctx: &mut Ctx<'_, R>,
    ) -> Option<(i64, bool)> {
        let weight = self.topo.llc_weight() as i64;
        let nro = self.llcs[llc as usize].nr_overloaded_cpus as i64;
        let nr = weight.min(p.allowed.weight() as i64);
        let no_scan = nro == weight || (weight - nro < (nr >> 4) && !has_idle_core);
        if no_scan {
            if nro == weight && has_idle_core {
                self.llcs[llc as usize].has_idle_cores = false;
            }
            if R::ON {
                ctx.rec.nr_before(None);
                ctx.rec.scan_end(ScanEnd::NoScan, None);
            }
            return None;
        }
        Some((nr, nro > 1))
    }

    /// select_idle_cpu() with a `--nr-expr` rule for its throttle, used as SIS_UTIL uses
    /// nr_idle_scan (`nr = rule + 1; if (nr == 1) return -1`): an LLC-wide rule's value is the
    /// nr_idle_scan periodic balance wrote, a per-wake-up rule is evaluated now on the waker's
    /// inputs (and, reading avg_scan_cost, its scans are timed into it as SIS_PROP's are).
    #[inline(never)]
    pub(super) fn select_idle_cpu_by_rule<R: Recorder>(
        &mut self,
        p: &Wakee,
        w: &Waker,
        has_idle_core: bool,
        target: u32,
        per_wakeup: bool,
        ctx: &mut Ctx<'_, R>,
    ) -> (Option<u32>, u64) {
        let llc = self.topo.llc_of(target);
        let nr_scan = match (per_wakeup, &self.nr_expr) {
            (true, Some(rule)) => rule.nr_scan(&self.nr_expr_inputs(llc, Some(w.cpu))),
            _ => self.llcs[llc as usize].nr_idle_scan,
        };
        let nr = nr_scan as i64 + 1;
        if R::ON {
            ctx.rec.nr_before(Some(nr));
        }
        if nr == 1 {
            if R::ON {
                ctx.rec.scan_end(ScanEnd::NoScan, Some(1));
            }
            return (None, 0);
        }
        let budget = Budget {
            nr,
            timed: per_wakeup,
            filter: false,
            hot: false,
        };
        self.select_idle_cpu_scan(p, w, has_idle_core, target, ctx, budget)
    }

    /// SIS_NODE, tip c5214e13ad60 fair.c `select_idle_node(p, sd, target)`: the LLC domain's
    /// parent (`if (!parent || parent->flags & SD_NUMA) return -1;`: the LLCs of target's
    /// node, none when the node is one LLC, since its parent is then SD_NUMA) walks its groups
    /// from target's, `sg = sg->next` in the order build_sched_groups made them (each LLC first
    /// met walking CPU ids up from target), skips the group that `cpus_share_cache(cpu,
    /// target)`, and runs `select_idle_cpu(p, per_cpu(sd_llc, cpu), test_idle_cores(cpu), cpu)`
    /// from each other group's first CPU; the first CPU found is returned. (CPU found, time).
    pub(super) fn select_idle_node<R: Recorder>(
        &mut self,
        p: &Wakee,
        w: &Waker,
        target: u32,
        ctx: &mut Ctx<'_, R>,
    ) -> (Option<u32>, u64) {
        let n = self.topo.nr_cpus();
        let target_llc = self.topo.llc_of(target);
        let node = self.topo.node_of_llc(target_llc);
        // A bitmask of the LLCs met (at most MAX_LLCS = 16): no allocation per wake-up.
        let mut seen: u32 = 1 << target_llc;
        let mut ns = 0;
        let mut left = self.topo.llcs_per_node() - 1;
        let mut i = target;
        while left > 0 {
            i = if i + 1 == n { 0 } else { i + 1 };
            let llc = self.topo.llc_of(i);
            if seen & (1 << llc) != 0 || self.topo.node_of_llc(llc) != node {
                continue;
            }
            seen |= 1 << llc;
            left -= 1;
            let Some(cpu) = self.topo.llc_span(llc).iter().next() else {
                continue;
            };
            let has_idle_core = self.topo.smt() > 1 && self.llcs[llc as usize].has_idle_cores;
            let (found, t) = self.select_idle_cpu(p, w, has_idle_core, cpu, ctx);
            ns += t;
            if found.is_some() {
                return (found, ns);
            }
        }
        (None, ns)
    }

    /// SIS_SHORT v6 fair.c `is_short_task(p)`: `!p->wakee_flips && p->se.dur_avg &&
    /// (p->se.dur_avg * 8) < sysctl_sched_min_granularity`.
    pub(super) fn is_short_task(&self, t: &TaskDuration) -> bool {
        self.features.sis_short
            && t.wakee_flips == 0
            && t.dur_avg != 0
            && t.dur_avg.saturating_mul(8) < self.sched_min_granularity_ns()
    }

    /// SIS_CURRENT v8 fair.c `wake_on_current(this_cpu, p)` (Chen Yu, 29 April 2023, unmerged):
    /// this CPU runs at most the waker; waker and wakee both short (`0 < se.dur_avg <
    /// sysctl_sched_migration_cost`), neither switching partners (`wakee_flips == 0`), and
    /// each the other's `last_wakee`.
    pub(super) fn wake_on_current(&self, this_cpu: u32, p: &Wakee, w: &Waker) -> bool {
        let short = |t: &TaskDuration| t.dur_avg != 0 && t.dur_avg < MIGRATION_COST_NS;
        self.features.sis_current
            && self.rqs[this_cpu as usize].nr_running <= 1
            && short(&w.curr)
            && short(&p.dur)
            && w.curr.wakee_flips == 0
            && p.dur.wakee_flips == 0
            && w.curr.last_wakee_is_peer
            && p.dur.last_wakee_is_peer
    }

    /// `sysctl_sched_min_granularity` as update_sysctl() scales it at boot (v6.2 fair.c
    /// get_update_sysctl_factor, SCHED_TUNABLESCALING_LOG): 0.75 ms * (1 + ilog2(min(cpus, 8))).
    pub fn sched_min_granularity_ns(&self) -> u64 {
        let cpus = self.topo.nr_cpus().clamp(1, 8);
        750_000 * (1 + cpus.ilog2() as u64)
    }

    /// SIS_SHORT v6 fair.c select_idle_cpu, after SIS_UTIL's `nr = nr_idle_scan + 1;` and
    /// `if (nr == 1) return -1;`: `if (!has_idle_core && this == target && (5 * nr < 3 *
    /// sd->span_weight) && cpu_rq(target)->nr_running <= 1 && is_short_task(p) &&
    /// is_short_task(cpu_curr(target))) return target;`. select_idle_sibling checks it just
    /// before it calls select_idle_cpu: nothing between them reads or writes state. Some(SIS_UTIL's
    /// nr) when it keeps target.
    pub(super) fn sis_short_keeps_target(
        &self,
        p: &Wakee,
        w: &Waker,
        has_idle_core: bool,
        target: u32,
    ) -> Option<i64> {
        let f = &self.features;
        if !f.sis_short || !f.sis_util || self.nr_expr.is_some() {
            return None;
        }
        let nr = self.llcs[self.topo.llc_of(target) as usize].nr_idle_scan as i64 + 1;
        let keep = nr != 1
            && !has_idle_core
            && w.cpu == target
            && 5 * nr < 3 * self.topo.llc_weight() as i64
            && self.rqs[target as usize].nr_running <= 1
            && self.is_short_task(&p.dur)
            && self.is_short_task(&w.curr);
        keep.then_some(nr)
    }

    /// SIS_CACHE v2 select_idle_cpu, at an idle CPU or core `i`: `if (--nr_hot >= 0 &&
    /// cache_hot_cpu(i, &hot_cpu)) continue;`. cache_hot_cpu(): the CPU is cache-hot while
    /// `sched_clock_cpu(cpu) < cpu_rq(cpu)->cache_hot_timeout`; the first is kept as backup.
    pub(super) fn pass_cache_hot(&self, i: u32, hot: &mut CacheHot) -> bool {
        if !hot.check {
            return false;
        }
        hot.nr_hot -= 1;
        if hot.nr_hot < 0 || hot.now_ns >= self.rqs[i as usize].cache_hot_timeout {
            return false;
        }
        hot.hot_cpu.get_or_insert(i);
        true
    }
}
