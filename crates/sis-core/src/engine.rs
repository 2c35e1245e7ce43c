//! The discrete-event engine: tasks run, block and wake each other in integer nanoseconds;
//! every wake-up goes through the preset's wake-up path; periodic LLC balance is the only
//! writer of nr_idle_scan.

use crate::cpumask::CpuMask;
use crate::error::InputError;
use crate::features::Features;
use crate::pelt::SchedAvg;
use crate::queue::EventQueue;
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::select::{Outcome, Wakee, Waker};
use crate::state::{CpuState, LlcShared, SchedState};
use crate::stats::{Counters, Metrics, ScanHistogram};
use crate::topology::Topology;
use crate::trace::Decision;
use crate::workload::{self, Role, TaskSpec, Timing};
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
    /// A StintEnd that ends the task's burst, for the commonest roles: what it does is known
    /// when the stint starts (a task's role, and whether it runs a syscall tail, do not change
    /// while it runs), so one jump on the event reaches it instead of a second one on the role.
    /// A client's request: it wakes its server and runs its syscall tail.
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskState {
    Sleeping,
    /// Woken and placed on this CPU, not yet enqueued: the waker is still scanning.
    Waking(u32),
    Queued(u32),
    Running(u32),
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
    /// Running the tail of a syscall after waking a peer; blocks when it ends.
    in_tail: bool,
    wakee_flips: u32,
    last_wakee: u32,
    wakee_flip_decay_ts: u64,
    /// The mean of the jittered burst `burst_for` draws for this role, or 0 if not jittered.
    jittered_burst_ns: u64,
    /// The next task in its CPU's queue (NONE: the last, or not queued).
    next_queued: u32,
}

/// One LLC's inputs to the wasted-time integral.
#[derive(Clone, Copy, Debug, Default)]
struct LlcLoad {
    /// CPUs with nr_running 0.
    idle: u32,
    /// Tasks queued behind a running one.
    waiting: u32,
    /// When wasted time was last integrated.
    wasted_at: u64,
}

impl LlcLoad {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn wasted_since(&self, now: u64) -> u64 {
        self.idle.min(self.waiting) as u64 * now.saturating_sub(self.wasted_at)
    }
}

/// A CPU's waiting tasks in FIFO order, linked through `Task::next_queued`: no buffer of its
/// own to reach, and the tasks are touched anyway when queued or picked.
#[derive(Clone, Copy, Debug)]
struct RunList {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for RunList {
    fn default() -> Self {
        RunList {
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }
}

impl RunList {
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn push_back(&mut self, tasks: &mut [Task], t: u32) {
        tasks[t as usize].next_queued = NONE;
        if self.len == 0 {
            self.head = t;
        } else {
            tasks[self.tail as usize].next_queued = t;
        }
        self.tail = t;
        self.len += 1;
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn pop_front(&mut self, tasks: &[Task]) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let t = self.head;
        self.head = tasks[t as usize].next_queued;
        self.len -= 1;
        if self.len == 0 {
            self.tail = NONE;
        }
        Some(t)
    }

    /// Removes and returns the task at `pos` (< len).
    fn remove_at(&mut self, tasks: &mut [Task], pos: u32) -> u32 {
        if pos == 0 {
            return self.pop_front(tasks).unwrap_or(NONE);
        }
        let mut before = self.head;
        for _ in 1..pos {
            before = tasks[before as usize].next_queued;
        }
        let t = tasks[before as usize].next_queued;
        let after = tasks[t as usize].next_queued;
        tasks[before as usize].next_queued = after;
        if after == NONE {
            self.tail = before;
        }
        self.len -= 1;
        t
    }

    fn iter<'a>(&self, tasks: &'a [Task]) -> impl Iterator<Item = u32> + 'a {
        let head = (self.len > 0).then_some(self.head);
        std::iter::successors(head, move |&t| {
            let n = tasks[t as usize].next_queued;
            (n != NONE).then_some(n)
        })
    }
}

#[derive(Clone, Debug, Default)]
struct Cpu {
    curr: Option<u32>,
    queue: RunList,
    /// When the current stint started.
    stint_start: u64,
    gen: u32,
    /// Its LLC (the topology's, next to the state read with it).
    llc: u32,
}

/// Per-CPU results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerCpu {
    pub cpu: u32,
    pub placed: u64,
    pub found_by_scan: u64,
    pub util_avg: u32,
}

/// What a CPU looks like now, for drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuView {
    pub cpu: u32,
    pub state: CpuState,
    pub util_avg: u32,
    pub nr_running: u32,
    pub running_task: Option<u32>,
}

/// The histogram as reported (labels included so the JSON reads like the seed's `@usecs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistogramReport {
    pub unit: String,
    pub labels: Vec<String>,
    pub buckets: Vec<u64>,
}

/// The result of a run (`sis run --format json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub scenario: Scenario,
    pub sim_time_ns: u64,
    pub wakeups: u64,
    pub migrations: u64,
    pub counters: Counters,
    pub metrics: Metrics,
    pub nr_idle_scan: Vec<u32>,
    pub per_cpu: Vec<PerCpu>,
    pub scan_histogram: HistogramReport,
}

/// A running simulation.
pub struct Simulation {
    scenario: Scenario,
    st: SchedState,
    tasks: Vec<Task>,
    cpus: Vec<Cpu>,
    masks: Vec<CpuMask>,
    /// Every affinity mask is every CPU (no workload pins tasks).
    all_unpinned: bool,
    /// The preset's era: newidle also needs avg_idle >= sysctl_sched_migration_cost.
    newidle_migration_cost_gate: bool,
    /// llc_weight * probe_cost_ns: what a newidle balance of the LLC domain costs.
    max_newidle_lb_cost: u64,
    /// Pending events in (time, push order) order.
    events: EventQueue<Event>,
    now: u64,
    rng: Rng,
    timing: Timing,
    counters: Counters,
    hist: ScanHistogram,
    per_cpu: Vec<PerCpu>,
    warmup_ns: u64,
    measuring: bool,
    /// When measuring starts: warmup_ns, or u64::MAX once it has (one compare per event).
    measure_at: u64,
    /// Record every wake-up's decision into the ring.
    recording: bool,
    decisions: VecDeque<Decision>,
    decision_seq: u64,
    scratch_decision: Decision,
    stop_at_wakeup: bool,
    woke: bool,
    /// Per group of each LLC: balance_interval (ms) as sd->balance_interval adapts.
    balance_interval_ms: Vec<Vec<u64>>,
    /// Per LLC: idle CPUs, waiting tasks and when wasted time was last integrated.
    llc_load: Vec<LlcLoad>,
    /// CPUs with tasks queued behind a running one (what newidle balance can pull).
    waiting: CpuMask,
}

