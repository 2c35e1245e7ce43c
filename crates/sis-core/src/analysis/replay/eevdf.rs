//! EEVDF's per-CPU state as a trace implies it, for one question only: is a waking task still
//! queued `sched_delayed` on its CPU? From 6.12 (DELAY_DEQUEUE, 152e11f6df29) a fair task that
//! blocks while it is not eligible stays on its cfs_rq (v6.12 fair.c `dequeue_entity()`:
//! `if (sched_feat(DELAY_DEQUEUE) && delay && !entity_eligible(cfs_rq, se))`) until EEVDF
//! picks it (`pick_next_entity()` then dequeues it) or it is woken, and a wake-up of such a
//! task is `ttwu_runnable()`: it is requeued where it is and no CPU is selected (v6.12 core.c).
//! The trace shows that block as an ordinary `prev_state=S` switch, so the rebuild keeps each
//! fair task's vruntime, deadline and lag from its run times and its prio's weight, as
//! `update_curr()`, `place_entity()` and `update_entity_lag()` do, and infers the rest.
//!
//! Inferred, and said in the replay's header: the task groups (the trace does not show cgroups
//! or autogroups, so every fair task is taken to share its CPU's root cfs_rq) and the clock
//! (vruntimes start where the trace starts).

use super::rebuild::Rebuild;
use crate::kernel::pelt::SCHED_PRIO_TO_WEIGHT;

/// v6.12 sched/core.c `sched_prio_to_wmult[]`: 2^32 / weight, by nice level.
const SCHED_PRIO_TO_WMULT: [u32; 40] = [
    48388, 59856, 76040, 92818, 118348, 147320, 184698, 229616, 287308, 360437, 449829, 563644,
    704093, 875809, 1099582, 1376151, 1717300, 2157191, 2708050, 3363326, 4194304, 5237765,
    6557202, 8165337, 10153587, 12820798, 15790321, 19976592, 24970740, 31350126, 39045157,
    49367440, 61356676, 76695844, 95443717, 119304647, 148102320, 186737708, 238609294, 286331153,
];

/// v6.12 fair.c `sysctl_sched_base_slice`: 0.75 ms, times get_update_sysctl_factor().
const BASE_SLICE_NS: u64 = 750_000;

/// One task's scheduling entity as EEVDF keeps it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Entity {
    pub vruntime: u64,
    pub deadline: u64,
    pub vlag: i64,
    /// On this CPU's cfs_rq (running, queued, or delayed).
    pub on_cpu_rq: Option<u32>,
    pub delayed: bool,
    /// Its weight when it was left delayed (what it holds of its cfs_rq's `delayed_weight`).
    pub delayed_weight: u64,
}

/// One CPU's cfs_rq: the entities in its tree (the running one included) and its clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct CfsRq {
    pub tree: Vec<u32>,
    /// The running fair task and when update_curr() last charged it.
    pub curr: Option<u32>,
    pub exec_start: u64,
    /// Where an empty cfs_rq places its next task (its last average vruntime).
    pub base: u64,
    /// The weight of the tasks delayed on it (replay/load.rs: 6.12's cfs_rq->load keeps it).
    pub delayed_weight: u64,
}

/// v6.12 fair.c `calc_delta_fair()` for a task of kernel prio `prio`: `delta` scaled by
/// NICE_0_LOAD / weight in `__calc_delta()`'s fixed point (exactly `delta` at nice 0).
pub(crate) fn calc_delta_fair(delta: u64, prio: i32) -> u64 {
    let i = (prio.clamp(100, 139) - 100) as usize;
    if SCHED_PRIO_TO_WEIGHT[i] == 1024 {
        return delta;
    }
    // __calc_delta(): fact = NICE_0_LOAD (scaled down) * inv_weight, shifted under 32 bits.
    let mut fact = 1024u64 * u64::from(SCHED_PRIO_TO_WMULT[i]);
    let mut shift = 32u32;
    while fact >> 32 != 0 {
        fact >>= 1;
        shift -= 1;
    }
    ((u128::from(delta) * u128::from(fact)) >> shift) as u64
}

