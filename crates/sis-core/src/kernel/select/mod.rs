//! The wake-up path: select_task_rq_fair, wake_affine, select_idle_sibling in each era's
//! order, select_idle_cpu / select_idle_core / select_idle_smt, the 6.7 cluster scan and
//! LB_PROMOTE's select_task_rq_fair_thin.

use crate::kernel::cpumask::CpuMask;
use crate::kernel::state::SchedState;
use crate::kernel::stats::Counters;
use crate::kernel::throttle;
use crate::kernel::topology::Numbering;
use crate::kernel::trace::{Recorder, Rule, Saw, ScanEnd};

mod budget;
mod cores;
mod fast_scan;
mod legacy;
mod missed;
mod scx;
mod thin;
mod wake_affine;
pub use budget::TaskDuration;
pub use wake_affine::{record_wakee, wake_wide, GroupLoad44, TaskGroups44, WakeeFlips};

/// The waking task as the wake-up path sees it.
#[derive(Clone, Copy, Debug)]
pub struct Wakee<'a> {
    pub prev: u32,
    pub recent_used_cpu: Option<u32>,
    pub allowed: &'a CpuMask,
    /// task_h_load(p), for wake_affine_weight.
    pub load: u64,
    /// Whether wake_wide() said the wakee/waker pair is too wide for an affine wake-up.
    pub wake_wide: bool,
    /// SIS_SHORT's view of p: its average run between voluntary sleeps and wakee_flips.
    pub dur: TaskDuration,
}

/// The waker's side.
#[derive(Clone, Copy, Debug)]
pub struct Waker {
    pub cpu: u32,
    pub sync: bool,
    /// task_h_load(current).
    pub load: u64,
    pub now_ns: u64,
    /// Only SIS_PROP's wake_avg_idle aging (`sis_prop_aged`) reads it.
    pub jiffies: u64,
    /// SIS_SHORT: the task running on the waker's CPU (`cpu_curr(this_cpu)`, the waker for a
    /// wake-up from task context); all zero for the idle task.
    pub curr: TaskDuration,
    /// `current->flags & PF_EXITING`: the waker is in do_exit() (the replay infers it; the
    /// simulator's tasks never exit).
    pub exiting: bool,
}

/// What one wake-up decided and what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub cpu: u32,
    pub rule: Rule,
    /// The target that select_task_rq_fair handed to select_idle_sibling.
    pub target: u32,
    /// The CPU was found by the LLC (domain) search.
    pub found_by_scan: bool,
    /// Runqueues probed in this wake-up (sis_scanned delta).
    pub probes: u32,
    /// Time spent in select_idle_cpu (None: not called), ns.
    pub select_idle_cpu_ns: Option<u64>,
    /// The new `p->recent_used_cpu`.
    pub recent_used_cpu: Option<u32>,
    /// The new `current->recent_used_cpu` of the task running on the waker's CPU, if set.
    pub waker_recent_used_cpu: Option<u32>,
}

pub(crate) use crate::kernel::throttle::NR_INF;

/// select_idle_cpu()'s loop state, as fair.c's locals: the CPUs left to walk (`cpus`), the
/// idle CPU a core scan saw on the way (`idle_cpu`), the budget left (`nr`, NR_INF: none),
/// and whether the loop scans cores (`has_idle_core` in a single-pass select_idle_cpu).
#[derive(Clone, Debug)]
struct LlcScan {
    cpus: CpuMask,
    idle_cpu: Option<u32>,
    nr: i64,
    core_scan: bool,
    hot: budget::CacheHot,
}

/// select_idle_cpu()'s scan budget: `nr` (NR_INF: unthrottled) and whether SIS_PROP times the
/// scan into avg_scan_cost.
#[derive(Clone, Copy)]
struct Budget {
    nr: i64,
    timed: bool,
    /// SIS_FILTER: leave the LLC's overloaded CPUs out of `cpus` (`if (nro > 1)`).
    filter: bool,
    /// SIS_CACHE: SIS_UTIL set `nr`, so `nr_hot = nr >> 1` cache-hot idle CPUs may be passed.
    hot: bool,
}

