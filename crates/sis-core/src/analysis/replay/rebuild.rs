//! The scheduler state a real trace implies, rebuilt event by event: each CPU's current task
//! and runnable count, util_avg (the core's PELT over its running history), avg_idle (the
//! kernel's update_avg of idle periods), each task's prev, util and wakee flips. Each
//! sched_waking takes a snapshot of it; the snapshot waits until its sched_wakeup (the
//! kernel's choice) and the sync inference (does the waker block right after?) arrive.

use super::classes::{pinned_cpu, TaskClass};
pub use super::cpu_view::CpuSnap;
use super::load::{CpuLoad, TaskLoad, ERAS};
use super::parse::{SchedEvent, TraceEvent};
use crate::kernel::pelt::{LoadAvg, SchedAvg};
use crate::kernel::select::{TaskDuration, WakeeFlips};
use crate::kernel::state::MIGRATION_COST_NS;
use crate::kernel::topology::Topology;
use crate::kernel::util_est::UtilEst;
use std::collections::VecDeque;

/// A waker that blocks (switches out not runnable) within this time after its sched_waking
/// is taken as a sync waker (WF_SYNC: "the waker is about to sleep"): an inference, labelled
/// as one. It is the window on a machine whose local wake-up takes 1 us; on another the
/// window scales with its own (pending.rs `SyncWindow`).
pub const SYNC_WINDOW_NS: u64 = 50_000;
/// A sched_waking with no sched_wakeup for the task within this time is unpaired.
pub const PAIR_TIMEOUT_NS: u64 = 1_000_000_000;
/// CONFIG_HZ unless the replay is told the traced kernel's (`ReplayConfig::hz`).
pub const REPLAY_HZ: u64 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskState {
    Unknown,
    Sleeping,
    Running(u32),
    /// On a runqueue, not running: (cpu, that CPU's queue epoch when it was queued).
    Queued(u32, u32),
}