impl Simulation {
    pub fn new(scenario: &Scenario) -> Result<Self, InputError> {
        scenario.check()?;
        let features: Features = scenario.features()?;
        let topo = Topology::new(scenario.topology_spec())?;
        let n = topo.nr_cpus();
        let mut rng = Rng::new(scenario.seed);
        let llc0: Vec<u32> = topo.llc_span(0).iter().collect();
        let (specs, mask_lists) = workload::build(scenario, &llc0, &mut rng);
        let mut masks = vec![CpuMask::full(n)];
        for m in mask_lists.iter().skip(1) {
            masks.push(CpuMask::from_cpus(n, m.iter().copied()));
        }
        let mut st = SchedState::new(
            topo,
            features,
            scenario.imbalance_pct,
            scenario.probe_cost_ns,
        );
        let groups: Vec<Vec<u64>> = (0..scenario.llcs)
            .map(|l| vec![scenario.llc_weight as u64; st.topo.llc_groups(l).len()])
            .collect();
        let timing = Timing::for_scenario(scenario);
        let tasks = specs.iter().map(|s: &TaskSpec| Task {
            next_queued: NONE,
            jittered_burst_ns: match s.role {
                Role::Client { .. } => timing.client_ns,
                Role::Server { .. } => timing.server_ns,
                Role::Worker => timing.worker_ns,
                Role::Waker => timing.waker_run_ns,
                _ => 0,
            },
            role: s.role,
            affinity: s.affinity,
            state: TaskState::Sleeping,
            prev: s.start_cpu,
            recent_used_cpu: None,
            pelt: SchedAvg::settled(0, s.initial_util),
            remaining: 0,
            woken_at: u64::MAX,
            pending_msgs: 0,
            in_tail: false,
            wakee_flips: 0,
            last_wakee: NONE,
            wakee_flip_decay_ts: 0,
        });
        let tasks: Vec<Task> = tasks.collect();
        // Pinned hogs start with util 1024 on their CPU (the seed's table).
        for (i, s) in specs.iter().enumerate() {
            if s.initial_util > 0 {
                st.rqs[s.start_cpu as usize].pelt = SchedAvg::settled(0, s.initial_util);
                let _ = i;
            }
        }
        let nr_llcs = scenario.llcs as usize;
        let mut sim = Simulation {
            scenario: scenario.clone(),
            cpus: (0..n)
                .map(|cpu| Cpu {
                    llc: st.topo.llc_of(cpu),
                    ..Cpu::default()
                })
                .collect(),
            all_unpinned: masks.iter().all(|m| m.weight() == n),
            newidle_migration_cost_gate: scenario.newidle_migration_cost_gate(),
            max_newidle_lb_cost: scenario.llc_weight as u64 * scenario.probe_cost_ns,
            masks,
            events: EventQueue::new(),
            now: 0,
            rng,
            timing,
            counters: Counters::default(),
            hist: ScanHistogram::default(),
            per_cpu: (0..n)
                .map(|cpu| PerCpu {
                    cpu,
                    ..Default::default()
                })
                .collect(),
            warmup_ns: scenario.warmup_ns(),
            measuring: scenario.warmup_ns() == 0,
            measure_at: match scenario.warmup_ns() {
                0 => u64::MAX,
                w => w,
            },
            recording: false,
            decisions: VecDeque::with_capacity(DECISION_RING),
            decision_seq: 0,
            scratch_decision: Decision::default(),
            stop_at_wakeup: false,
            woke: false,
            balance_interval_ms: groups,
            llc_load: vec![LlcLoad::default(); nr_llcs],
            waiting: CpuMask::new(n),
            tasks,
            st: {
                for rq in st.rqs.iter_mut() {
                    rq.idle_stamp = 0;
                }
                // Every CPU starts empty; enqueue and block keep the mask (no SCHED_IDLE tasks
                // here, so it is exactly what idleish() accepts).
                st.idle_cpus = Some(CpuMask::full(n));
                st
            },
        };
        for llc in 0..scenario.llcs {
            sim.llc_load[llc as usize].idle = scenario.llc_weight;
        }
        // All CPUs start idle: has_idle_cores as the idle loop would set it.
        for cpu in 0..n {
            sim.st.update_idle_core(cpu);
        }
        // First periodic balance at t=0 so nr_idle_scan reflects the start state (the seed's
        // corner case holds from the first wake-up); then each group at its own interval, from
        // a random phase within the busy interval (llc_weight ms * busy_factor), as on a machine
        // that has been up for a while: the groups' updates interleave instead of bunching at
        // start-up, so nr_idle_scan follows the LLC's util within a short run.
        let phase_ms = scenario.llc_weight as u64 * scenario.busy_factor() as u64;
        for llc in 0..scenario.llcs {
            sim.st.update_llc_scan_hint(llc);
            let ng = sim.st.topo.llc_groups(llc).len() as u32;
            for g in 0..ng {
                let first = sim.rng.below(phase_ms * 1_000_000) + 1;
                sim.push(first, Event::Balance { llc, group: g });
            }
        }
        for (i, s) in specs.iter().enumerate() {
            if let Some(t) = s.first_wake_ns {
                sim.push(t, Event::Timer { task: i as u32 });
            }
        }
        Ok(sim)
    }

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
    pub fn histogram(&self) -> &ScanHistogram {
        &self.hist
    }
    pub fn nr_tasks(&self) -> usize {
        self.tasks.len()
    }
    pub fn finished(&self) -> bool {
        self.now >= self.scenario.duration_ns()
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

    /// Replays to just after decision number `n` (recording the last ring's worth), so a
    /// permalink's `step=n` reproduces the same state. False if the run ends first.
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
        true
    }