fn nr_opt(nr: i64) -> Option<i64> {
    (nr != NR_INF).then_some(nr)
}

/// How select_idle_cpu's walk of the LLC (or of the 6.7 cluster pass) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// On to the post-loop code: the loop ran out of CPUs, or broke at an idle CPU (left in
    /// `idle_cpu`); has_idle_cores is cleared and SIS_PROP's avg_scan_cost updated there.
    Completed,
    /// `return i` from inside the loop: an idle core, or an idle CPU of the cluster pass.
    Returned(u32),
    /// `if (!--nr) return -1;` (`--nr <= 0` in the cluster pass): the budget ran out.
    OutOfBudget,
}

struct Ctx<'c, R: Recorder> {
    c: &'c mut Counters,
    rec: &'c mut R,
    probes: u32,
}

impl<'c, R: Recorder> Ctx<'c, R> {
    /// Entering select_idle_sibling (or the thin path): SIS-STAT counts a search, and target,
    /// prev and recent together as one probe.
    fn enter_sis(c: &'c mut Counters, rec: &'c mut R) -> Self {
        c.sis_search += 1;
        c.sis_scanned += 1;
        Ctx { c, rec, probes: 1 }
    }

    #[inline]
    fn probe(&mut self, st: &SchedState, rule: Rule, cpu: u32, nr: i64) -> bool {
        self.c.sis_scanned += 1;
        self.probes += 1;
        let idle = st.choose_idle_cpu(cpu);
        if R::ON {
            self.rec
                .step(rule, cpu, st.rqs[cpu as usize].saw(), nr_opt(nr));
        }
        idle
    }
}

impl SchedState {
    /// `select_task_rq_fair()` for a WF_TTWU wake-up (or `select_task_rq_fair_thin()` under
    /// LB_PROMOTE). Counters are the waker's; `rec` receives every check.
    pub fn select_task_rq_fair<R: Recorder>(
        &mut self,
        p: &Wakee,
        w: &Waker,
        c: &mut Counters,
        rec: &mut R,
    ) -> Outcome {
        if self.features.lb_promote {
            return self.select_task_rq_fair_thin(p, c, rec);
        }
        if self.features.scx_dfl {
            return self.scx_select_cpu_dfl(p, w, c, rec);
        }
        // v4.16 (24d0c1d6e65f) fair.c select_task_rq_fair:
        // `int sync = (wake_flags & WF_SYNC) && !(current->flags & PF_EXITING);`
        let not_sync;
        let w = if w.sync && w.exiting && self.features.sync_not_exiting {
            not_sync = Waker { sync: false, ..*w };
            &not_sync
        } else {
            w
        };
        // want_affine = !wake_wide(p) && cpumask_test_cpu(cpu, p->cpus_ptr)
        let want_affine = !p.wake_wide && p.allowed.test(w.cpu);
        let mut new_cpu = p.prev;
        if want_affine && w.cpu != p.prev {
            // Every domain level has SD_WAKE_AFFINE, and the top one spans both CPUs.
            new_cpu = self.wake_affine(p, w, rec);
            if R::ON {
                rec.step(
                    Rule::WakeAffine,
                    new_cpu,
                    self.rqs[new_cpu as usize].saw(),
                    None,
                );
            }
        }
        let mut out = self.select_idle_sibling(p, w, new_cpu, c, rec);
        // 4.16-5.15 fast path: `if (want_affine) current->recent_used_cpu = cpu;`
        if want_affine && self.features.recent_waker_update {
            out.waker_recent_used_cpu = Some(w.cpu);
        }
        out
    }

    /// What a look at `cpu` saw, as the trace records it: `not_allowed` outside p->cpus_ptr.
    fn saw_for(&self, p: &Wakee, cpu: u32) -> Saw {
        if p.allowed.test(cpu) {
            self.rqs[cpu as usize].saw()
        } else {
            Saw::NotAllowed
        }
    }