pub(crate) struct Task {
    pub state: TaskState,
    pub pelt: SchedAvg,
    /// util_est as 6.8+ keeps it (UTIL_EST_RUNNABLE); `pelt.util_est` is 5.13-6.7's.
    pub util_est_run: UtilEst,
    /// `p->se.avg.runnable_avg` (its `util_avg` field; input: queued or running, a delayed
    /// task not), which 6.8+'s util_est_update() compares the task's util with.
    pub runnable: SchedAvg,
    /// record_wakee()'s state, for wake_wide().
    pub flips: WakeeFlips,
    /// The pending sched_waking of this task (its seq), until its sched_wakeup.
    pub pending: Option<u64>,
    /// `p->recent_used_cpu` as each preset keeps it (u32::MAX: none).
    pub recent: Box<[u32]>,
    /// When it last switched in, and its CPU time since its last voluntary sleep, ns.
    pub exec_start: u64,
    pub ran_since_sleep: u64,
    /// SIS_SHORT v6 `p->se.dur_avg`, as the engine keeps it (sim/engine/runqueue.rs block).
    pub dur_avg: u64,
    /// SIS_CACHE v2 `p->last_dequeue_time` (0: never slept) and `p->avg_hot_dur`, ns.
    pub last_dequeue_ns: u64,
    pub avg_hot_dur: u64,
    /// `p->prio` as the trace last printed it (120 until it does).
    pub prio: i32,
    /// Its comm names a per-CPU kthread (`nr_cpus_allowed == 1`) or a stop task.
    pub bound: bool,
    pub stop: bool,
    /// No event has named it yet / its comm has been read.
    pub fresh: bool,
    pub named: bool,
    /// `p->se.avg`'s load in each era's form (replay/load.rs).
    pub load: TaskLoad,
    /// The CPU whose wakelist holds it, woken and not yet activated (replay/cpu_view.rs).
    pub wakelist_cpu: Option<u32>,
    /// Its EEVDF entity (replay/eevdf.rs).
    pub ev: super::eevdf::Entity,
    /// Its inferred task group with `--autogroup` (replay/group44.rs; 0: the root).
    pub group: u32,
    /// First seen with a pid above every earlier one: created during the trace.
    pub created: bool,
    /// Its sched_wakeup_new seen, its first cfs_rq not yet joined (replay/util.rs).
    pub util_new: bool,
    /// The task that forked it in the trace (replay/lineage.rs; 0: not seen).
    pub parent: u32,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct CpuTrack {
    /// The running task (0 = idle); None before this CPU's first sched_switch.
    pub curr: Option<u32>,
    /// Tasks queued here and not running (woken and not yet switched in, or preempted).
    pub queued: Vec<u32>,
    /// Bumped when the CPU goes idle (its runqueue is empty: what the rebuild queued left).
    pub epoch: u32,
    /// The cfs_rq's util (replay/util.rs), and the util of tasks that left, not yet applied.
    pub pelt: LoadAvg,
    pub removed_util: u64,
    pub pelt_started: bool,
    pub avg_idle: u64,
    pub idle_stamp: u64,
    pub wake_stamp: u64,
    pub wake_avg_idle: u64,
    /// How many times a wake-up onto this idle CPU reset wake_avg_idle and its stamp.
    pub wake_resets: u32,
    /// The latest sched_waking from this CPU whose sync is not yet inferred.
    pub sync_watch: Option<u64>,
    /// The latest sched_waking from this CPU, until a `sis_select` kprobe gives its flags.
    pub select_watch: Option<u64>,
    /// The latest sched_waking here until this CPU's next other event (its `sis_idle` asks).
    pub asks_for: Option<u64>,
    /// SIS_CACHE v2 `rq->cache_hot_timeout`, ns (read only by presets with SIS_CACHE).
    pub cache_hot_timeout: u64,
    /// The cfs_rq's load in each era's form (replay/load.rs).
    pub load: CpuLoad,
    /// What wake_affine read as this CPU's load at the last wake-up, per era.
    pub loads: [u64; ERAS],
    /// Wake-ups on this CPU's wakelist, not yet activated (replay/cpu_view.rs).
    pub ttwu_pending: u32,
    /// The last sched_waking emitted here whose CPU is not yet known: (pid, prev).
    pub awaiting: Option<(u32, u32)>,
}

impl CpuTrack {
    pub fn nr_running(&self) -> u32 {
        self.queued.len() as u32 + u32::from(matches!(self.curr, Some(p) if p != 0))
    }

    /// The running task and the queued ones.
    pub(crate) fn runnable(&self) -> impl Iterator<Item = u32> + '_ {
        self.curr
            .filter(|p| *p != 0)
            .into_iter()
            .chain(self.queued.iter().copied())
    }
}

pub(crate) use super::pending::Pending;
pub use super::report::RebuildCounts;

pub(crate) struct Rebuild {
    pub topo: Topology,
    pub nr_presets: usize,
    pub cpus: Vec<CpuTrack>,
    /// Each CPU's cfs_rq as EEVDF keeps it (replay/eevdf.rs).
    pub(crate) cfs: Vec<super::eevdf::CfsRq>,
    pub cpus_switched: u32,
    pub tasks: super::tasks::TaskTable,
    pub pending: VecDeque<Pending>,
    /// seq of pending[0].
    pub pending_base: u64,
    pub next_seq: u64,
    pub idle_core_seq: Vec<u64>,
    pub balance_seq: u64,
    pub sync_window: super::pending::SyncWindow,
    pub next_balance_ns: u64,
    pub next_blocked_ns: u64,
    /// The trace shows woken tasks' enqueues (a `sis_load` kprobe was seen).
    pub enqueues_read: bool,
    /// Per LLC, its nr_idle_scan as the trace's `sis_lb` kprobe last showed it (None: none
    /// seen, or a balance that writes it began since: replay/kernel_scan.rs).
    pub lb_nr: Option<Vec<Option<u32>>>,
    pub now: u64,
    /// The traced kernel's CONFIG_HZ (`ReplayConfig::hz`).
    pub hz: u64,
    pub counts: RebuildCounts,
    pub(super) pool: Vec<Vec<CpuSnap>>,
    /// The wake-up flips' readings and each idle task's flips (replay/flips.rs).
    pub(super) flips: super::flips::FlipsTrack,
    /// The load signals kept (the others cost nothing).
    pub eras: [bool; ERAS],
    /// EEVDF's state is rebuilt (some preset has DELAY_DEQUEUE; replay/eevdf.rs).
    pub track_eevdf: bool,
    /// `--autogroup` with a 4.4 preset: the inferred task groups (replay/group44.rs).
    pub groups44: Option<super::group44::Groups44>,
    /// The highest pid seen so far (0: none yet): a task first seen above it is new.
    pub max_pid: u32,
}