fn weight(prio: i32) -> i128 {
    i128::from(SCHED_PRIO_TO_WEIGHT[(prio.clamp(100, 139) - 100) as usize])
}

impl Rebuild {
    fn base_slice(&self) -> u64 {
        // get_update_sysctl_factor(): 1 + ilog2(min(CPUs, 8)) (SCHED_TUNABLESCALING_LOG).
        BASE_SLICE_NS * (1 + u64::from(self.topo.nr_cpus().clamp(1, 8).ilog2()))
    }

    fn fair(&mut self, pid: u32) -> bool {
        pid != 0 && (100..=139).contains(&self.task(pid).prio)
    }

    /// `update_curr()` on `cpu`: the running fair task's vruntime advances by the time it ran,
    /// and a deadline it passed moves one slice on (`update_deadline()`).
    pub(crate) fn ev_update_curr(&mut self, cpu: u32) {
        let now = self.now;
        let slice = self.base_slice();
        let rq = &mut self.cfs[cpu as usize];
        let Some(pid) = rq.curr else { return };
        let delta = now.saturating_sub(rq.exec_start);
        rq.exec_start = now;
        let t = self.task(pid);
        let prio = t.prio;
        let e = &mut t.ev;
        e.vruntime = e.vruntime.wrapping_add(calc_delta_fair(delta, prio));
        if (e.vruntime.wrapping_sub(e.deadline) as i64) >= 0 {
            e.deadline = e.vruntime.wrapping_add(calc_delta_fair(slice, prio));
            // update_curr(): the request is used up, so with others queued it reschedules
            // (resched_curr()); that pick may keep the running task, which the trace does not
            // show, and dequeue delayed tasks it would have picked first.
            if self.cfs[cpu as usize].tree.len() > 1 {
                self.ev_pick_delayed(cpu, pid);
            }
        }
    }

    /// The tick's `update_curr()` on `cpu` at the last tick boundary, every 1/HZ s (v6.12
    /// `task_tick_fair()` -> `entity_tick()`): a request used up by then made that tick
    /// reschedule, and its pick dequeued each delayed task it would have chosen first, with no
    /// switch in the trace if the running task was picked again. Run before each wake-up on
    /// every CPU holding a delayed task.
    pub(crate) fn ev_tick(&mut self, cpu: u32) {
        let now = self.now;
        let at = now - now % (1_000_000_000 / self.hz);
        if !self.track_eevdf || at <= self.cfs[cpu as usize].exec_start {
            return;
        }
        // The rebuild's clock at the tick while it runs, so that the charge, the pick and the
        // load a dequeue moves are the tick's; no event on `cpu` came since (exec_start).
        self.now = at;
        self.ev_update_curr(cpu);
        self.now = now;
    }

    /// Σ w_i (v_i - v) over `cpu`'s tree: `vruntime_eligible()` is this >= 0.
    fn ev_key_sum(&mut self, cpu: u32, v: u64) -> i128 {
        let tree = std::mem::take(&mut self.cfs[cpu as usize].tree);
        let mut sum = 0i128;
        for &p in &tree {
            let t = self.task(p);
            sum += weight(t.prio) * i128::from(t.ev.vruntime.wrapping_sub(v) as i64);
        }
        self.cfs[cpu as usize].tree = tree;
        sum
    }

    fn ev_eligible(&mut self, cpu: u32, pid: u32) -> bool {
        let v = self.task(pid).ev.vruntime;
        self.ev_key_sum(cpu, v) >= 0
    }

