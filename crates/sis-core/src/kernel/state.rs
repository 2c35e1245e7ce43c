//! Scheduler state the wake-up path reads: runqueues, per-LLC shared state, the wakee.

use crate::kernel::cpumask::CpuMask;
use crate::kernel::features::Features;
use crate::kernel::nr_expr::{Inputs as NrExprInputs, NrExpr};
use crate::kernel::pelt::SchedAvg;
use crate::kernel::topology::Topology;
use crate::kernel::trace::Saw;
use serde::{Deserialize, Serialize};

/// `sysctl_sched_migration_cost`, ns.
pub const MIGRATION_COST_NS: u64 = 500_000;

/// What a CPU is doing, as the wake-up path classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuState {
    Idle,
    SchedIdle,
    Busy,
}

/// One CPU's runqueue.
#[derive(Clone, Debug)]
pub struct Rq {
    /// Tasks on the runqueue including the running one.
    pub nr_running: u32,
    /// How many of them are SCHED_IDLE (`cfs.h_nr_idle`).
    pub nr_sched_idle: u32,
    pub pelt: SchedAvg,
    /// `rq->avg_idle`, ns.
    pub avg_idle: u64,
    /// `rq->idle_stamp`, ns; 0 = not idle.
    pub idle_stamp: u64,
    /// `rq->wake_stamp` (jiffies) and `rq->wake_avg_idle` (ns), 5.14-6.6.
    pub wake_stamp: u64,
    pub wake_avg_idle: u64,
    pub max_idle_balance_cost: u64,
    /// This CPU's `sd_llc->avg_scan_cost`, ns (presets with SIS_PROP): a `sched_domain` is
    /// per CPU, so each waker keeps its own average (linux-5.12 fair.c select_idle_cpu:
    /// `this_sd = rcu_dereference(*this_cpu_ptr(&sd_llc))`).
    pub avg_scan_cost: u64,
    /// `rq->overloaded` (SIS_FILTER): what update_overloaded_rq() last wrote, at this CPU's
    /// tick, its idle entry or a load-balance migration, not at every enqueue.
    pub overloaded: bool,
    /// SIS_CACHE v2 `rq->cache_hot_timeout`, ns: until then this idle CPU is cache-hot for the
    /// task that slept on it last (max of now + its avg_hot_dur at each sleep that emptied it).
    pub cache_hot_timeout: u64,
    /// `cpu_load()` where the caller knows the runqueue's load (the replay, from the trace's
    /// prios); read only when `SchedState::cpu_load_known`.
    pub load_avg: u64,
    /// `rq->ttwu_pending` (5.8; `rq->wake_list` before): a wake-up queued on this CPU's
    /// wakelist and not yet activated. Set by the replay from the trace; the simulator
    /// activates a wakee when it chooses its CPU, so it never sets it.
    pub ttwu_pending: bool,
    /// v6.12 `cfs_h_nr_delayed()`: of `nr_running`, the fair tasks left queued `sched_delayed`
    /// (DELAY_DEQUEUE). Set by the replay; the simulator's runqueues have none.
    pub nr_delayed: u32,
}

impl Default for Rq {
    fn default() -> Self {
        // sched_init(): avg_idle = 2 * sysctl_sched_migration_cost; max_idle_balance_cost = it.
        Rq {
            nr_running: 0,
            nr_sched_idle: 0,
            pelt: SchedAvg::default(),
            avg_idle: 2 * MIGRATION_COST_NS,
            idle_stamp: 0,
            wake_stamp: 0,
            wake_avg_idle: 2 * MIGRATION_COST_NS,
            max_idle_balance_cost: MIGRATION_COST_NS,
            avg_scan_cost: 0,
            overloaded: false,
            cache_hot_timeout: 0,
            load_avg: 0,
            ttwu_pending: false,
            nr_delayed: 0,
        }
    }
}