impl Rebuild {
    /// `eras`: which load signals (replay/load.rs load_era) some preset reads.
    pub fn new(topo: Topology, nr_presets: usize, eras: [bool; ERAS]) -> Self {
        let n = topo.nr_cpus() as usize;
        let llcs = topo.spec.llcs as usize;
        Rebuild {
            cpus: vec![
                CpuTrack {
                    // sched_init(): avg_idle = 2 * sysctl_sched_migration_cost.
                    avg_idle: 2 * MIGRATION_COST_NS,
                    wake_avg_idle: 2 * MIGRATION_COST_NS,
                    ..Default::default()
                };
                n
            ],
            cfs: vec![Default::default(); n],
            topo,
            nr_presets,
            cpus_switched: 0,
            tasks: Default::default(),
            pending: VecDeque::new(),
            pending_base: 0,
            next_seq: 0,
            idle_core_seq: vec![0; llcs],
            balance_seq: 0,
            sync_window: Default::default(),
            next_balance_ns: 0,
            next_blocked_ns: 0,
            enqueues_read: false,
            lb_nr: None,
            hz: REPLAY_HZ,
            now: 0,
            counts: RebuildCounts::default(),
            pool: Vec::new(),
            flips: super::flips::FlipsTrack::new(n),
            eras,
            track_eevdf: false,
            groups44: None,
            max_pid: 0,
        }
    }

    #[inline]
    pub(crate) fn task(&mut self, pid: u32) -> &mut Task {
        match self.tasks.slot(pid) {
            Some(i) => self.tasks.at(i),
            None => self.new_task(pid),
        }
    }

    /// Puts `pid` on `cpu`'s queue (its load is enqueued there first).
    fn enqueue(&mut self, cpu: u32, pid: u32) {
        self.load_enqueue(cpu, pid);
        let c = &mut self.cpus[cpu as usize];
        c.queued.push(pid);
        let e = c.epoch;
        self.task(pid).state = TaskState::Queued(cpu, e);
    }

    /// Takes `pid` off whatever runqueue the rebuild has it on.
    fn leave_queue(&mut self, pid: u32, state: TaskState) {
        if let TaskState::Queued(cpu, epoch) = state {
            if self.cpus[cpu as usize].epoch == epoch {
                let q = &mut self.cpus[cpu as usize].queued;
                if let Some(i) = q.iter().position(|p| *p == pid) {
                    q.swap_remove(i);
                }
            }
        }
    }

    fn queued_valid(&self, state: TaskState) -> bool {
        match state {
            TaskState::Queued(cpu, epoch) => self.cpus[cpu as usize].epoch == epoch,
            TaskState::Running(_) => true,
            _ => false,
        }
    }

    pub(super) fn pending_mut(&mut self, seq: u64) -> Option<&mut Pending> {
        let i = self.pending_index(seq)?;
        Some(&mut self.pending[i])
    }