    /// The CPU now (util_avg decayed/accumulated to the current time, without mutating).
    pub fn cpu_view(&self, cpu: u32) -> CpuView {
        let rq = &self.st.rqs[cpu as usize];
        let mut pelt = rq.pelt;
        pelt.update(self.now, self.cpus[cpu as usize].curr.is_some());
        CpuView {
            cpu,
            state: rq.state(),
            util_avg: pelt.util_avg,
            nr_running: rq.nr_running,
            running_task: self.cpus[cpu as usize].curr,
        }
    }

    /// Sum of util_avg over an LLC now (what the next periodic balance would see).
    pub fn llc_sum_util_now(&self, llc: u32) -> u64 {
        self.st
            .topo
            .llc_span(llc)
            .iter()
            .map(|c| self.cpu_view(c).util_avg as u64)
            .sum()
    }

    pub fn per_cpu(&self) -> Vec<PerCpu> {
        self.per_cpu
            .iter()
            .map(|p| PerCpu {
                util_avg: self.cpu_view(p.cpu).util_avg,
                ..*p
            })
            .collect()
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
            self.start_measuring();
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
                    self.tasks[task as usize].in_tail = false;
                    self.block(cpu, task, None);
                }
            }
            Event::Timer { task } => self.timer(task),
            Event::Balance { llc, group } => self.periodic_balance(llc, group),
            Event::Net { wakee, waker, cpu } => {
                if self.tasks[wakee as usize].state == TaskState::Sleeping {
                    self.wake_from(Some(waker), cpu, wakee, false);
                }
            }
            Event::Enqueue { task, cpu } => self.enqueue(task, cpu),
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
            if !self.measuring && self.now >= self.warmup_ns {
                self.start_measuring();
            }
        }
    }

    pub fn run_for(&mut self, d: u64) {
        let t = self.now.saturating_add(d);
        self.step_until(t);
    }

    /// Advances to the next wake-up decision and returns it (always traced).
    pub fn next_wakeup(&mut self) -> Option<&Decision> {
        let was = self.recording;
        self.recording = true;
        let got = self.next_wakeup_inner().is_some();
        self.recording = was;
        if got {
            self.decisions.back()
        } else {
            None
        }
    }

    fn next_wakeup_inner(&mut self) -> Option<()> {
        self.stop_at_wakeup = true;
        self.woke = false;
        let mut guard = 0u64;
        while !self.woke && guard < 1_000_000 {
            if !self.step() {
                break;
            }
            guard += 1;
        }
        self.stop_at_wakeup = false;
        self.woke.then_some(())
    }

    /// Runs to the scenario's duration and reports.
    pub fn run_to_end(&mut self) -> RunReport {
        let end = self.scenario.duration_ns();
        self.step_until(end);
        self.report()
    }

    pub fn report(&self) -> RunReport {
        let mut counters = self.counters;
        counters.wasted_ns += self.pending_wasted();
        RunReport {
            scenario: self.scenario.clone(),
            sim_time_ns: self.now.saturating_sub(self.warmup_ns.min(self.now)),
            wakeups: counters.wakeups,
            migrations: counters.migrations,
            metrics: counters.metrics(),
            counters,
            nr_idle_scan: self.st.llcs.iter().map(|l| l.nr_idle_scan).collect(),
            per_cpu: self.per_cpu(),
            scan_histogram: HistogramReport {
                unit: "usecs".into(),
                labels: (0..self.hist.buckets.len())
                    .map(ScanHistogram::label)
                    .collect(),
                buckets: self.hist.buckets.clone(),
            },
        }
    }

    fn start_measuring(&mut self) {
        self.measuring = true;
        self.measure_at = u64::MAX;
        self.counters = Counters::default();
        self.hist = ScanHistogram::default();
        for p in &mut self.per_cpu {
            p.placed = 0;
            p.found_by_scan = 0;
        }
        for l in &mut self.llc_load {
            l.wasted_at = self.now;
        }
    }

    // ---- wasted-time accounting: idle CPUs while tasks wait in the same LLC ----

    fn pending_wasted(&self) -> u64 {
        self.llc_load.iter().map(|l| l.wasted_since(self.now)).sum()
    }

    /// LLC `l` gains `idle` idle CPUs and `waiting` waiting tasks (negative: loses) now. The
    /// wasted time so far is integrated only when min(idle, waiting) changes: splitting an
    /// interval where it does not change adds the same integer total.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn llc_change(&mut self, l: usize, idle: i32, waiting: i32) {
        let ld = &mut self.llc_load[l];
        let before = ld.idle.min(ld.waiting);
        ld.idle = ld.idle.wrapping_add_signed(idle);
        ld.waiting = ld.waiting.wrapping_add_signed(waiting);
        if ld.idle.min(ld.waiting) != before {
            let wasted = before as u64 * self.now.saturating_sub(ld.wasted_at);
            ld.wasted_at = self.now;
            if self.measuring {
                self.counters.wasted_ns += wasted;
            }
        }
    }

    // ---- CPU state transitions ----

    #[inline]
    fn sync_waiting(&mut self, cpu: u32) {
        let c = &self.cpus[cpu as usize];
        if c.curr.is_some() && !c.queue.is_empty() {
            self.waiting.set(cpu);
        } else {
            self.waiting.clear(cpu);
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn update_cpu_pelt(&mut self, cpu: u32) {
        let running = self.cpus[cpu as usize].curr.is_some();
        self.st.rqs[cpu as usize].pelt.update(self.now, running);
    }

    /// Puts `task` on `cpu`'s runqueue; an idle CPU starts running it now.
    fn enqueue(&mut self, task: u32, cpu: u32) {
        let l = self.cpus[cpu as usize].llc as usize;
        let rq = &mut self.st.rqs[cpu as usize];
        let was_idle = rq.nr_running == 0;
        if was_idle {
            if let Some(m) = &mut self.st.idle_cpus {
                m.clear(cpu);
            }
            // ttwu_do_wakeup: fold the idle period into avg_idle (linux-5.14 core.c).
            if rq.idle_stamp != 0 {
                let delta = self.now - rq.idle_stamp;
                let max = 2 * rq.max_idle_balance_cost;
                rq.avg_idle = crate::throttle::update_avg(rq.avg_idle, delta).min(max);
                rq.wake_stamp = self.now * self.scenario.hz as u64 / 1_000_000_000;
                rq.wake_avg_idle = rq.avg_idle / 2;
                rq.idle_stamp = 0;
            }
        }
        rq.nr_running += 1;
        self.tasks[task as usize].state = TaskState::Queued(cpu);
        let c = &mut self.cpus[cpu as usize];
        c.queue.push_back(&mut self.tasks, task);
        let has_curr = c.curr.is_some();
        self.llc_change(l, -i32::from(was_idle), 1);
        if has_curr {
            self.waiting.set(cpu);
        } else {
            // An idle CPU switches to the task at once (no event: nothing else can run on it
            // between the wake-up and the switch, and the wake-up path already sees it busy).
            self.pick_next(cpu);
        }
    }

    /// Starts the next queued task on an idle `cpu`, or lets it go idle.
    fn pick_next(&mut self, cpu: u32) {
        self.update_cpu_pelt(cpu);
        self.pick_next_integrated(cpu);
    }

    /// `pick_next` once the CPU's PELT is integrated up to now (doing it again at the same
    /// time would change nothing).
    fn pick_next_integrated(&mut self, cpu: u32) {
        let l = self.cpus[cpu as usize].llc as usize;
        debug_assert!(self.cpus[cpu as usize].curr.is_none());
        let Some(task) = self.cpus[cpu as usize].queue.pop_front(&self.tasks) else {
            self.waiting.clear(cpu);
            self.go_idle(cpu);
            return;
        };
        self.llc_change(l, 0, -1);
        let now = self.now;
        let t = &mut self.tasks[task as usize];
        t.pelt.update(now, false);
        t.state = TaskState::Running(cpu);
        if t.woken_at != u64::MAX {
            let lat = now - t.woken_at;
            t.woken_at = u64::MAX;
            if self.measuring {
                self.counters.wakeup_latency_sum_ns += lat;
                self.counters.wakeup_latency_count += 1;
                self.counters.wakeup_latency_max_ns = self.counters.wakeup_latency_max_ns.max(lat);
            }
        }
        let c = &mut self.cpus[cpu as usize];
        c.curr = Some(task);
        c.stint_start = now;
        c.gen = c.gen.wrapping_add(1);
        let stint = if c.queue.is_empty() {
            self.tasks[task as usize].remaining
        } else {
            self.tasks[task as usize].remaining.min(SLICE_NS)
        };
        let gen = c.gen;
        let waiting = !c.queue.is_empty();
        let ev = self.stint_end_event(cpu, gen, task, stint);
        self.push(now + stint.max(1), ev);
        if waiting {
            self.waiting.set(cpu);
        } else {
            self.waiting.clear(cpu);
        }
    }

    /// The CPU has nothing to run: newidle balance, else idle.
    fn go_idle(&mut self, cpu: u32) {
        if self.newidle_allowed(cpu) && self.newidle_pull(cpu) {
            return;
        }
        let l = self.cpus[cpu as usize].llc as usize;
        let rq = &mut self.st.rqs[cpu as usize];
        if rq.nr_running == 0 && rq.idle_stamp == 0 {
            rq.idle_stamp = self.now.max(1);
            let _ = l;
            self.st.update_idle_core(cpu);
        }
    }

    /// sched_balance_newidle's gate: a CPU whose recent idle periods are shorter than a balance
    /// of its LLC domain costs does not balance (linux-6.0 fair.c newidle_balance:
    /// `avg_idle < sd->max_newidle_lb_cost`; before 5.16 also `avg_idle < sysctl_sched_migration_cost`).
    fn newidle_allowed(&self, cpu: u32) -> bool {
        let avg_idle = self.st.rqs[cpu as usize].avg_idle;
        // max_newidle_lb_cost: update_sd_lb_stats reads every runqueue of the span once.
        let lb_cost = self.max_newidle_lb_cost;
        avg_idle >= lb_cost
            && (!self.newidle_migration_cost_gate || avg_idle >= crate::state::MIGRATION_COST_NS)
    }

    /// sched_balance_newidle: pull one waiting task from the busiest CPU of the LLC.
    /// (Newidle balance never writes nr_idle_scan.)
    fn newidle_pull(&mut self, cpu: u32) -> bool {
        let llc = self.cpus[cpu as usize].llc;
        if self.llc_load[llc as usize].waiting == 0 {
            return false;
        }
        // Candidates: CPUs with tasks waiting behind a running one (a pending dispatch is
        // about to run anyway), found by bitmask search from cpu+1; the longest queue among
        // the first few wins (the kernel looks for the busiest queue; this bounds the cost).
        let mut best: Option<(u32, u32)> = None;
        let mut looked = 0;
        let (cpus, tasks, masks) = (&self.cpus, &self.tasks, &self.masks);
        let all_unpinned = self.all_unpinned;
        let span = self.st.topo.llc_span(llc);
        self.waiting.for_each_wrap_and(span, cpu + 1, |src| {
            if src == cpu {
                return true;
            }
            let q = &cpus[src as usize].queue;
            // Every task may run anywhere (no pinned workload): the head of a waiting CPU's
            // queue qualifies, as the affinity search would find.
            let pos = if all_unpinned {
                debug_assert!(!q.is_empty());
                Some(0)
            } else {
                q.iter(tasks)
                    .position(|t| masks[tasks[t as usize].affinity as usize].test(cpu))
                    .map(|p| p as u32)
            };
            if let Some(pos) = pos {
                if best.is_none_or(|(b, _)| cpus[b as usize].queue.len < q.len) {
                    best = Some((src, pos));
                }
                looked += 1;
            }
            looked < 8
        });
        let Some((src, pos)) = best else {
            return false;
        };
        let task = self.cpus[src as usize]
            .queue
            .remove_at(&mut self.tasks, pos);
        self.sync_waiting(src);
        let l = llc as usize;
        let src_rq = &mut self.st.rqs[src as usize];
        src_rq.nr_running -= 1;
        let src_idle = src_rq.nr_running == 0;
        self.llc_change(l, i32::from(src_idle), -1);
        let src_rq = &mut self.st.rqs[src as usize];
        if src_idle {
            // It had a wake-up pending dispatch and nothing else: it is idle again.
            src_rq.idle_stamp = self.now.max(1);
            if let Some(m) = &mut self.st.idle_cpus {
                m.set(src);
            }
        }
        if self.measuring {
            self.counters.balance_pulls += 1;
        }
        self.tasks[task as usize].prev = cpu;
        self.enqueue(task, cpu);
        true
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn stint_end(&mut self, cpu: u32) {
        let Some(task) = self.cpus[cpu as usize].curr else {
            return;
        };
        let ran = self.now - self.cpus[cpu as usize].stint_start;
        let t = &mut self.tasks[task as usize];
        t.remaining = t.remaining.saturating_sub(ran);
        if t.remaining > 0 {
            // Slice expired with others waiting: round-robin.
            self.preempt(cpu, task);
            return;
        }
        self.burst_done(cpu, task);
    }

    /// Slice expired with others waiting: the task goes to the back of its queue.
    fn preempt(&mut self, cpu: u32, task: u32) {
        self.update_cpu_pelt(cpu);
        self.tasks[task as usize].pelt.update(self.now, true);
        let l = self.cpus[cpu as usize].llc as usize;
        self.tasks[task as usize].state = TaskState::Queued(cpu);
        let c = &mut self.cpus[cpu as usize];
        c.curr = None;
        c.queue.push_back(&mut self.tasks, task);
        self.llc_change(l, 0, 1);
        self.pick_next_integrated(cpu);
    }

    /// The running task's burst is over: act per role, then block or continue.
    fn burst_done(&mut self, cpu: u32, task: u32) {
        let tm = self.timing;
        let role = self.tasks[task as usize].role;
        // What happens next: Some(burst) = keep running; None = block (maybe with a timer).
        let mut next_burst = None;
        let mut timer = None;
        let in_tail = std::mem::take(&mut self.tasks[task as usize].in_tail);
        match role {
            _ if in_tail => {}
            // netperf/tbench burst ends normally come as their own events (stint_end_event).
            Role::Client { .. } => return self.client_request(cpu, task),
            Role::Server { .. } => return self.server_reply(cpu, task),
            Role::Sender {
                first_receiver,
                receivers,
            } => {
                for r in first_receiver..first_receiver + receivers {
                    self.tasks[r as usize].pending_msgs += 1;
                    self.wake(task, r, true);
                }
                timer = Some(self.rng.exp_ns(tm.think_ns));
            }
            Role::Receiver => {
                let t = &mut self.tasks[task as usize];
                if t.pending_msgs > 0 {
                    next_burst = Some(t.pending_msgs as u64 * tm.msg_ns);
                    t.pending_msgs = 0;
                }
            }
            Role::Messenger {
                first_worker,
                workers,
            } => {
                for w in first_worker..first_worker + workers {
                    self.wake(task, w, false);
                }
                timer = Some(tm.period_ns);
            }
            Role::Worker => {}
            Role::Uniform => timer = Some(self.rng.exp_ns(tm.uniform_sleep_ns)),
            Role::Hog => next_burst = Some(u64::MAX / 4),
            Role::Waker => timer = Some(self.rng.exp_ns(tm.waker_sleep_ns)),
        }
        match next_burst {
            Some(b) => self.run_on(cpu, task, b),
            None => self.block(cpu, task, timer),
        }
    }

    /// The StintEnd event of `task`'s stint on `cpu`: a burst-ending one by role when the stint
    /// runs the whole burst (`remaining`), else the generic one (a slice: preemption).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn stint_end_event(&self, cpu: u32, gen: u32, task: u32, stint: u64) -> Event {
        let t = &self.tasks[task as usize];
        if stint < t.remaining {
            return Event::StintEnd { cpu, gen };
        }
        match t.role {
            _ if t.in_tail => Event::TailEnd { cpu, gen },
            Role::Client { .. } => Event::ClientRequestEnd { cpu, gen },
            Role::Server { .. } => Event::ServerReplyEnd { cpu, gen },
            _ => Event::StintEnd { cpu, gen },
        }
    }

    /// A burst-ending stint's end: the CPU's running task with its burst run (None if stale),
    /// as `stint_end` leaves it before `burst_done`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn burst_end(&mut self, cpu: u32, gen: u32) -> Option<u32> {
        let c = &self.cpus[cpu as usize];
        if c.gen != gen {
            return None;
        }
        let task = c.curr?;
        let ran = self.now - c.stint_start;
        let t = &mut self.tasks[task as usize];
        t.remaining = t.remaining.saturating_sub(ran);
        debug_assert_eq!(t.remaining, 0, "a burst-ending stint ran its whole burst");
        Some(task)
    }

    /// burst_done for a netperf/tbench client (not in its tail): the request is a sync wake-up
    /// from the still-running client, which then finishes its send and blocks in recv.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn client_request(&mut self, cpu: u32, task: u32) {
        let Role::Client { server } = self.tasks[task as usize].role else {
            unreachable!("ClientRequestEnd of a task that is not a client")
        };
        self.wake(task, server, true);
        if self.timing.tail_ns == 0 {
            self.block(cpu, task, None);
            return;
        }
        self.tasks[task as usize].in_tail = true;
        let b = self.rng.around(self.timing.tail_ns);
        self.run_on(cpu, task, b);
    }

    /// burst_done for a netperf/tbench server (not in a tail): the reply crosses the loopback
    /// stack (both ends are blocked meanwhile).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn server_reply(&mut self, cpu: u32, task: u32) {
        let Role::Server { client } = self.tasks[task as usize].role else {
            unreachable!("ServerReplyEnd of a task that is not a server")
        };
        let d = self.rng.around(self.timing.wire_ns);
        self.push(
            self.now + d.max(1),
            Event::Net {
                wakee: client,
                waker: task,
                cpu,
            },
        );
        self.block(cpu, task, None);
    }

    /// The running `task` goes on with a burst of `b` ns on `cpu`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn run_on(&mut self, cpu: u32, task: u32, b: u64) {
        self.tasks[task as usize].remaining = b.max(1);
        self.update_cpu_pelt(cpu);
        let c = &mut self.cpus[cpu as usize];
        c.stint_start = self.now;
        c.gen = c.gen.wrapping_add(1);
        let stint = if c.queue.is_empty() {
            b
        } else {
            b.min(SLICE_NS)
        };
        let gen = c.gen;
        let ev = self.stint_end_event(cpu, gen, task, stint);
        self.push(self.now + stint.max(1), ev);
    }

    /// The running `task` blocks (with a timer after `timer` ns, if any); `cpu` switches.
    fn block(&mut self, cpu: u32, task: u32, timer: Option<u64>) {
        // Block: dequeue and switch.
        self.update_cpu_pelt(cpu);
        self.tasks[task as usize].pelt.update(self.now, true);
        self.tasks[task as usize].state = TaskState::Sleeping;
        self.tasks[task as usize].prev = cpu;
        self.cpus[cpu as usize].curr = None;
        let rq = &mut self.st.rqs[cpu as usize];
        rq.nr_running -= 1;
        if rq.nr_running == 0 {
            let l = self.cpus[cpu as usize].llc as usize;
            self.llc_change(l, 1, 0);
            if let Some(m) = &mut self.st.idle_cpus {
                m.set(cpu);
            }
        }
        if let Some(d) = timer {
            self.push(self.now + d.max(1), Event::Timer { task });
        }
        self.pick_next_integrated(cpu);
    }

    /// The burst a task runs when woken.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn burst_for(&mut self, task: u32) -> u64 {
        // Jittered roles (netperf's client and server...) without matching on the role: the
        // role alternates unpredictably from one wake-up to the next.
        let mean = self.tasks[task as usize].jittered_burst_ns;
        if mean != 0 {
            return self.rng.around(mean);
        }
        self.burst_for_role(task)
    }

    fn burst_for_role(&mut self, task: u32) -> u64 {
        let tm = self.timing;
        let jitter = |rng: &mut Rng, ns: u64| rng.around(ns);
        match self.tasks[task as usize].role {
            Role::Client { .. } => jitter(&mut self.rng, tm.client_ns),
            Role::Server { .. } => jitter(&mut self.rng, tm.server_ns),
            Role::Sender { receivers, .. } => receivers as u64 * tm.msg_ns / 2,
            Role::Receiver => {
                let t = &mut self.tasks[task as usize];
                let n = t.pending_msgs.max(1) as u64;
                t.pending_msgs = 0;
                n * tm.msg_ns
            }
            Role::Messenger { .. } => 5_000,
            Role::Worker => jitter(&mut self.rng, tm.worker_ns),
            Role::Uniform => self.rng.exp_ns(tm.uniform_run_ns).max(1_000),
            Role::Hog => u64::MAX / 4,
            Role::Waker => jitter(&mut self.rng, tm.waker_run_ns),
        }
    }

    /// A timer wake-up: the waker is whatever runs on the task's prev CPU (not sync).
    fn timer(&mut self, task: u32) {
        if self.tasks[task as usize].state != TaskState::Sleeping {
            return;
        }
        let prev = self.tasks[task as usize].prev;
        if self.tasks[task as usize].role == Role::Hog {
            // Hogs start on their CPU: no wake-up decision.
            let b = self.burst_for(task);
            self.tasks[task as usize].remaining = b;
            self.enqueue(task, prev);
            return;
        }
        self.wake_from(None, prev, task, false);
    }

    /// `waker` (running) wakes `wakee`.
    fn wake(&mut self, waker: u32, wakee: u32, sync: bool) {
        match self.tasks[wakee as usize].state {
            TaskState::Sleeping => {}
            _ => return, // already runnable: the message is picked up when it runs
        }
        let TaskState::Running(cpu) = self.tasks[waker as usize].state else {
            return;
        };
        self.wake_from(Some(waker), cpu, wakee, sync);
    }

    fn wake_from(&mut self, waker: Option<u32>, waker_cpu: u32, wakee: u32, sync: bool) {
        let f = &self.st.features;
        let jiffies = if f.sis_prop && f.sis_prop_aged {
            self.now * self.scenario.hz as u64 / 1_000_000_000
        } else {
            0
        };
        let hz_ns = 1_000_000_000;
        // record_wakee() on the waker and wake_wide().
        let mut wide = false;
        let mut waker_load = 0;
        if let Some(w) = waker {
            let now = self.now;
            let wt = &mut self.tasks[w as usize];
            if now > wt.wakee_flip_decay_ts + hz_ns {
                wt.wakee_flips >>= 1;
                wt.wakee_flip_decay_ts = now;
            }
            if wt.last_wakee != wakee {
                wt.last_wakee = wakee;
                wt.wakee_flips += 1;
            }
            let (m, s) = {
                let a = wt.wakee_flips;
                let b = self.tasks[wakee as usize].wakee_flips;
                (a.max(b), a.min(b))
            };
            let f = self.scenario.llc_weight;
            wide = s >= f && m as u64 >= s as u64 * f as u64;
            waker_load = self.tasks[w as usize].pelt.util_avg as u64;
        }
        // Refresh the util the wake-up path reads for the waker's and candidates' CPUs lazily:
        // util only matters to wake_affine_weight here.
        self.update_cpu_pelt(waker_cpu);
        let prev = self.tasks[wakee as usize].prev;
        self.update_cpu_pelt(prev);
        let t = &mut self.tasks[wakee as usize];
        t.pelt.update(self.now, false);
        let aff = t.affinity as usize;
        let p = Wakee {
            prev,
            recent_used_cpu: t.recent_used_cpu,
            allowed: &self.masks[aff],
            load: t.pelt.util_avg as u64,
            wake_wide: wide,
        };
        let w = Waker {
            cpu: waker_cpu,
            sync,
            load: waker_load,
            now_ns: self.now,
            jiffies,
        };
        // The wake-up path only adds to its counters: while measuring, straight into the run's.
        let mut warmup_counters;
        let c = if self.measuring {
            &mut self.counters
        } else {
            warmup_counters = Counters::default();
            &mut warmup_counters
        };
        let out: Outcome = if self.recording {
            let mut d = std::mem::take(&mut self.scratch_decision);
            let out = decide_recorded(&mut self.st, &p, &w, c, &mut d);
            d.seq = self.decision_seq + 1;
            d.wakee = wakee;
            if self.decisions.len() >= DECISION_RING {
                self.scratch_decision = self.decisions.pop_front().unwrap_or_default();
            }
            self.decisions.push_back(d);
            out
        } else {
            self.st.select_task_rq_fair(&p, &w, c, &mut ())
        };
        self.woke = true;
        self.decision_seq += 1;
        // Account.
        let scan_ns = out.probes.saturating_sub(1) as u64 * self.scenario.probe_cost_ns;
        if self.measuring {
            let k = &mut self.counters;
            k.wakeups += 1;
            if out.cpu != prev {
                k.migrations += 1;
            }
            if let Some(ns) = out.select_idle_cpu_ns {
                k.scan_time_ns += ns;
                self.hist.record_ns(ns);
            }
            let pc = &mut self.per_cpu[out.cpu as usize];
            pc.placed += 1;
            if out.found_by_scan {
                pc.found_by_scan += 1;
            }
        }
        if let Some(cpu) = out.waker_recent_used_cpu {
            // `current` is whatever runs on the waking CPU (the waker, or what a softirq or
            // timer interrupted).
            if let Some(cur) = self.cpus[waker_cpu as usize].curr {
                self.tasks[cur as usize].recent_used_cpu = Some(cpu);
            }
        }
        let t = &mut self.tasks[wakee as usize];
        t.recent_used_cpu = out.recent_used_cpu;
        t.woken_at = self.now;
        if t.prev != out.cpu {
            t.prev = out.cpu;
        }
        let b = self.burst_for(wakee);
        self.tasks[wakee as usize].remaining = b.max(1);
        // The scan's cost delays the wakee (the waker spent it scanning); the chosen CPU stays
        // as it is until then, so a concurrent wake-up can find it idle too (ttwu_queue runs
        // after select_task_rq).
        if scan_ns == 0 {
            self.enqueue(wakee, out.cpu);
        } else {
            self.tasks[wakee as usize].state = TaskState::Waking(out.cpu);
            self.push(
                self.now + scan_ns,
                Event::Enqueue {
                    task: wakee,
                    cpu: out.cpu,
                },
            );
        }
    }

    /// Periodic balance of one group of an LLC domain: update nr_idle_scan (the only writer),
    /// let an idle balance CPU pull a waiting task, and re-arm at get_sd_balance_interval().
    fn periodic_balance(&mut self, llc: u32, group: u32) {
        let span: Vec<u32> = self.st.topo.llc_span(llc).iter().collect();
        for &c in &span {
            self.update_cpu_pelt(c);
        }
        self.st.update_llc_scan_hint(llc);
        let grp = &self.st.topo.llc_groups(llc)[group as usize];
        // should_we_balance(): the group's first idle CPU, else its first CPU.
        let balance_cpu = grp
            .iter()
            .copied()
            .find(|c| self.st.rqs[*c as usize].available_idle())
            .unwrap_or(grp[0]);
        let idle = self.st.rqs[balance_cpu as usize].available_idle();
        let mut pulled = false;
        if idle {
            pulled = self.newidle_pull(balance_cpu);
        }
        // sd->balance_interval: reset on an acted-on imbalance, else doubles up to 2w.
        let w = self.scenario.llc_weight as u64;
        let bi = &mut self.balance_interval_ms[llc as usize][group as usize];
        *bi = if pulled { w } else { (*bi * 2).min(2 * w) };
        // get_sd_balance_interval(sd, busy)
        let hz = self.scenario.hz as u64;
        let mut interval_ms = *bi;
        if !idle {
            interval_ms *= self.scenario.busy_factor() as u64;
        }
        let mut jif = (interval_ms * hz).div_ceil(1000);
        if !idle {
            jif = jif.saturating_sub(1);
        }
        let max_lb = (hz * self.st.topo.nr_cpus() as u64 / 10).max(1);
        let jif = jif.clamp(1, max_lb);
        let next = self.now + jif * 1_000_000_000 / hz;
        self.push(next, Event::Balance { llc, group });
    }

    /// Checks the engine's invariants; Err describes the first violation (for tests).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = vec![0u32; self.tasks.len()];
        for (cpu, c) in self.cpus.iter().enumerate() {
            let mut n = 0;
            if let Some(t) = c.curr {
                seen[t as usize] += 1;
                n += 1;
                if self.tasks[t as usize].state != TaskState::Running(cpu as u32) {
                    return Err(format!(
                        "task {t} is curr on cpu {cpu} but {:?}",
                        self.tasks[t as usize].state
                    ));
                }
            }
            for t in c.queue.iter(&self.tasks) {
                seen[t as usize] += 1;
                n += 1;
                if self.tasks[t as usize].state != TaskState::Queued(cpu as u32) {
                    return Err(format!(
                        "task {t} queued on cpu {cpu} but {:?}",
                        self.tasks[t as usize].state
                    ));
                }
                if !self.masks[self.tasks[t as usize].affinity as usize].test(cpu as u32) {
                    return Err(format!("task {t} on cpu {cpu} outside its affinity"));
                }
            }
            if n != self.st.rqs[cpu].nr_running {
                return Err(format!(
                    "cpu {cpu}: nr_running {} but {n} tasks",
                    self.st.rqs[cpu].nr_running
                ));
            }
            if self.st.rqs[cpu].util_avg() > 1024 {
                return Err(format!(
                    "cpu {cpu}: util_avg {}",
                    self.st.rqs[cpu].util_avg()
                ));
            }
        }
        for (cpu, c) in self.cpus.iter().enumerate() {
            if self.waiting.test(cpu as u32) != (c.curr.is_some() && !c.queue.is_empty()) {
                return Err(format!("cpu {cpu}: waiting mask out of date"));
            }
        }
        for (t, task) in self.tasks.iter().enumerate() {
            let want = u32::from(!matches!(
                task.state,
                TaskState::Sleeping | TaskState::Waking(_)
            ));
            if seen[t] != want {
                return Err(format!(
                    "task {t} ({:?}) found {} times on runqueues",
                    task.state, seen[t]
                ));
            }
        }
        for l in 0..self.llc_load.len() {
            let idle = self
                .st
                .topo
                .llc_span(l as u32)
                .iter()
                .filter(|c| self.st.rqs[*c as usize].nr_running == 0)
                .count() as u32;
            if let Some(m) = &self.st.idle_cpus {
                if let Some(c) = (0..self.cpus.len() as u32)
                    .find(|c| m.test(*c) != self.st.rqs[*c as usize].available_idle())
                {
                    return Err(format!("cpu {c}: idle mask out of date"));
                }
            }
            if idle != self.llc_load[l].idle {
                return Err(format!(
                    "llc {l}: idle count {} but {idle} idle",
                    self.llc_load[l].idle
                ));
            }
            let waiting: u32 = self
                .st
                .topo
                .llc_span(l as u32)
                .iter()
                .map(|c| self.cpus[c as usize].queue.len)
                .sum();
            if waiting != self.llc_load[l].waiting {
                return Err(format!(
                    "llc {l}: waiting {} but {waiting} queued",
                    self.llc_load[l].waiting
                ));
            }
        }
        let c = &self.counters;
        if c.sis_failed > c.sis_domain_search
            || c.sis_domain_search > c.sis_search
            || c.sis_search > c.sis_scanned
        {
            return Err(format!("counters inconsistent: {c:?}"));
        }
        Ok(())
    }
}