impl Rq {
    /// `available_idle_cpu()`: linux-6.0 core.c idle_cpu(), nothing queued and no wake-up
    /// pending (no vCPU preemption in the model).
    #[inline]
    pub fn available_idle(&self) -> bool {
        self.nr_running == 0 && !self.ttwu_pending
    }
    /// `sched_idle_cpu()`: non-empty and every runnable task is SCHED_IDLE.
    #[inline]
    pub fn sched_idle(&self) -> bool {
        self.nr_running > 0 && self.nr_running == self.nr_sched_idle
    }
    /// SIS_FILTER v3 core.c `rq_overloaded()`: `rq->nr_running - rq->cfs.idle_h_nr_running > 1`.
    #[inline]
    pub fn rq_overloaded(&self) -> bool {
        self.nr_running - self.nr_sched_idle > 1
    }
    pub fn state(&self) -> CpuState {
        if self.available_idle() {
            CpuState::Idle
        } else if self.sched_idle() {
            CpuState::SchedIdle
        } else {
            CpuState::Busy
        }
    }
    pub fn saw(&self) -> Saw {
        match self.state() {
            CpuState::Idle => Saw::Idle,
            CpuState::SchedIdle => Saw::SchedIdle,
            CpuState::Busy => Saw::Busy,
        }
    }
    pub fn util_avg(&self) -> u32 {
        self.pelt.util_avg
    }
    /// linux-6.0 sched.h `cpu_util_cfs()` (capacity_orig 1024 in this model).
    #[inline]
    pub fn cpu_util_cfs(&self, util_est: bool) -> u32 {
        crate::kernel::util_est::cpu_util_cfs(
            self.pelt.util_avg,
            self.pelt.util_est.enqueued,
            util_est,
            crate::kernel::throttle::SCHED_CAPACITY_SCALE as u32,
        )
    }
}

/// The start of a single-pass select_idle_cpu() loop (linux-6.0 fair.c): `for_each_cpu_wrap(cpu,
/// cpus, target + 1)` from `start`, with `nr` (NR_INF: none) and `has_idle_core`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanReplay {
    pub start: u32,
    pub nr: i64,
    pub core: bool,
}

/// `struct sched_domain_shared` of one LLC.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LlcShared {
    pub has_idle_cores: bool,
    pub nr_idle_scan: u32,
    /// The RFC's boolean (seed 001).
    pub overloaded: bool,
    /// The sum_util the last periodic LLC balance saw (for the curve's operating point).
    pub last_sum_util: u64,
    /// SIS_FILTER: `sds->nr_overloaded_cpus`, the weight of this LLC's part of
    /// `SchedState::overloaded_cpus`.
    #[serde(default)]
    pub nr_overloaded_cpus: u32,
}

/// Everything the wake-up path reads and writes.
#[derive(Clone, Debug)]
pub struct SchedState {
    pub topo: Topology,
    pub features: Features,
    /// The LLC domain's imbalance_pct.
    pub imbalance_pct: u32,
    /// The imbalance_pct of the domains above the LLC (DIE/PKG), for wake_affine across LLCs.
    pub pkg_imbalance_pct: u32,
    pub rqs: Vec<Rq>,
    pub llcs: Vec<LlcShared>,
    /// Simulated cost of probing one runqueue, ns.
    pub probe_cost_ns: u64,
    /// Scratch masks reused across wake-ups (the kernel's per-CPU `select_idle_mask`).
    pub(crate) scratch: CpuMask,
    /// `nr` left when the last select_idle_cpu scan returned (NR_INF: no budget), for a
    /// scan the engine continues when the CPU it found is taken before the wakee arrives.
    pub scan_nr_left: i64,
    /// Whether that scan was timed into SIS_PROP's avg_scan_cost (and wake_avg_idle).
    pub scan_timed: bool,
    /// The last scan's CPU is one it saw idle on the way and went on past: single-pass
    /// select_idle_core()'s `*idle_cpu = cpu` (or SIS_CACHE's hot_cpu), returned after the
    /// loop (v5.19 fair.c select_idle_cpu `return idle_cpu;`) without a second look.
    pub scan_idle_cpu_remembered: bool,
    /// Where the last select_idle_sibling's LLC walk started, when it was one the engine
    /// can walk again probe by probe (collision=timed; None: no walk, or one with a cluster
    /// pass, SIS_FILTER, SIS_CACHE or 4.13's span walk).
    pub scan_replay: Option<ScanReplay>,
    /// The kernel clears has_idle_cores when its select_idle_core() loop ends with no idle
    /// core (`set_idle_cores(target, false)`), after every core's probe. Set by a caller that
    /// walks that loop again at its own time (the engine under collision=timed): a scan then
    /// leaves the LLC to clear in `pending_idle_cores_clear`, and the caller clears it when
    /// the loop would have ended, or at once if it does not walk this one.
    pub defer_idle_cores_clear: bool,
    pub pending_idle_cores_clear: Option<u32>,
    /// The CPUs with nr_running 0, when a caller that runs no SCHED_IDLE task keeps this up
    /// to date as it changes runqueues (the engine does), so that it is also exactly the CPUs
    /// `choose_idle_cpu()` accepts. None: not kept (a hand-built state). Only a speed-up: the untraced
    /// LLC scan and `missed_idle` find their answers from it a word at a time.
    pub(crate) idle_cpus: Option<CpuMask>,
    /// A scan-depth rule of the user's own (`--nr-expr`), replacing the preset's throttle:
    /// LLC-wide rules give nr_idle_scan where periodic balance updates it, per-wake-up ones
    /// give select_idle_cpu's budget (see `kernel::nr_expr`).
    pub nr_expr: Option<NrExpr>,
    /// Per CPU: the CPU its last `cpumask_any_and_distribute()` returned (lib/cpumask.c
    /// distribute_cpu_mask_prev, per-CPU and zeroed at boot), for sched_ext's idle picks.
    pub scx_distribute_prev: Vec<u32>,
    /// SIS_FILTER: every LLC's `sdo_mask(sds)` in one mask (an LLC's is its span's part).
    pub overloaded_cpus: CpuMask,
    /// `Rq::load_avg` holds cpu_load() (the replay); false: util_avg stands in for it, as the
    /// engine's tasks are all nice 0 and its load signal is not kept.
    pub cpu_load_known: bool,
    /// The replay's `--autogroup` inference: the task groups of this wake-up's wakee and
    /// waker, for linux-4.4's effective_load(). None: the root task group (the simulator).
    pub tg44: Option<crate::kernel::select::TaskGroups44>,
}