    /// Applies one event (time already validated, CPUs already in range).
    pub fn apply(&mut self, ev: &TraceEvent<'_>, line: u64) {
        let (cpu, comm) = (ev.cpu, ev.comm);
        self.now = self.now.max(ev.time_ns);
        if self.probe_event(cpu, &ev.event) {
            return;
        }
        self.resolve_awaiting(cpu, &ev.event);
        // The comms seen pick and name the inferred task groups (replay/group44.rs).
        if self.groups44.is_some() {
            self.group44_event(ev);
        }
        match ev.event {
            SchedEvent::Switch {
                prev_pid,
                prev_runnable,
                prev_dead,
                next_pid,
            } => {
                self.note_task(prev_pid, ev.prev_prio, "");
                self.note_task(next_pid, ev.prio, comm);
                if prev_dead {
                    self.exited(cpu, prev_pid);
                }
                self.switch(cpu, prev_pid, prev_runnable, next_pid);
                if prev_dead && prev_pid != 0 {
                    self.load_task_dead(prev_pid);
                    // Gone before the pick: a dead task is never left sched_delayed.
                    self.ev_migrate(prev_pid, None);
                }
                self.ev_switch(cpu, prev_pid, prev_runnable, next_pid);
            }
            SchedEvent::Waking { pid, target_cpu } => {
                if ev.prio.is_none() {
                    self.counts.prio_unknown += 1;
                }
                self.note_task(pid, ev.prio, comm);
                self.waking(cpu, pid, target_cpu, comm, line)
            }
            SchedEvent::Wakeup {
                pid,
                target_cpu,
                new,
            } => {
                self.note_task(pid, ev.prio, comm);
                if new {
                    self.forked(cpu, pid);
                }
                self.wakeup(cpu, pid, target_cpu, new)
            }
            SchedEvent::Migrate {
                pid,
                orig_cpu: _,
                dest_cpu,
            } => {
                let st = self.task(pid).state;
                if let TaskState::Queued(orig, _) = st {
                    if self.queued_valid(st) {
                        // move_queued_task(): dequeued there, enqueued here (DO_DETACH).
                        self.load_dequeue(orig, pid);
                        self.load_leave(pid, dest_cpu, true);
                        self.leave_queue(pid, st);
                        self.enqueue(dest_cpu, pid);
                        self.ev_migrate(pid, Some(dest_cpu));
                    }
                } else if self.task(pid).pending.is_none() {
                    // Asleep but still queued sched_delayed: v6.12 can_migrate_task() lets the
                    // balancer move it (migrate_load), and it stays delayed on the new
                    // runqueue until a pick there dequeues it.
                    let idle = self.cpus[dest_cpu as usize].curr == Some(0);
                    self.ev_migrate_delayed(pid, dest_cpu, idle);
                } else {
                    // A waking's set_task_cpu(): its load leaves prev's cfs_rq (replay/load.rs).
                    self.load_leave(pid, dest_cpu, false);
                }
            }
            _ => {} // the kprobes: pending.rs probe_event()
        }
    }

    /// The comms an event shows, for the inferred task groups (replay/group44.rs).
    fn group44_event(&mut self, ev: &TraceEvent<'_>) {
        let (cpu, comm) = (ev.cpu, ev.comm);
        match ev.event {
            SchedEvent::Switch {
                prev_pid, next_pid, ..
            } => {
                self.group44_name(prev_pid, ev.prev_comm);
                self.group44_name(next_pid, comm);
            }
            SchedEvent::Waking { pid, .. } => self.group44_name(pid, comm),
            // A new task's creator runs here: its group first.
            SchedEvent::Wakeup { pid, new, .. } => {
                if new {
                    self.group44_fork(pid, cpu);
                }
                self.group44_name(pid, comm);
            }
            _ => {}
        }
    }