    /// `avg_vruntime()`: the weighted mean vruntime of the tree, rounded down; the CPU's base
    /// when it is empty. Also the tree's total weight.
    fn ev_avg(&mut self, cpu: u32) -> (u64, i128) {
        let tree = std::mem::take(&mut self.cfs[cpu as usize].tree);
        let base = self.cfs[cpu as usize].base;
        let v0 = tree.first().map_or(base, |p| self.task(*p).ev.vruntime);
        let (mut sum, mut load) = (0i128, 0i128);
        for &p in &tree {
            let t = self.task(p);
            let w = weight(t.prio);
            sum += w * i128::from(t.ev.vruntime.wrapping_sub(v0) as i64);
            load += w;
        }
        self.cfs[cpu as usize].tree = tree;
        if load == 0 {
            return (base, 0);
        }
        (v0.wrapping_add(sum.div_euclid(load) as i64 as u64), load)
    }

    /// `update_entity_lag()`: avg - vruntime, clamped to one slice's worth (or a tick's).
    fn ev_update_lag(&mut self, cpu: u32, pid: u32) {
        let (avg, _) = self.ev_avg(cpu);
        let slice = self.base_slice();
        let tick = 1_000_000_000 / self.hz;
        let t = self.task(pid);
        let limit = calc_delta_fair((2 * slice).max(tick), t.prio) as i64;
        let lag = avg.wrapping_sub(t.ev.vruntime) as i64;
        t.ev.vlag = lag.clamp(-limit, limit);
    }

    /// Takes `pid` out of its cfs_rq with its lag kept; `delay_zero`: a delayed dequeue's
    /// end, which drops positive lag (`finish_delayed_dequeue_entity()`, DELAY_ZERO).
    fn ev_dequeue(&mut self, pid: u32, delay_zero: bool) {
        let Some(cpu) = self.task(pid).ev.on_cpu_rq else {
            return;
        };
        if self.task(pid).ev.delayed {
            self.load_delayed_update(cpu, pid);
        }
        self.ev_update_lag(cpu, pid);
        let rq = &mut self.cfs[cpu as usize];
        rq.tree.retain(|p| *p != pid);
        if rq.curr == Some(pid) {
            rq.curr = None;
        }
        let (avg, _) = self.ev_avg(cpu);
        self.cfs[cpu as usize].base = avg;
        self.ev_set_delayed(cpu, pid, false);
        let e = &mut self.task(pid).ev;
        e.on_cpu_rq = None;
        if delay_zero && e.vlag > 0 {
            e.vlag = 0;
        }
    }

    /// `place_entity()` and the enqueue: vruntime = avg - lag scaled by (W + w) / W
    /// (PLACE_LAG), deadline one slice on.
    fn ev_place(&mut self, cpu: u32, pid: u32) {
        if self.task(pid).ev.on_cpu_rq.is_some() {
            self.ev_dequeue(pid, false);
        }
        let (avg, load) = self.ev_avg(cpu);
        let slice = self.base_slice();
        let t = self.task(pid);
        let mut lag = i128::from(t.ev.vlag);
        if load > 0 && lag != 0 {
            lag = lag * (load + weight(t.prio)) / load;
        }
        t.ev.vruntime = avg.wrapping_sub(lag as i64 as u64);
        t.ev.deadline = t.ev.vruntime.wrapping_add(calc_delta_fair(slice, t.prio));
        t.ev.on_cpu_rq = Some(cpu);
        t.ev.delayed = false;
        self.cfs[cpu as usize].tree.push(pid);
    }