impl SchedState {
    pub fn new(topo: Topology, features: Features, imbalance_pct: u32, probe_cost_ns: u64) -> Self {
        let n = topo.nr_cpus();
        let llcs = topo.spec.llcs as usize;
        SchedState {
            rqs: vec![Rq::default(); n as usize],
            llcs: vec![
                // sd_llc_shared is zero-filled (__sdt_alloc's kzalloc_node): nr_idle_scan is 0
                // until the first periodic LLC balance writes it.
                LlcShared::default();
                llcs
            ],
            scratch: CpuMask::new(n),
            scan_nr_left: crate::kernel::throttle::NR_INF,
            scan_timed: false,
            scan_idle_cpu_remembered: false,
            scan_replay: None,
            defer_idle_cores_clear: false,
            pending_idle_cores_clear: None,
            idle_cpus: None,
            nr_expr: None,
            scx_distribute_prev: vec![0; n as usize],
            overloaded_cpus: CpuMask::new(n),
            cpu_load_known: false,
            tg44: None,
            topo,
            features,
            imbalance_pct,
            pkg_imbalance_pct: 117,
            probe_cost_ns,
        }
    }

    /// What wake_affine reads as a CPU's load: `cpu_load()` (linux-6.0 fair.c; 4.x's
    /// `weighted_cpuload()`), or util_avg where the load is not known.
    #[inline]
    pub fn cpu_load(&self, cpu: u32) -> i64 {
        let rq = &self.rqs[cpu as usize];
        if self.cpu_load_known {
            rq.load_avg as i64
        } else {
            rq.util_avg() as i64
        }
    }