/// `select_task_rq_fair` recorded into `d` (all but its `seq` and `wakee`), with the idle CPUs
/// it missed. Out of line: the untraced wake-up path stays small.
#[inline(never)]
fn decide_recorded(
    st: &mut SchedState,
    p: &Wakee,
    w: &Waker,
    c: &mut Counters,
    d: &mut Decision,
) -> Outcome {
    d.reset();
    let llc = st.topo.llc_of(p.prev) as usize;
    d.has_idle_core = st.llcs[llc].has_idle_cores;
    d.nr_idle_scan = st.llcs[llc].nr_idle_scan;
    let out = st.select_task_rq_fair(p, w, c, d);
    d.time_ns = w.now_ns;
    d.waker_cpu = w.cpu;
    d.sync = w.sync;
    d.prev = p.prev;
    d.target = out.target;
    d.recent_used_cpu = p.recent_used_cpu;
    d.result = out.cpu;
    d.decided_by = Some(out.rule);
    let mut missed = std::mem::take(&mut d.missed_idle);
    // select_task_rq_fair does not change any CPU's state, so this is what it saw.
    st.missed_idle(p, out.target, d, &mut missed);
    d.missed_idle = missed;
    out
}

/// Runs a scenario to its end.
pub fn run(scenario: &Scenario) -> Result<RunReport, InputError> {
    Ok(Simulation::new(scenario)?.run_to_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(preset: &str) -> Simulation {
        let mut sc = Scenario::default();
        sc.set_field("llc_weight", "112").unwrap();
        sc.set_field("preset", preset).unwrap();
        sc.set_field("probe_cost_ns", "400").unwrap();
        Simulation::new(&sc).unwrap()
    }

    #[test]
    fn newidle_gate_follows_the_era() {
        // max_newidle_lb_cost of a 112-CPU LLC at 400 ns per runqueue: 44.8 us.
        for (preset, avg_idle, allowed) in [
            ("linux-6.0", 44_799, false),
            ("linux-6.0", 44_800, true),
            ("linux-6.0", 499_999, true),
            // Before 5.16 newidle also needs avg_idle >= sysctl_sched_migration_cost.
            ("linux-5.15", 499_999, false),
            ("linux-5.15", 500_000, true),
            ("linux-4.13", 100_000, false),
        ] {
            let mut s = sim(preset);
            s.st.rqs[3].avg_idle = avg_idle;
            assert_eq!(
                s.newidle_allowed(3),
                allowed,
                "{preset} avg_idle {avg_idle}"
            );
        }
    }

    #[test]
    fn the_waker_gets_its_cpu_as_recent_used_cpu_until_5_16() {
        // 4.16-5.15: `if (want_affine) current->recent_used_cpu = cpu;` (gone in 5.16).
        for (preset, always) in [("linux-5.13", true), ("linux-6.0", false)] {
            let mut sc = Scenario::default();
            // tbench: its client is still running its syscall tail when the wake-up returns.
            let fields = [
                ("llc_weight", "16"),
                ("load", "100"),
                ("workload", "tbench"),
                ("preset", preset),
            ];
            for (k, v) in fields {
                sc.set_field(k, v).unwrap();
            }
            let mut s = Simulation::new(&sc).unwrap();
            s.set_recording(true);
            let (mut sync, mut set) = (0, 0);
            for _ in 0..400 {
                let Some(d) = s.next_wakeup() else { break };
                let (waker_cpu, is_sync) = (d.waker_cpu, d.sync);
                if !is_sync {
                    continue;
                }
                let cur = s.cpus[waker_cpu as usize]
                    .curr
                    .expect("a sync waker is running");
                sync += 1;
                set += u32::from(s.tasks[cur as usize].recent_used_cpu == Some(waker_cpu));
            }
            assert!(sync > 100, "{preset}: {sync} sync wake-ups");
            if always {
                assert_eq!(set, sync, "{preset}");
            } else {
                assert!(
                    set < sync,
                    "{preset}: every waker had its CPU as recent_used_cpu"
                );
            }
        }
    }

    #[test]
    fn a_scanned_wakee_reaches_its_cpu_after_the_scan() {
        // While the waker scans, the chosen CPU is still idle to everyone else; the wakee is on
        // no runqueue until the Enqueue event.
        let mut sc = Scenario::default();
        for (k, v) in [
            ("llc_weight", "112"),
            ("smt", "2"),
            ("load", "150"),
            ("preset", "linux-5.13"),
        ] {
            sc.set_field(k, v).unwrap();
        }
        let mut s = Simulation::new(&sc).unwrap();
        s.run_for(20_000_000);
        let mut seen = 0;
        for _ in 0..200_000 {
            let before = s.wakeups_total();
            s.step();
            if s.wakeups_total() == before {
                continue;
            }
            if let Some(t) =
                (0..s.tasks.len()).find(|t| matches!(s.tasks[*t].state, TaskState::Waking(_)))
            {
                let TaskState::Waking(cpu) = s.tasks[t].state else {
                    unreachable!()
                };
                assert!(!s.cpus[cpu as usize]
                    .queue
                    .iter(&s.tasks)
                    .any(|q| q == t as u32));
                assert_ne!(s.cpus[cpu as usize].curr, Some(t as u32));
                s.check_invariants().unwrap();
                seen += 1;
            }
        }
        assert!(seen > 0, "no wake-up scanned at 150% load");
    }
}