    /// A pick that chose `next` on `cpu`: each delayed task EEVDF would have picked first (it
    /// is eligible and its deadline is earlier) was dequeued then (`pick_next_entity()`). The
    /// average moves with each one, so look again (the queue holds a few tasks).
    fn ev_pick_delayed(&mut self, cpu: u32, next: u32) {
        'pick: loop {
            let nd = self.task(next).ev.deadline;
            for i in 0..self.cfs[cpu as usize].tree.len() {
                let p = self.cfs[cpu as usize].tree[i];
                if p == next || !self.task(p).ev.delayed {
                    continue;
                }
                let d = self.task(p).ev.deadline;
                if (d.wrapping_sub(nd) as i64) < 0 && self.ev_eligible(cpu, p) {
                    self.ev_dequeue(p, true);
                    continue 'pick;
                }
            }
            break;
        }
    }

    /// A switch on `cpu`: `prev` leaves the CPU (blocking unless `prev_runnable`), `next`
    /// runs. A blocking task that is not eligible, with others queued, stays delayed; the
    /// pick dequeues each delayed task it would have chosen before `next` (the earliest
    /// eligible deadline), and an idle pick all of them.
    pub(crate) fn ev_switch(&mut self, cpu: u32, prev: u32, prev_runnable: bool, next: u32) {
        if !self.track_eevdf {
            return;
        }
        self.ev_update_curr(cpu);
        self.cfs[cpu as usize].curr = None;
        if self.fair(prev) && self.task(prev).ev.on_cpu_rq == Some(cpu) && !prev_runnable {
            let others = self.cfs[cpu as usize].tree.len() > 1;
            if others && !self.ev_eligible(cpu, prev) {
                self.ev_set_delayed(cpu, prev, true);
                self.counts.delayed_dequeues += 1;
            } else {
                self.ev_dequeue(prev, false);
            }
        }
        if next != 0 && self.fair(next) {
            if self.task(next).ev.on_cpu_rq != Some(cpu) || self.task(next).ev.delayed {
                self.ev_place(cpu, next);
            }
            self.ev_pick_delayed(cpu, next);
            let rq = &mut self.cfs[cpu as usize];
            rq.curr = Some(next);
            rq.exec_start = self.now;
        } else if next == 0 {
            // The idle pick takes them one by one as pick_eevdf() would: the eligible one with
            // the earliest deadline, else the one with the least vruntime.
            while !self.cfs[cpu as usize].tree.is_empty() {
                let mut best: Option<(bool, u64, u32)> = None;
                for i in 0..self.cfs[cpu as usize].tree.len() {
                    let p = self.cfs[cpu as usize].tree[i];
                    let eligible = self.ev_eligible(cpu, p);
                    let e = self.task(p).ev;
                    let key = if eligible { e.deadline } else { e.vruntime };
                    let better = match best {
                        None => true,
                        Some((be, bk, _)) => {
                            (eligible && !be)
                                || (eligible == be && (key.wrapping_sub(bk) as i64) < 0)
                        }
                    };
                    if better {
                        best = Some((eligible, key, p));
                    }
                }
                let Some((_, _, p)) = best else { break };
                if self.task(p).ev.on_cpu_rq == Some(cpu) {
                    self.ev_dequeue(p, true);
                } else {
                    self.cfs[cpu as usize].tree.retain(|q| *q != p);
                }
            }
        }
    }

    /// The CPU `pid` is queued on as a delayed task, if it is (read at its sched_waking).
    pub(crate) fn ev_delayed_on(&mut self, pid: u32) -> Option<u32> {
        if !self.track_eevdf {
            return None;
        }
        let e = self.task(pid).ev;
        e.delayed.then_some(e.on_cpu_rq).flatten()
    }

    /// How many tasks are queued `sched_delayed` on `cpu`.
    pub(crate) fn ev_delayed_count(&self, cpu: u32) -> u32 {
        if !self.track_eevdf {
            return 0;
        }
        let tree = &self.cfs[cpu as usize].tree;
        tree.iter()
            .filter(|p| self.tasks.get(p).is_some_and(|t| t.ev.delayed))
            .count() as u32
    }

    /// Its sched_wakeup on `target`: a delayed task is requeued where it is
    /// (`requeue_delayed_entity()`: placed again with its lag zeroed if positive); another is
    /// placed on `target`.
    pub(crate) fn ev_wakeup(&mut self, pid: u32, target: u32) {
        if !self.track_eevdf || !self.fair(pid) {
            return;
        }
        let e = self.task(pid).ev;
        if e.delayed && e.on_cpu_rq == Some(target) {
            self.ev_update_curr(target);
            self.ev_update_lag(target, pid);
            self.load_delayed_update(target, pid);
            self.ev_set_delayed(target, pid, false);
            if self.task(pid).ev.vlag > 0 {
                self.task(pid).ev.vlag = 0;
                self.ev_place(target, pid);
            }
            return;
        }
        if e.on_cpu_rq.is_some() {
            self.ev_dequeue(pid, e.delayed);
        }
        self.ev_update_curr(target);
        self.ev_place(target, pid);
    }

    /// A queued task moved by the load balancer, or one that died: out of its cfs_rq, its lag
    /// kept for the next placement.
    pub(crate) fn ev_migrate(&mut self, pid: u32, dest: Option<u32>) {
        if !self.track_eevdf || !self.fair(pid) {
            return;
        }
        if let Some(c) = self.task(pid).ev.on_cpu_rq {
            self.ev_update_curr(c);
            self.ev_dequeue(pid, false);
        }
        if let Some(d) = dest {
            self.ev_update_curr(d);
            self.ev_place(d, pid);
        }
    }

    /// A sleeping task still queued `sched_delayed`, moved by the balancer: out of its cfs_rq
    /// and onto `dest`'s, still delayed (v6.12 detach_task()/attach_task() leave
    /// `se->sched_delayed` set), until a pick there dequeues it: at once on an idle `dest`
    /// (attach_task()'s wakeup_preempt() reschedules its idle task, whose pick finds only
    /// the delayed task). Nothing for another task.
    pub(crate) fn ev_migrate_delayed(&mut self, pid: u32, dest: u32, dest_idle: bool) {
        if !self.track_eevdf || !self.task(pid).ev.delayed {
            return;
        }
        let from = self.task(pid).ev.on_cpu_rq;
        if dest_idle {
            self.ev_migrate(pid, None);
        } else {
            self.ev_migrate(pid, Some(dest));
            // dest's cfs_rq without it until now, then with its weight.
            self.load_delayed_update(dest, pid);
            self.ev_set_delayed(dest, pid, true);
        }
        // Its load goes with it (6.12's signal), the delay going on or not.
        if let Some(from) = from {
            self.load_move_delayed(from, dest, pid);
        }
    }

    /// Marks `pid` delayed on `cpu` or not, keeping the cfs_rq's delayed weight.
    fn ev_set_delayed(&mut self, cpu: u32, pid: u32, on: bool) {
        let t = self.task(pid);
        if t.ev.delayed == on {
            return;
        }
        t.ev.delayed = on;
        let w = if on {
            let w = crate::kernel::pelt::prio_to_weight(t.prio);
            t.ev.delayed_weight = w;
            w
        } else {
            t.ev.delayed_weight
        };
        let rq = &mut self.cfs[cpu as usize];
        rq.delayed_weight = if on {
            rq.delayed_weight + w
        } else {
            rq.delayed_weight.saturating_sub(w)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wmult_table_is_two_to_the_32_over_each_weight() {
        // The kernel's table rounds either way; every entry is within one of 2^32 / weight.
        for (w, m) in SCHED_PRIO_TO_WEIGHT.iter().zip(SCHED_PRIO_TO_WMULT) {
            let exact = (1u64 << 32) / u64::from(*w);
            assert!(
                u64::from(m).abs_diff(exact) <= 1,
                "weight {w}: {m} vs {exact}"
            );
        }
    }

    #[test]
    fn calc_delta_fair_is_the_kernels_fixed_point() {
        // nice 0: exactly delta; nice -5 (weight 3121): 1024/3121 of it, rounded down through
        // the 2^32 / weight table; nice 19 (weight 15): 1024/15 of it, from a fact shifted 7.
        assert_eq!(calc_delta_fair(1_000_000, 120), 1_000_000);
        assert_eq!(calc_delta_fair(1_000_000, 115), 328_099);
        assert_eq!(calc_delta_fair(1_000_000, 139), 68_266_666);
    }
}