    /// `available_idle_cpu(c) || sched_idle_cpu(c)` as the preset counts it: the test
    /// `__select_idle_cpu` makes, the one later fair.c names `choose_idle_cpu` (with the wakee's SCHED_IDLE check).
    #[inline]
    pub fn choose_idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.rqs[cpu as usize];
        rq.available_idle() || (self.features.sched_idle_as_idle && rq.sched_idle())
    }

    /// The LLC's sum of util as update_sd_lb_stats passes it to update_idle_cpu_scan: each
    /// group's `group_util`, itself the sum of `cpu_util_cfs(i)` (linux-6.0 fair.c
    /// update_sg_lb_stats), so util_est counts where the preset has UTIL_EST.
    pub fn llc_sum_util(&self, llc: u32) -> u64 {
        let util_est = self.features.util_est;
        self.topo
            .llc_span(llc)
            .iter()
            .map(|c| self.rqs[c as usize].cpu_util_cfs(util_est) as u64)
            .sum()
    }

    /// linux-6.0 fair.c update_idle_cpu_scan, with the sum_util update_sd_lb_stats hands it:
    /// recompute nr_idle_scan (SIS_UTIL) and the RFC's overloaded flag from the LLC's
    /// utilisation. Called by periodic balance only (the arithmetic is
    /// `throttle::update_idle_cpu_scan`).
    pub fn update_idle_cpu_scan(&mut self, llc: u32) {
        if self.features.replaces_sis() {
            return; // seed 002: LB_PROMOTE stops nr_idle_scan updates; sched_ext has none
        }
        let w = self.topo.llc_weight();
        let mut sum_util = self.llc_sum_util(llc);
        if self.features.sis_util_idle_aware {
            let nr_idle = self
                .topo
                .llc_span(llc)
                .iter()
                .filter(|c| self.rqs[*c as usize].available_idle())
                .count() as u32;
            sum_util = crate::kernel::throttle::idle_aware_sum(sum_util, nr_idle);
        }
        if let Some(rule) = self.nr_expr.as_ref().filter(|r| !r.per_wakeup()) {
            let inputs = self.nr_expr_inputs(llc, None);
            let nr = rule.nr_scan(&inputs);
            let shared = &mut self.llcs[llc as usize];
            shared.last_sum_util = sum_util;
            shared.nr_idle_scan = nr;
            return;
        }
        let shared = &mut self.llcs[llc as usize];
        shared.last_sum_util = sum_util;
        let total_capacity = w as u64 * crate::kernel::throttle::SCHED_CAPACITY_SCALE;
        shared.overloaded =
            crate::kernel::throttle::rfc_overloaded(total_capacity, sum_util, self.imbalance_pct);
        let mut nr = crate::kernel::throttle::update_idle_cpu_scan(sum_util, w, self.imbalance_pct);
        if self.features.sis_util_small_llc {
            nr = crate::kernel::throttle::small_llc_scale(nr, w);
        }
        shared.nr_idle_scan = nr;
    }

    /// What a `--nr-expr` rule reads for `llc`: the LLC's sum of cpu_util_cfs and idle CPUs now,
    /// and the waking CPU's avg_idle, avg_scan_cost and nr_running when there is one.
    pub fn nr_expr_inputs(&self, llc: u32, waker_cpu: Option<u32>) -> NrExprInputs {
        let sat = |v: u64| v.min(i64::MAX as u64) as i64;
        let span = self.topo.llc_span(llc);
        let nr_idle = span
            .iter()
            .filter(|c| self.rqs[*c as usize].available_idle())
            .count();
        let waker = waker_cpu.map(|c| &self.rqs[c as usize]);
        NrExprInputs {
            sum_util: sat(self.llc_sum_util(llc)),
            llc_weight: self.topo.llc_weight() as i64,
            imbalance_pct: self.imbalance_pct as i64,
            nr_idle: nr_idle as i64,
            avg_idle: waker.map_or(0, |rq| sat(rq.avg_idle)),
            avg_scan_cost: waker.map_or(0, |rq| sat(rq.avg_scan_cost)),
            nr_running: waker.map_or(0, |rq| rq.nr_running as i64),
        }
    }

    /// SIS_FILTER v3 core.c `update_overloaded_rq()`: sets or clears `cpu` in its LLC's
    /// overloaded mask when rq_overloaded() changed since the last call. The kernel calls it
    /// from scheduler_tick, set_next_task_idle and load balance's detach/attach only, so the
    /// mask lags the runqueues between ticks. A no-op for presets without the filter.
    pub fn update_overloaded_rq(&mut self, cpu: u32) {
        if !self.features.sis_filter {
            return;
        }
        let overloaded = self.rqs[cpu as usize].rq_overloaded();
        self.set_overloaded(cpu, overloaded);
    }

    /// Writes `rq->overloaded` and the mask and count with it (a state file's stale value too).
    pub fn set_overloaded(&mut self, cpu: u32, overloaded: bool) {
        let rq = &mut self.rqs[cpu as usize];
        if rq.overloaded == overloaded {
            return;
        }
        rq.overloaded = overloaded;
        let shared = &mut self.llcs[self.topo.llc_of(cpu) as usize];
        if overloaded {
            self.overloaded_cpus.set(cpu);
            shared.nr_overloaded_cpus += 1;
        } else {
            self.overloaded_cpus.clear(cpu);
            shared.nr_overloaded_cpus -= 1;
        }
    }

    /// The LLC whose has_idle_cores a core scan that found no idle core clears: the target's
    /// (5.13, 02dbb7246c5b), the waker's in 5.12 (fair.c select_idle_cpu: `set_idle_cores(this,
    /// false)`).
    pub fn idle_cores_llc(&self, waker_cpu: u32, target: u32) -> u32 {
        if self.features.idle_cores_this {
            self.topo.llc_of(waker_cpu)
        } else {
            self.topo.llc_of(target)
        }
    }

    /// `__update_idle_core()`: a CPU going idle sets has_idle_cores when its whole core is idle.
    /// Returns whether it did.
    pub fn update_idle_core(&mut self, cpu: u32) -> bool {
        if self.topo.smt() < 2 {
            return false;
        }
        let idle_core = self
            .topo
            .smt_siblings(cpu)
            .iter()
            .all(|s| self.rqs[*s as usize].available_idle());
        if idle_core {
            let llc = self.topo.llc_of(cpu);
            self.llcs[llc as usize].has_idle_cores = true;
        }
        idle_core
    }
}