    fn switch(&mut self, cpu: u32, prev_pid: u32, prev_runnable: bool, next_pid: u32) {
        self.cpu_pelt(cpu);
        let now = self.now;
        if self.cpus[cpu as usize].curr.is_none() {
            self.cpus_switched += 1;
        }
        if prev_pid != 0 {
            // put_prev_entity() while runnable, dequeue_entity() when it sleeps.
            if prev_runnable {
                self.load_touch(cpu, prev_pid);
            } else {
                self.load_dequeue(cpu, prev_pid);
            }
            let t = self.task(prev_pid);
            t.pelt.update(now, true);
            if !prev_runnable {
                t.util_est_sleep();
            }
            let old = t.state;
            self.leave_queue(prev_pid, old);
            // prev no longer runs here: the queue or nothing holds it.
            self.cpus[cpu as usize].curr = Some(0);
            let left_empty;
            if prev_runnable {
                let c = &mut self.cpus[cpu as usize];
                c.queued.push(prev_pid);
                let e = c.epoch;
                self.task(prev_pid).state = TaskState::Queued(cpu, e);
                left_empty = false;
            } else {
                left_empty = self.cpus[cpu as usize].queued.is_empty();
                self.task(prev_pid).state = TaskState::Sleeping;
            }
            let t = self.task(prev_pid);
            let ran = now.saturating_sub(t.exec_start);
            if prev_runnable {
                t.ran_since_sleep += ran;
            } else {
                // SIS_SHORT v6 dequeue_task_fair dur_avg_update(p, task_sleep), and SIS_CACHE
                // v2's sleep stamp and cache-hot deadline, as the engine's block().
                t.dur_avg = crate::kernel::throttle::update_avg(t.dur_avg, t.ran_since_sleep + ran);
                t.ran_since_sleep = 0;
                t.last_dequeue_ns = now.max(1);
                let hot = t.avg_hot_dur;
                if left_empty && hot != 0 {
                    let c = &mut self.cpus[cpu as usize];
                    c.cache_hot_timeout = c.cache_hot_timeout.max(now + hot);
                }
            }
            // Sync inference: the waker of the latest waking from this CPU leaves it now.
            if let Some(seq) = self.cpus[cpu as usize].sync_watch {
                let window = self.sync_window.ns;
                if let Some(p) = self.pending_mut(seq) {
                    if p.waker_pid == Some(prev_pid) {
                        let sync = !prev_runnable && now - p.time_ns <= window;
                        p.sync = Some(sync);
                        self.cpus[cpu as usize].sync_watch = None;
                    }
                } else {
                    self.cpus[cpu as usize].sync_watch = None;
                }
            }
        }
        if next_pid != 0 {
            self.wakelist_done(next_pid);
            let t = self.task(next_pid);
            t.pelt.update(now, false);
            t.exec_start = now;
            let old = t.state;
            // set_next_entity() of a task queued here; one the rebuild had elsewhere or
            // asleep (a gap in the trace) is enqueued here first.
            if matches!(old, TaskState::Queued(c, _) if c == cpu) && self.queued_valid(old) {
                self.load_touch(cpu, next_pid);
                self.leave_queue(next_pid, old);
            } else {
                if let TaskState::Queued(c, _) = old {
                    if self.queued_valid(old) {
                        self.load_dequeue(c, next_pid);
                    }
                }
                self.leave_queue(next_pid, old);
                if !matches!(old, TaskState::Running(c) if c == cpu) {
                    self.load_enqueue(cpu, next_pid);
                }
            }
            self.task(next_pid).state = TaskState::Running(cpu);
        }
        let c = &mut self.cpus[cpu as usize];
        c.curr = Some(next_pid);
        if next_pid == 0 {
            // The idle task runs only on an empty runqueue.
            if !c.queued.is_empty() {
                self.counts.queue_fixups += c.queued.len() as u64;
                c.queued.clear();
            }
            c.epoch = c.epoch.wrapping_add(1);
            // idle_balance() found nothing to pull: rq->idle_stamp = rq_clock(rq).
            c.idle_stamp = now.max(1);
            // __update_idle_core(): the whole core idle sets has_idle_cores.
            if self.topo.smt() > 1
                && self
                    .topo
                    .smt_siblings(cpu)
                    .iter()
                    .all(|s| self.cpus[*s as usize].nr_running() == 0)
            {
                self.idle_core_seq[self.topo.llc_of(cpu) as usize] += 1;
            }
        }
    }