    /// `select_idle_sibling()` as each preset orders it.
    pub fn select_idle_sibling<R: Recorder>(
        &mut self,
        p: &Wakee,
        w: &Waker,
        target: u32,
        c: &mut Counters,
        rec: &mut R,
    ) -> Outcome {
        let mut ctx = Ctx::enter_sis(c, rec);
        // No budget unless select_idle_cpu's scan sets one (legacy select_idle_core, 4.4's
        // group walk and select_idle_smt have none).
        self.scan_nr_left = NR_INF;
        self.scan_timed = false;
        self.scan_idle_cpu_remembered = false;
        self.scan_replay = None;
        self.pending_idle_cores_clear = None;
        let mut recent = p.recent_used_cpu;
        let mut out = Outcome {
            cpu: target,
            rule: Rule::Target,
            target,
            found_by_scan: false,
            probes: 0,
            select_idle_cpu_ns: None,
            recent_used_cpu: recent,
            waker_recent_used_cpu: None,
        };
        macro_rules! done {
            ($cpu:expr, $rule:expr) => {{
                out.cpu = $cpu;
                out.rule = $rule;
                out.found_by_scan = $rule.is_domain_search();
                out.probes = ctx.probes;
                out.recent_used_cpu = recent;
                return out;
            }};
        }
        let cluster_active = self.features.cluster && self.topo.has_clusters();

        // 1. target
        if R::ON {
            ctx.rec
                .step(Rule::Target, target, self.rqs[target as usize].saw(), None);
        }
        if self.choose_idle_cpu(target) {
            done!(target, Rule::Target);
        }
        // 2. prev
        let prev = p.prev;
        let mut prev_aff = None;
        if prev != target {
            if R::ON {
                ctx.rec.step(Rule::Prev, prev, self.saw_for(p, prev), None);
            }
            if self.topo.share_llc(prev, target) && self.choose_idle_cpu(prev) {
                if !cluster_active || self.topo.share_resources(prev, target) {
                    done!(prev, Rule::Prev);
                }
                prev_aff = Some(prev);
            }
        }
        // 3. (linux-5.9+: a per-CPU kthread waker on prev stacks the wakee there; the model's
        // wakers are never kthreads, so this check never fires and is not modelled.)
        if self.features.sis_group_walk {
            ctx.c.sis_domain_search += 1;
            if let Some((i, rule)) = self.select_idle_sibling_group_walk(p, target, &mut ctx) {
                done!(i, rule);
            }
            ctx.c.sis_failed += 1;
            done!(target, Rule::Fallback);
        }
        // 4. recent_used_cpu (4.16+)
        let r = p.recent_used_cpu.filter(|_| self.features.recent);
        if self.features.recent && self.features.recent_prev_update {
            recent = Some(prev); // 5.15+: updated whenever we get this far
        }
        let mut recent_fallback = None;
        if let Some(r) = r {
            if r != prev && r != target {
                if R::ON {
                    ctx.rec
                        .step(Rule::RecentUsedCpu, r, self.saw_for(p, r), None);
                }
                if self.topo.share_llc(r, target) && self.choose_idle_cpu(r) && p.allowed.test(r) {
                    // Pre-5.15: p->recent_used_cpu = prev only when r is returned.
                    recent = Some(prev);
                    if !cluster_active || self.topo.share_resources(r, target) {
                        ctx.c.sis_recent_hit += 1;
                        done!(r, Rule::RecentUsedCpu);
                    }
                    recent_fallback = Some(r);
                } else {
                    ctx.c.sis_recent_miss += 1;
                }
            }
        }
        // 5. (linux-5.7+: asymmetric CPU capacity searches sd_asym_cpucapacity; the model's
        // CPUs are symmetric, so the kernel skips it too.)
        // 6. sd_llc(target) always exists here: the LLC search starts.
        ctx.c.sis_domain_search += 1;
        let llc = self.topo.llc_of(target);
        let smt_active = self.topo.smt() > 1;
        if !self.features.single_pass {
            // Legacy (4.13-5.11): three passes.
            if smt_active && self.llcs[llc as usize].has_idle_cores {
                if let Some(i) = self.select_idle_core_legacy(p, target, &mut ctx) {
                    done!(i, Rule::SelectIdleCore);
                }
            }
            let (i, ns) = self.select_idle_cpu(p, w, false, target, &mut ctx);
            out.select_idle_cpu_ns = Some(ns);
            if let Some(i) = i {
                done!(i, Rule::SelectIdleCpu);
            }
            if self.features.smt_target && smt_active {
                if let Some(i) = self.select_idle_smt(p, target, target, true, &mut ctx) {
                    done!(i, Rule::SelectIdleSmt);
                }
            }
        } else {
            let mut has_idle_core = false;
            if smt_active {
                has_idle_core = self.llcs[llc as usize].has_idle_cores;
                if !has_idle_core && self.features.smt_prev && self.topo.share_llc(prev, target) {
                    if let Some(i) = self.select_idle_smt(p, prev, target, false, &mut ctx) {
                        done!(i, Rule::SelectIdleSmt);
                    }
                }
            }
            // SIS_CURRENT v8 select_idle_sibling, before select_idle_cpu: `if
            // (smp_processor_id() == target && wake_on_current(target, p)) return target;`
            if w.cpu == target && self.wake_on_current(target, p, w) {
                out.select_idle_cpu_ns = Some(0);
                done!(target, Rule::SisCurrent);
            }
            if let Some(nr) = self.sis_short_keeps_target(p, w, has_idle_core, target) {
                out.select_idle_cpu_ns = Some(0);
                if R::ON {
                    ctx.rec.nr_before(Some(nr));
                    ctx.rec.scan_end(ScanEnd::NoScan, Some(nr));
                }
                done!(target, Rule::SisShort);
            }
            let (i, ns) = self.select_idle_cpu(p, w, has_idle_core, target, &mut ctx);
            out.select_idle_cpu_ns = Some(ns);
            if let Some(i) = i {
                let rule = if has_idle_core {
                    Rule::SelectIdleCore
                } else if cluster_active && self.topo.share_resources(i, target) {
                    Rule::SelectIdleCluster
                } else {
                    Rule::SelectIdleCpu
                };
                done!(i, rule);
            }
            if let Some(pa) = prev_aff {
                done!(pa, Rule::Prev);
            }
            if let Some(r) = recent_fallback {
                ctx.c.sis_recent_hit += 1;
                done!(r, Rule::RecentUsedCpu);
            }
            if self.features.sis_node {
                let (i, ns) = self.select_idle_node(p, w, target, &mut ctx);
                *out.select_idle_cpu_ns.get_or_insert(0) += ns;
                if let Some(i) = i {
                    done!(i, Rule::SelectIdleNode);
                }
            }
        }
        ctx.c.sis_failed += 1;
        done!(target, Rule::Fallback);
    }

