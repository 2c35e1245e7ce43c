//! The discrete-event engine: tasks run, block and wake each other in integer nanoseconds;
//! every wake-up goes through the preset's wake-up path; periodic LLC balance is the only
//! writer of nr_idle_scan.
//!
//! One `Simulation`, its `impl` spread over files by concern: build, runqueue, roles,
//! wakeup, balance, report, invariants.

mod balance;
mod build;
mod cfs;
mod invariants;
#[cfg(test)]
mod price_tests;
mod report;
mod roles;
mod runqueue;
mod series;
mod switch;
#[cfg(test)]
mod tests;
mod timed;
mod wakeup;
pub mod warmup;

pub use report::{CpuView, HistogramReport, PerCpu, RunReport, ThroughputReport};
use runqueue::{LlcLoad, RunList};
pub use series::WindowRow;
pub use warmup::WarmupReport;

use crate::error::InputError;
use crate::kernel::cpumask::CpuMask;
use crate::kernel::features::Features;
use crate::kernel::pelt::SchedAvg;
use crate::kernel::select::{Outcome, TaskDuration, Wakee, WakeeFlips, Waker};
use crate::kernel::state::{CpuState, LlcShared, SchedState};
use crate::kernel::stats::{Counters, LatencyHistogram, Metrics, ScanHistogram};
use crate::kernel::topology::Topology;
use crate::kernel::trace::Decision;
use crate::sim::queue::EventQueue;
use crate::sim::rng::Rng;
use crate::sim::scenario::{Collision, ScanCost, Scenario};
use crate::sim::workload::{Role, TaskSpec, Timing};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// CFS-like round-robin slice when others wait, ns.
const SLICE_NS: u64 = 3_000_000;
/// Decisions kept for the UI and `sis trace` (a ring buffer: memory stays bounded).
pub const DECISION_RING: usize = 256;
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// The running task's current stint on `cpu` ends (stale if `gen` moved on).
    StintEnd { cpu: u32, gen: u32 },
    // The next three are StintEnds that end the task's burst, for the commonest roles: what
    // the task does then is known when the stint starts (its role, and whether it runs a
    // syscall tail, do not change while it runs), so one jump on the event reaches it instead
    // of a second one on the role.
    /// A client's request ends: it wakes its server and runs its syscall tail.
    ClientRequestEnd { cpu: u32, gen: u32 },
    /// A server's reply: it goes through the network stack, and the server blocks.
    ServerReplyEnd { cpu: u32, gen: u32 },
    /// The end of a syscall tail: the task blocks.
    TailEnd { cpu: u32, gen: u32 },
    /// A task's timer fires (or its first wake).
    Timer { task: u32 },
    /// Periodic balance of one group of an LLC domain.
    Balance { llc: u32, group: u32 },
    /// A message reaches `wakee` after the network stack's delay; the wake-up runs on
    /// `cpu`, where the sender ran (loopback softirq).
    Net { wakee: u32, waker: u32, cpu: u32 },
    /// A woken task reaches the runqueue its wake-up chose, once the waker's scan is over.
    Enqueue { task: u32, cpu: u32 },
    /// scheduler_tick() on every CPU at a jiffy boundary (the ticks are not skewed by default,
    /// sched_skew_tick = 0), queued only for a kernel that does something there.
    Tick,
    /// runqueue=cfs: a wake-up or a tick rescheduled `cpu`'s running task (need_resched); it
    /// is switched out at this preemption point, after the event that asked.
    Resched { cpu: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskState {
    Sleeping,
    /// Woken and placed on this CPU, not yet enqueued: the waker is still scanning.
    Waking(u32),
    Queued(u32),
    Running(u32),
}

impl Task {
    /// The wall-clock spin set up by `spin_ns` starts at `now`.
    fn start_wall_spin(&mut self, now: u64) {
        self.spin_until = now + std::mem::take(&mut self.spin_ns);
    }
}

#[derive(Clone, Debug)]
struct Task {
    role: Role,
    affinity: u32,
    state: TaskState,
    prev: u32,
    recent_used_cpu: Option<u32>,
    pelt: SchedAvg,
    /// Remaining run time of the current burst, ns.
    remaining: u64,
    /// When it was last woken (for latency), ns; u64::MAX = not pending.
    woken_at: u64,
    /// hackbench receiver: messages waiting.
    pending_msgs: u32,
    /// schbench's usec_spin() times its spin by gettimeofday(): a spin of this many ns starts
    /// when the task next runs (0: none), and ends at `spin_until` (0: not spinning) however
    /// long it waited on a runqueue meanwhile.
    spin_ns: u64,
    spin_until: u64,
    /// schbench message thread: its futex posted (FUTEX_RUNNING) since it last set it
    /// FUTEX_BLOCKED; it sleeps in fwait() for a post; its next burst is message_cputime's spin.
    futex_posted: bool,
    in_fwait: bool,
    msg_spin_next: bool,
    /// Running the tail of a syscall after waking a peer; blocks when it ends.
    in_tail: bool,
    /// The timer to arm when the tail ends (a sender's think time after the scans it paid).
    tail_timer: Option<u64>,
    /// An event will wake this task: its first start (Event::Timer) or, for a netperf/tbench
    /// client, its server's reply crossing the loopback (Event::Net). For the invariants.
    wake_pending: bool,
    /// record_wakee()'s state, for wake_wide().
    flips: WakeeFlips,
    /// When it last became its CPU's curr, ns, and its CPU time since it last slept
    /// (`sum_exec_runtime - prev_sleep_sum_runtime`), for SIS_SHORT's dur_avg.
    exec_start: u64,
    ran_since_sleep: u64,
    /// SIS_SHORT v6 `p->se.dur_avg`: update_avg() of the CPU time between voluntary sleeps.
    dur_avg: u64,
    /// SIS_CACHE v2 `p->last_dequeue_time` (ns, 0: its last dequeue was not a sleep) and
    /// `p->avg_hot_dur`: update_avg() of its sleeps shorter than the migration cost.
    last_dequeue_ns: u64,
    avg_hot_dur: u64,
    /// `p->se.exec_start` as task_hot() reads it of a task not running: update_curr() moved
    /// it to when the task last stopped running (ns; 0: it never ran, so never hot).
    last_ran_ns: u64,
    /// The mean of the jittered burst `burst_for` draws for this role, or 0 if not jittered.
    jittered_burst_ns: u64,
    /// The next task in its CPU's queue (NONE: the last, or not queued).
    next_queued: u32,
    /// The CPU whose wake-up is placing it (NONE: not a wake-up), for the enqueue's costs.
    waker_cpu: u32,
    /// Its wake-up picked an idle CPU (counted in `idle_pick_taken` if another task has it
    /// by the enqueue).
    picked_idle: bool,
    /// While Waking to a CPU its scan found, under collision=rescan: how to go on scanning if
    /// that CPU is taken first (None: the placement is final).
    rescan: Option<Rescan>,
    /// runqueue=cfs: `se->vruntime`, ns, on the runqueue it is on or last slept on (`prev`);
    /// relative to no runqueue's min_vruntime while a wake-up migrates it (set_task_cpu ->
    /// migrate_task_rq_fair subtracted the old one's; enqueue_entity adds the new one's).
    vruntime: u64,
    vruntime_relative: bool,
}

/// A scan the engine can continue when the CPU it found is taken before the wakee arrives.
#[derive(Clone, Copy, Debug)]
struct Rescan {
    /// The scan's `nr` left (`NR_INF`: no budget).
    nr_left: i64,
    /// When the kernel's loop probed the CPU it stopped at: the scan's end, ns. Taken after
    /// that (while the waker waits for its runqueue lock), the wakee queues there.
    seen_at: u64,
    /// What select_idle_sibling falls back to.
    target: u32,
    /// The seq of the wake-up's recorded decision (0: not recorded), to add the rescan to.
    seq: u64,
    /// The decision's seq (`decision_seq`): its rescan counts only in the window that counted
    /// it (a wake-up decided in the warm-up may rescan after counting starts).
    decided_seq: u64,
    /// The scan's select_idle_cpu time as counted (0: not counted), its waker's CPU, and
    /// whether SIS_PROP timed it: the rescan adds to the same sample.
    counted_ns: u64,
    waker_cpu: u32,
    timed: bool,
    /// collision=timed: the walk to take again at the scan's end (None: rescan's rule).
    walk: Option<timed::TimedWalk>,
}

#[derive(Clone, Debug, Default)]
struct Cpu {
    curr: Option<u32>,
    queue: RunList,
    /// When the current stint started, and when its end event is due.
    stint_start: u64,
    stint_end_at: u64,
    /// Until when it is busy with a wake-up's scan (scan_cost=waker).
    scan_until: u64,
    gen: u32,
    /// Its LLC (the topology's, next to the state read with it).
    llc: u32,
    /// When its runqueue's lock is free again (each holder keeps it one line transfer).
    lock_free_at: u64,
    /// The cpuidle governor's prediction of the next idle period: the last one, ns.
    predicted_idle_ns: u64,
    /// The next pick starts its task this much later (an IPI and an idle state's exit).
    start_delay: u64,
    /// Until when a waker on it spins for a remote runqueue's lock, and until when it is
    /// exiting an idle state (the CPU view).
    lock_wait_until: u64,
    idle_exit_until: u64,
    /// When it last stopped being idle (an enqueue on its empty runqueue), ns.
    busy_since: u64,
    /// runqueue=cfs: `cfs_rq->min_vruntime`, the next and last buddies, and whether a
    /// wake-up or a tick has asked the running task to reschedule (TIF_NEED_RESCHED).
    min_vruntime: u64,
    next_buddy: Option<u32>,
    last_buddy: Option<u32>,
    need_resched: bool,
}

/// A running simulation.
pub struct Simulation {
    scenario: Scenario,
    /// schbench: per message thread (by task), the workers waiting on its list, in the order
    /// they joined it (xlist_add prepends: the last one is woken first). Empty otherwise.
    msg_lists: Vec<Vec<u32>>,
    /// The machine whose wake-up costs the run pays.
    machine: &'static crate::sim::machine::Machine,
    st: SchedState,
    tasks: Vec<Task>,
    cpus: Vec<Cpu>,
    masks: Vec<CpuMask>,
    /// Every affinity mask is every CPU (no workload pins tasks).
    all_unpinned: bool,
    /// collision=timed: the core walk's `cpus`, reused; and per CPU when its runqueue last
    /// stopped and last became empty, ns (side by side: the walk reads only these).
    timed_cpus: CpuMask,
    idle_changes: Vec<[u64; 2]>,
    /// Per LLC: when a CPU last went idle with its whole core idle (__update_idle_core()
    /// setting has_idle_cores), for a timed core scan's clear at its loop's end.
    idle_core_seen_at: Vec<u64>,
    /// The preset's era: newidle also needs avg_idle >= sysctl_sched_migration_cost.
    newidle_migration_cost_gate: bool,
    /// The preset's era: task_hot() exempts a pull from an SMT sibling (5.10 on).
    task_hot_ignores_smt: bool,
    /// llc_weight * probe_cost_ns: what a newidle balance of the LLC domain costs.
    max_newidle_lb_cost: u64,
    /// Pending events in (time, push order) order.
    events: EventQueue<Event>,
    now: u64,
    rng: Rng,
    timing: Timing,
    counters: Counters,
    hist: ScanHistogram,
    /// Wake-up latency of the measured window, for its percentiles.
    latency: LatencyHistogram,
    per_cpu: Vec<PerCpu>,
    /// The warm-up's end (an auto warm-up's grows until settled: warmup.rs).
    warmup_ns: u64,
    /// Counting restarted here by [`Self::restart_counting`] (else it started at warmup_ns).
    recount_from_ns: Option<u64>,
    /// decision_seq when counting started: the counted wake-ups are the decisions after it.
    counted_after_seq: u64,
    /// The measured window's length: the run ends at warmup_ns + window_ns.
    window_ns: u64,
    warmup_auto: bool,
    warmup_settled: bool,
    /// The last two settle samples, each one per LLC (warmup.rs).
    settle_hist: Vec<Vec<warmup::LlcSample>>,
    /// Periodic balances so far, per LLC.
    llc_balances: Vec<u64>,
    /// An Event::Tick is queued (kernels that act at scheduler_tick: SIS_FILTER).
    tick_armed: bool,
    measuring: bool,
    /// The next warm-up sample or check, or u64::MAX once measuring (one compare per event).
    measure_at: u64,
    /// Record every wake-up's decision into the ring.
    recording: bool,
    decisions: VecDeque<Decision>,
    decision_seq: u64,
    /// The last decision handed out by next_wakeup / advance_to_wakeup.
    stepped_seq: u64,
    /// decision_seq after the last next_wakeup step (or advance_to_wakeup): while it is still
    /// decision_seq, that batch's decisions are in the ring, to be handed out one by one.
    batch_end: u64,
    scratch_decision: Decision,
    /// Per LLC: when each scan now in flight there ends (a min-heap): how many CPUs of the LLC
    /// are in select_task_rq_fair's scan at once, which makes each probe dearer.
    scans_in_flight: Vec<std::collections::BinaryHeap<std::cmp::Reverse<u64>>>,
    woke: bool,
    /// Per group of each LLC: balance_interval (ms) as sd->balance_interval adapts.
    balance_interval_ms: Vec<Vec<u64>>,
    /// Per group of each LLC: its balance CPU's sd->nr_balance_failed.
    nr_balance_failed: Vec<Vec<u32>>,
    /// Per LLC: idle CPUs, waiting tasks and when wasted time was last integrated.
    llc_load: Vec<LlcLoad>,
    /// CPUs with tasks queued behind a running one (what newidle balance can pull).
    waiting: CpuMask,
    /// runqueue=cfs (else the FIFO order), and CFS's tunables for this many CPUs.
    cfs_runqueue: bool,
    cfs: cfs::CfsTunables,
}

impl Simulation {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn push(&mut self, t: u64, e: Event) {
        self.events.push(t, e);
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn now_ns(&self) -> u64 {
        self.now
    }
    pub fn topology(&self) -> &Topology {
        &self.st.topo
    }
    pub fn features(&self) -> &Features {
        &self.st.features
    }
    pub fn llc(&self, llc: u32) -> &LlcShared {
        &self.st.llcs[llc as usize]
    }
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
    pub fn metrics(&self) -> Metrics {
        self.counters.metrics()
    }
    /// Simulated time since counting started (after the warm-up), ns.
    fn measured_ns(&self) -> u64 {
        self.now.saturating_sub(self.count_from_ns().min(self.now))
    }
    /// select_idle_cpu's time as a share of all CPU time since counting started, %.
    pub fn scan_cpu_pct(&self) -> f64 {
        crate::kernel::stats::scan_cpu_pct(
            self.counters.scan_time_ns,
            self.cpus.len() as u64,
            self.measured_ns(),
        )
    }
    pub fn histogram(&self) -> &ScanHistogram {
        &self.hist
    }
    pub fn nr_tasks(&self) -> usize {
        self.tasks.len()
    }
    pub fn finished(&self) -> bool {
        self.now >= self.end_ns()
    }

    /// Records every wake-up's decision into a ring of the last [`DECISION_RING`].
    pub fn set_recording(&mut self, on: bool) {
        self.recording = on;
    }
    pub fn decisions(&self) -> &VecDeque<Decision> {
        &self.decisions
    }
    pub fn last_decision(&self) -> Option<&Decision> {
        self.decisions.back()
    }

    /// Wake-up decisions made since the start (warm-up included); a decision's `seq`.
    pub fn wakeups_total(&self) -> u64 {
        self.decision_seq
    }

    /// Replays until decision number `n` has been made (recording the last ring's worth), so
    /// a permalink's `step=n` reproduces the same state, and makes `n` the last decision
    /// stepped to: the next [`Self::next_wakeup`] returns `n + 1`. The event that made `n` may
    /// have made more (one hackbench sender wakes every receiver of its group), so
    /// [`Self::wakeups_total`] can be past `n`. False if the run ends first.
    pub fn advance_to_wakeup(&mut self, n: u64) -> bool {
        let was = self.recording;
        while self.decision_seq < n {
            self.recording = n - self.decision_seq <= DECISION_RING as u64;
            if self.next_wakeup_inner().is_none() {
                self.recording = was;
                return false;
            }
        }
        self.recording = was;
        self.stepped_seq = n;
        self.batch_end = self.decision_seq;
        true
    }

    /// The seq of the last decision [`Self::next_wakeup`] or [`Self::advance_to_wakeup`]
    /// stepped to (0: none yet).
    pub fn stepped_seq(&self) -> u64 {
        self.stepped_seq
    }

    /// Processes one event; false when there is none left.
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub fn step(&mut self) -> bool {
        let Some((t, ev)) = self.events.pop() else {
            return false;
        };
        self.process(t, ev);
        true
    }

    /// Handles one event popped at time `t`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn process(&mut self, t: u64, ev: Event) {
        debug_assert!(t >= self.now, "time went backwards");
        self.now = t.max(self.now);
        if self.now >= self.measure_at {
            self.warmup_tick();
        }
        match ev {
            Event::StintEnd { cpu, gen } => {
                if self.cpus[cpu as usize].gen == gen {
                    self.stint_end(cpu);
                }
            }
            Event::ClientRequestEnd { cpu, gen } => {
                if let Some(task) = self.burst_end(cpu, gen) {
                    self.client_request(cpu, task);
                }
            }
            Event::ServerReplyEnd { cpu, gen } => {
                if let Some(task) = self.burst_end(cpu, gen) {
                    self.server_reply(cpu, task);
                }
            }
            Event::TailEnd { cpu, gen } => {
                if let Some(task) = self.burst_end(cpu, gen) {
                    self.tail_done(cpu, task);
                }
            }
            Event::Timer { task } => self.timer(task),
            Event::Resched { cpu } => {
                if self.cfs_on() {
                    self.resched(cpu);
                }
            }
            Event::Balance { llc, group } => self.periodic_balance(llc, group),
            Event::Net { wakee, waker, cpu } => {
                self.tasks[wakee as usize].wake_pending = false;
                if self.tasks[wakee as usize].state == TaskState::Sleeping {
                    // The loopback softirq runs on `cpu`: its scan is that CPU's time.
                    let scan_ns = self.wake_from(Some(waker), cpu, wakee, false);
                    self.steal_cpu_time(cpu, scan_ns);
                } else {
                    // The reply is in the socket before the client has blocked in recv (it is
                    // still in its send's tail): recv finds it and the client does not sleep.
                    self.tasks[wakee as usize].pending_msgs += 1;
                }
            }
            Event::Enqueue { task, cpu } => self.arrive(task, cpu),
            Event::Tick => self.sched_tick(),
        }
    }

    /// Runs events up to and including time `t`, then sets the clock to `t`.
    pub fn step_until(&mut self, t: u64) {
        while let Some((et, ev)) = self.events.pop_until(t) {
            self.process(et, ev);
        }
        if t > self.now {
            self.now = t;
            self.events.advance_to(t);
            self.warmup_tick();
        }
    }

    pub fn run_for(&mut self, d: u64) {
        let t = self.now.saturating_add(d);
        self.step_until(t);
    }

    /// Advances to the next wake-up decision and returns it (always traced).
    ///
    /// Decisions come one at a time in `seq` order with no gaps, even when one event made
    /// several (a hackbench sender or a schbench message thread wakes many tasks at once):
    /// the ones already recorded are handed out before the simulation moves on, so the state
    /// around a batch's later decisions is the state after the whole batch.
    pub fn next_wakeup(&mut self) -> Option<&Decision> {
        let mut next = self.stepped_seq + 1;
        // The batch of the last step is still the newest thing that happened: hand out its
        // next decision. Otherwise (all handed out, or the simulation moved since) step on.
        if next > self.decision_seq || self.decision_seq != self.batch_end {
            let before = self.decision_seq;
            let was = self.recording;
            self.recording = true;
            let got = self.next_wakeup_inner().is_some();
            self.recording = was;
            if !got {
                return None;
            }
            self.batch_end = self.decision_seq;
            next = before + 1;
        }
        // The batch was recorded whole, so it is the ring's tail (its oldest decisions are
        // gone only if it was longer than the ring).
        let len = self.decisions.len() as u64;
        let next = next.max((self.batch_end + 1).saturating_sub(len));
        let i = len.checked_sub(self.batch_end - next + 1)?;
        let d = self.decisions.get(i as usize)?;
        debug_assert_eq!(d.id.seq, next, "the ring's tail is the batch");
        self.stepped_seq = next;
        Some(d)
    }

    fn next_wakeup_inner(&mut self) -> Option<()> {
        self.woke = false;
        let mut guard = 0u64;
        while !self.woke && guard < 1_000_000 {
            if !self.step() {
                break;
            }
            guard += 1;
        }
        self.woke.then_some(())
    }
}

/// Runs a scenario to its end.
pub fn run(scenario: &Scenario) -> Result<RunReport, InputError> {
    Ok(Simulation::new(scenario)?.run_to_end())
}