    fn waking(&mut self, cpu: u32, pid: u32, prev: u32, comm: &str, line: u64) {
        let now = self.now;
        self.counts.wakings += 1;
        self.await_choice(cpu, pid, prev);
        // An earlier waking of the same task never got its wakeup.
        if let Some(old) = self.task(pid).pending.take() {
            if let Some(p) = self.pending_mut(old) {
                p.unpaired = true;
            }
        }
        let waker_pid = self.cpus[cpu as usize].curr;
        // record_wakee() is select_task_rq_fair()'s (4.4..6.x): no flip for a wakee still
        // queued (ttwu_runnable()), bound (no class hook when nr_cpus_allowed == 1) or of
        // another class. (Not 6.12's delayed one: that inference runs only for DELAY_DEQUEUE
        // presets, and every preset's flips must not depend on which run.)
        let (wakee_class, wakee_bound, wakee_state) = {
            let t = self.task(pid);
            (t.class(), t.bound, t.state)
        };
        let on_rq = self.queued_valid(wakee_state);
        // A CPU holding delayed tasks may have picked (and so dequeued) them at a tick, with
        // no switch in the trace (eevdf.rs `ev_tick`): the wake-up reads every CPU's
        // nr_running and load, and its wakee's delayed state, after those ticks.
        if self.track_eevdf {
            for c in 0..self.topo.nr_cpus() {
                if self.cfs[c as usize].delayed_weight > 0 {
                    self.ev_tick(c);
                }
            }
        }
        let delayed = !on_rq && self.ev_delayed_on(pid) == Some(prev);
        let records_wakee = wakee_class == TaskClass::Fair && !on_rq && !wakee_bound;
        let flips = self.waker_flips(cpu, waker_pid, pid, records_wakee);
        let mut waker_load = [0; ERAS];
        let mut waker_dur = TaskDuration::default();
        let mut parent_wake = false;
        if let Some(w) = waker_pid.filter(|w| *w != 0) {
            self.load_read_touch(cpu, w);
            waker_load = self.task_loads(w);
            let wt = self.task(w);
            wt.pelt.update(now, true);
            parent_wake = wt.parent == pid;
            waker_dur = TaskDuration {
                dur_avg: wt.dur_avg,
                wakee_flips: wt.flips.wakee_flips,
                last_wakee_is_peer: wt.flips.last_wakee == pid,
            };
        }
        // task_h_load(p) with no task groups: p->se.avg.load_avg as its sleep left it.
        let wakee_load = self.task_loads(pid);
        let t = self.task(pid);
        t.pelt.update(now, false);
        let wakee_prio = t.prio;
        // SIS_CACHE v2 enqueue_task_fair (ENQUEUE_WAKEUP), as the engine's wake-up does.
        if t.last_dequeue_ns != 0 && now > t.last_dequeue_ns {
            let slept = now - t.last_dequeue_ns;
            t.avg_hot_dur = if slept < MIGRATION_COST_NS {
                crate::kernel::throttle::update_avg(t.avg_hot_dur, slept)
            } else {
                t.avg_hot_dur >> 1
            };
        }
        let wakee_dur = TaskDuration {
            dur_avg: t.dur_avg,
            wakee_flips: t.flips.wakee_flips,
            last_wakee_is_peer: waker_pid.is_some_and(|w| w != 0 && t.flips.last_wakee == w),
        };
        // Still queued sched_delayed on prev (replay/eevdf.rs): 6.12's ttwu_runnable() wakes it
        // there. Elsewhere (the rebuild lost a move), it is taken as not delayed.
        if delayed {
            self.counts.delayed_wakeups += 1;
        }
        let n = self.topo.nr_cpus();
        let pinned = pinned_cpu(comm).filter(|c| *c == prev && *c < n);
        if pinned.is_some() {
            self.counts.pinned += 1;
        }
        // Periodic LLC balance (nr_idle_scan's writer) every sd_weight ms (base interval).
        if now >= self.next_balance_ns {
            self.balance_seq += 1;
            self.next_balance_ns = now + self.topo.llc_weight() as u64 * 1_000_000;
        }
        let mut cpus = self.pool.pop().unwrap_or_default();
        cpus.clear();
        self.util_blocked_update();
        for c in 0..n {
            self.cpus[c as usize].loads = self.cpu_loads(c);
            cpus.push(self.cpu_snap(c));
        }
        if cpus.iter().any(|c| c.ttwu_pending) {
            self.counts.saw_wakelist += 1;
        }
        let tg44 = self.group44_view(pid, cpu, prev);
        let rt = match wakee_class {
            TaskClass::Rt | TaskClass::Dl => Some(Box::new(self.class_wake(
                wakee_class,
                wakee_prio,
                wakee_bound,
                prev,
            ))),
            _ => None,
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.pending.is_empty() {
            self.pending_base = seq;
        }
        // The previous waking from this CPU by the same waker: it did not block in between.
        if let Some(old) = self.cpus[cpu as usize].sync_watch.take() {
            if let Some(p) = self.pending_mut(old) {
                if p.sync.is_none() {
                    p.sync = Some(false);
                }
            }
        }
        let sync = match waker_pid {
            Some(w) if w != 0 => {
                self.cpus[cpu as usize].sync_watch = Some(seq);
                None
            }
            _ => Some(false),
        };
        self.pending.push_back(Pending {
            seq,
            line,
            time_ns: now,
            waker_cpu: cpu,
            waker_pid,
            wakee: pid,
            prev,
            pinned,
            wakee_load,
            waker_load,
            rt,
            stop: wakee_class == TaskClass::Stop,
            wake_wide: flips.wake_wide,
            waker_flips: flips.flips.map(|f| f.wakee_flips),
            waker_unnamed_last: flips.unnamed_last,
            flips_read: false,
            recent_read: None,
            wakee_dur,
            waker_dur,
            incomplete: self.cpus_switched < n,
            on_rq,
            delayed,
            cpus,
            tg44,
            idle_core_seq: self.idle_core_seq.clone(),
            balance_seq: self.balance_seq,
            chosen: None,
            sync,
            unpaired: false,
            parent_wake,
            waker_exiting: false,
            sync_read: false,
            kernel_asks: Vec::new(),
            kernel_ask_sites: Vec::new(),
            reread_at_selection: false,
            read_at: now,
            lb_nr: Vec::new(),
        });
        self.watch_probes(cpu, seq);
        self.task(pid).pending = Some(seq);
    }

    /// `pid`'s sched_wakeup on `target`, emitted on `cpu`.
    fn wakeup(&mut self, cpu: u32, pid: u32, target: u32, new: bool) {
        let now = self.now;
        self.wakelist_done(pid);
        if !new {
            match self.task(pid).pending.take() {
                Some(seq) => {
                    let mut local = None;
                    if let Some(p) = self.pending_mut(seq) {
                        p.chosen = Some(target);
                        // Waking and activation on the waker's own CPU: try_to_wake_up()'s
                        // own path, timed on this machine.
                        if p.waker_cpu == cpu && target == cpu {
                            local = Some(now.saturating_sub(p.time_ns));
                        }
                    }
                    if cpu == target {
                        self.wakelist_since_selection(seq, target);
                    } else {
                        self.activated_since_selection(seq, target);
                    }
                    if let Some(ns) = local {
                        self.sync_window.local_wakeup(ns);
                        self.counts.sync_window_ns = self.sync_window.ns;
                        self.counts.local_wakeup_median_ns =
                            self.sync_window.median_ns.unwrap_or(0);
                    }
                }
                None => self.counts.wakeups_without_waking += 1,
            }
        }
        let state = self.task(pid).state;
        if !self.queued_valid(state) {
            self.ev_wakeup(pid, target);
            if new {
                let t = self.task(pid);
                let w = crate::kernel::pelt::prio_to_weight(t.prio);
                (t.created, t.util_new) = (true, true);
                t.load.init_new(w, true);
                // v4.16+ core.c wake_up_new_task(): `p->recent_used_cpu = task_cpu(p)`, the
                // forking CPU, which emits the sched_wakeup_new.
                t.recent.fill(cpu);
            }
            self.enqueue(target, pid);
        }
        if !new {
            // ttwu_do_wakeup(): fold the idle period into avg_idle (linux-4.4 core.c).
            let c = &mut self.cpus[target as usize];
            if c.idle_stamp != 0 {
                let delta = now.saturating_sub(c.idle_stamp);
                let max = 2 * MIGRATION_COST_NS; // 2 * rq->max_idle_balance_cost
                c.avg_idle = crate::kernel::throttle::update_avg(c.avg_idle, delta).min(max);
                // linux-5.14 core.c: rq->wake_stamp = jiffies; wake_avg_idle = avg_idle / 2.
                c.wake_stamp = now * self.hz / 1_000_000_000;
                c.wake_avg_idle = c.avg_idle / 2;
                c.wake_resets = c.wake_resets.wrapping_add(1);
                c.idle_stamp = 0;
            }
        }
    }
}