    /// `select_idle_cpu()`: the throttled LLC scan. Returns the CPU found and the simulated
    /// time spent (probes * probe_cost_ns). The budget is worked out here, inline in the
    /// caller, as most wake-ups at high load stop at it (SIS_UTIL's nr == 1).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn select_idle_cpu<R: Recorder>(
        &mut self,
        p: &Wakee,
        w: &Waker,
        has_idle_core: bool,
        target: u32,
        ctx: &mut Ctx<'_, R>,
    ) -> (Option<u32>, u64) {
        let llc = self.topo.llc_of(target);
        if let Some(rule) = &self.nr_expr {
            return self.select_idle_cpu_by_rule(
                p,
                w,
                has_idle_core,
                target,
                rule.per_wakeup(),
                ctx,
            );
        }
        let f = &self.features;
        let mut nr: i64 = NR_INF;
        let mut timed = false;
        let mut filter = false;
        if f.sis_filter {
            match self.sis_filter_nr(p, has_idle_core, llc, ctx) {
                Some(n) => (nr, filter) = n,
                None => return (None, 0),
            }
        }
        let f = &self.features;
        // SIS_PROP: only without an idle core in the single pass; always in the legacy form.
        if f.sis_prop && (!has_idle_core || !f.single_pass) {
            let this_rq = &mut self.rqs[w.cpu as usize];
            let avg_idle = if f.sis_prop_aged {
                // linux-5.14 fair.c select_idle_cpu: age wake_avg_idle by the jiffies elapsed.
                while this_rq.wake_stamp < w.jiffies && this_rq.wake_avg_idle > 0 {
                    this_rq.wake_stamp += 1;
                    this_rq.wake_avg_idle >>= 1;
                }
                this_rq.wake_avg_idle
            } else {
                // linux-5.12 fair.c select_idle_cpu: "large fuzz factor"
                this_rq.avg_idle / 512
            };
            let avg_scan_cost = this_rq.avg_scan_cost;
            if f.sis_avg_cpu
                && !f.single_pass
                && throttle::sis_avg_cpu_skips(avg_idle, avg_scan_cost)
            {
                if R::ON {
                    ctx.rec.scan_end(ScanEnd::AvgCpu, None);
                }
                return (None, 0);
            }
            nr = throttle::sis_prop_nr(self.topo.llc_weight(), avg_idle, avg_scan_cost) as i64;
            timed = true;
        }
        if f.sis_util_rfc && self.llcs[llc as usize].overloaded {
            if R::ON {
                ctx.rec.nr_before(None);
                ctx.rec.scan_end(ScanEnd::NoScan, None);
            }
            return (None, 0);
        }
        if f.sis_util {
            // linux-6.0 fair.c select_idle_cpu: nr = nr_idle_scan + 1; if (nr == 1) return -1
            nr = self.llcs[llc as usize].nr_idle_scan as i64 + 1;
            if nr == 1 {
                if R::ON {
                    ctx.rec.nr_before(Some(1));
                    ctx.rec.scan_end(ScanEnd::NoScan, Some(1));
                }
                return (None, 0);
            }
        }
        if R::ON {
            ctx.rec.nr_before(nr_opt(nr));
        }
        let hot = f.sis_cache && f.sis_util;
        let budget = Budget {
            nr,
            timed,
            filter,
            hot,
        };
        self.select_idle_cpu_scan(p, w, has_idle_core, target, ctx, budget)
    }

    /// `select_idle_cpu()`'s scan with its budget worked out: the 6.7 cluster pass, then the
    /// LLC walk (CPU by CPU, or one of `fast_scan`'s equivalents when nothing is recorded),
    /// then the post-loop bookkeeping.
    fn select_idle_cpu_scan<R: Recorder>(
        &mut self,
        p: &Wakee,
        w: &Waker,
        has_idle_core: bool,
        target: u32,
        ctx: &mut Ctx<'_, R>,
        budget: Budget,
    ) -> (Option<u32>, u64) {
        let f = self.features;
        let llc = self.topo.llc_of(target);
        let probes_at_start = ctx.probes;
        let Budget {
            nr,
            timed,
            filter,
            hot,
        } = budget;
        let mut cpus = std::mem::replace(&mut self.scratch, CpuMask::new(0));
        if filter {
            // SIS_FILTER v3: cpumask_and(cpus, span, p->cpus_ptr); cpumask_andnot(cpus, cpus, sdo_mask(sds))
            cpus.assign_and(self.topo.llc_span(llc), p.allowed);
            cpus.and_not(&self.overloaded_cpus);
        } else if f.span_nr {
            // linux-4.13 fair.c select_idle_cpu: for_each_cpu_wrap(cpu, sched_domain_span(sd),
            // target) { if (!--nr) return -1; if (!cpumask_test_cpu(cpu, &p->cpus_allowed)) continue; ...
            cpus.copy_from(self.topo.llc_span(llc));
        } else {
            cpus.assign_and(self.topo.llc_span(llc), p.allowed);
        }
        let core_scan = has_idle_core && f.single_pass;
        if core_scan {
            ctx.c.sis_core_search += 1;
        }
        let start = if f.scan_from_next { target + 1 } else { target };
        let mut scan = LlcScan {
            cpus,
            idle_cpu: None,
            nr,
            core_scan,
            hot: budget::CacheHot::new(f.sis_cache, hot, nr, w.now_ns),
        };
        let clustered = f.cluster && self.topo.has_clusters();
        if f.single_pass && !clustered && !filter && !f.sis_cache && !f.span_nr {
            self.scan_replay = Some(crate::kernel::state::ScanReplay {
                start,
                nr,
                core: core_scan,
            });
        }
        let mut walk = Walk::Completed;
        if clustered && f.single_pass {
            walk = self.select_idle_cluster(p, target, start, &mut scan, ctx);
        }
        if walk == Walk::Completed {
            walk = match (&self.idle_cpus, R::ON || f.sis_cache) {
                (Some(idle), false) if !core_scan && !f.span_nr => {
                    fast_scan::idle_cpu_words(self, p, idle, start, &mut scan, ctx)
                }
                (Some(idle), false)
                    if core_scan
                        && self.topo.smt() == 2
                        && self.topo.spec.numbering == Numbering::Contiguous =>
                {
                    fast_scan::core_scan_smt2(self, p, idle, start, &mut scan, ctx)
                }
                _ => self.walk_llc(p, start, &mut scan, ctx),
            };
        }
        let LlcScan {
            cpus,
            idle_cpu,
            nr,
            hot,
            ..
        } = scan;
        // An idle CPU seen on the way (an idle-core scan's, or SIS_CACHE's hot one) is returned
        // after the rest of the loop: it may have been taken since.
        let remembered =
            (core_scan && idle_cpu.is_some()) || (idle_cpu.is_none() && hot.hot_cpu.is_some());
        // SIS_CACHE v2: `if (idle_cpu == -1 && hot_cpu != -1) idle_cpu = hot_cpu;`
        let idle_cpu = idle_cpu.or(hot.hot_cpu);
        self.scratch = cpus;
        self.scan_nr_left = nr;
        let ns = (ctx.probes - probes_at_start) as u64 * self.probe_cost_ns;
        if R::ON {
            let end = match walk {
                Walk::Returned(_) => ScanEnd::Found,
                Walk::OutOfBudget => ScanEnd::Budget,
                Walk::Completed if idle_cpu.is_some() => ScanEnd::Found,
                Walk::Completed => ScanEnd::Exhausted,
            };
            ctx.rec.scan_end(end, nr_opt(nr));
        }
        match walk {
            Walk::Returned(i) => return (Some(i), ns),
            Walk::OutOfBudget => return (None, ns),
            Walk::Completed => {}
        }
        if core_scan {
            let clear = self.idle_cores_llc(w.cpu, target);
            if self.defer_idle_cores_clear {
                self.pending_idle_cores_clear = Some(clear);
            } else {
                self.llcs[clear as usize].has_idle_cores = false;
            }
            ctx.c.sis_core_miss += 1;
        }
        self.scan_timed = timed;
        self.scan_idle_cpu_remembered = remembered;
        if timed {
            // Scan-cost sample only for scans that found a CPU or visited every CPU.
            if f.sis_prop_aged {
                let rq = &mut self.rqs[w.cpu as usize];
                rq.wake_avg_idle -= rq.wake_avg_idle.min(ns);
            }
            let rq = &mut self.rqs[w.cpu as usize];
            rq.avg_scan_cost = throttle::update_avg(rq.avg_scan_cost, ns);
        }
        (idle_cpu, ns)
    }

    /// linux-6.7 fair.c select_idle_cpu: the target's cluster first (`--nr <= 0` there; an
    /// idle CPU is returned at once), then its CPUs are taken out of `cpus`.
    fn select_idle_cluster<R: Recorder>(
        &self,
        p: &Wakee,
        target: u32,
        start: u32,
        scan: &mut LlcScan,
        ctx: &mut Ctx<'_, R>,
    ) -> Walk {
        let cl = self.topo.cluster_span_of(target);
        let mut cur = cl.wrap_cursor(start);
        while let Some(cpu) = cur.next(cl) {
            if !scan.cpus.test(cpu) {
                continue;
            }
            match self.walk_one(p, cpu, Rule::SelectIdleCluster, scan, ctx) {
                Some(Walk::Completed) => return Walk::Returned(cpu), // `return idle_cpu;`
                Some(end) => return end,
                None => {}
            }
        }
        scan.cpus.and_not(cl);
        Walk::Completed
    }

    /// The reference walk, as fair.c writes it (linux-6.0 select_idle_cpu):
    /// `for_each_cpu_wrap(cpu, cpus, target + 1)` over [`Self::walk_one`].
    fn walk_llc<R: Recorder>(
        &self,
        p: &Wakee,
        start: u32,
        scan: &mut LlcScan,
        ctx: &mut Ctx<'_, R>,
    ) -> Walk {
        let mut cur = scan.cpus.wrap_cursor(start);
        while let Some(cpu) = cur.next(&scan.cpus) {
            if let Some(end) = self.walk_one(p, cpu, Rule::SelectIdleCpu, scan, ctx) {
                return end;
            }
        }
        Walk::Completed
    }

    /// One CPU of the walk: `select_idle_core()` on its core (an idle core is returned at
    /// once), or `if (!--nr) return -1;` then `__select_idle_cpu()` (an idle CPU: `break`, on
    /// to the post-loop code). None: go on. No throttle (nr == NR_INF, the kernel's INT_MAX)
    /// never decrements, so the trace keeps reporting "unlimited" instead of INT_MAX - k.
    #[inline]
    fn walk_one<R: Recorder>(
        &self,
        p: &Wakee,
        cpu: u32,
        rule: Rule,
        scan: &mut LlcScan,
        ctx: &mut Ctx<'_, R>,
    ) -> Option<Walk> {
        if scan.core_scan {
            let i = self.select_idle_core(p, cpu, &mut scan.cpus, &mut scan.idle_cpu, ctx)?;
            if rule == Rule::SelectIdleCpu && self.pass_cache_hot(i, &mut scan.hot) {
                return None; // SIS_CACHE: `continue`
            }
            return Some(Walk::Returned(i));
        }
        let nr = &mut scan.nr;
        if *nr != NR_INF {
            *nr -= 1;
        }
        if *nr <= 0 {
            // The 2020 schedstat patch (on the two-pass select_idle_cpu, 4.13-5.11) counts
            // sis_scanned before `if (!--nr) return -1`: the exhausting iteration counts.
            if !self.features.single_pass {
                ctx.c.sis_scanned += 1;
            }
            return Some(Walk::OutOfBudget); // no avg_scan_cost update on this path
        }
        if self.features.span_nr && !p.allowed.test(cpu) {
            ctx.c.sis_scanned += 1; // counted at the loop's top, as the exhausting iteration
            if R::ON {
                ctx.rec.step(rule, cpu, Saw::NotAllowed, nr_opt(*nr));
            }
            return None;
        }
        if ctx.probe(self, rule, cpu, *nr) {
            scan.idle_cpu = Some(cpu);
            if rule == Rule::SelectIdleCpu && self.pass_cache_hot(cpu, &mut scan.hot) {
                return None; // SIS_CACHE: `continue`, with idle_cpu left set
            }
            return Some(Walk::Completed);
        }
        if scan.hot.check {
            scan.idle_cpu = None; // `idle_cpu = __select_idle_cpu(cpu, p)`: -1
        }
        None
    }
}
