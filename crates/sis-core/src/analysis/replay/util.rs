//! The cfs_rq util_avg that cpu_util_cfs() reads (SIS_UTIL's sum, util_est's partner), kept
//! as the kernel keeps it: not the CPU's own running history but a signal that accrues while
//! a task runs there and takes each task's util with it. A task that wakes on another CPU
//! leaves the old cfs_rq (remove_entity_load_avg()) and joins the new (attach); a dead task
//! leaves (task_dead_fair()); a new task joins with the share post_init_entity_util_avg()
//! gives it, not with nothing. The CPU's signal is a [`LoadAvg`] with input
//! SCHED_CAPACITY_SCALE while running: the kernel's util steps (`util_sum += contrib <<
//! SCHED_CAPACITY_SHIFT`, `util_avg = util_sum / divider`) without a cap, since a cfs_rq that
//! took on two tasks' util holds more than a CPU can run until it decays.

use super::rebuild::Rebuild;
use crate::kernel::pelt::{prio_to_weight, LoadAvg, PELT_MIN_DIVIDER};
use crate::kernel::throttle::SCHED_CAPACITY_SCALE;
use crate::kernel::util_est::UTIL_AVG_UNCHANGED;

/// v6.12 fair.c update_cfs_rq_load_avg(), its `removed` util or load: `sub_positive()` of the
/// avg and of `avg * divider` from the sum, the sum kept at least `avg * PELT_MIN_DIVIDER`
/// (5.18 "sched/pelt: Relax the sync of util_sum with util_avg", and of load_sum).
pub(crate) fn sub_removed(cfs: &mut LoadAvg, avg: u64) {
    let divider = PELT_MIN_DIVIDER + u64::from(cfs.period_contrib);
    cfs.load_avg = cfs.load_avg.saturating_sub(avg);
    cfs.load_sum = cfs.load_sum.saturating_sub(avg * divider);
    cfs.load_sum = cfs.load_sum.max(cfs.load_avg * PELT_MIN_DIVIDER);
}

/// v6.12 fair.c post_init_entity_util_avg() of a new fair task on a cfs_rq at `cfs_util`
/// and `cfs_load`: a share of the cfs_rq's util by weight, at most half of the capacity the
/// cfs_rq leaves (`cpu_scale` 1024: the rebuild's CPUs are symmetric); nothing if none is
/// left.
pub(crate) fn post_init_util(cfs_util: u64, cfs_load: u64, se_weight: u64) -> Option<u64> {
    let cap = (SCHED_CAPACITY_SCALE as i64 - cfs_util as i64) / 2;
    if cap <= 0 {
        return None;
    }
    if cfs_util == 0 {
        return Some(cap as u64);
    }
    Some((cfs_util * se_weight / (cfs_load + 1)).min(cap as u64))
}

/// v6.12 fair.c nohz_balancer_kick(): an idle CPU's blocked util is brought up to date every
/// `LOAD_AVG_PERIOD` ms (`nohz.next_blocked`, NOHZ_STATS_KICK); between, it is what its last
/// update left.
const BLOCKED_PERIOD_NS: u64 = crate::kernel::pelt::LOAD_AVG_PERIOD * 1_000_000;

impl Rebuild {
    /// update_cfs_rq_load_avg() of `cpu` up to now: the util that tasks which left took off
    /// is subtracted first (`removed`, synced to the cfs_rq's clock when they left), then the
    /// signal accrues while a task ran and decays.
    pub(super) fn cpu_pelt(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        if !c.pelt_started {
            c.pelt.last_update_time = self.now & !1023;
            c.pelt_started = true;
            return;
        }
        let removed = std::mem::take(&mut c.removed_util);
        if removed != 0 {
            sub_removed(&mut c.pelt, removed);
        }
        let running = matches!(c.curr, Some(p) if p != 0);
        c.pelt.update(self.now, u64::from(running) << 10, 1);
    }

    /// The cfs_rq util each CPU holds when a wake-up or the balancer reads it: a CPU that runs
    /// a task is brought up to now (its tick keeps it within a jiffy; where the trace shows the
    /// ticks, as its last one left it), an idle one keeps what its last update left (its idle
    /// entry) until the next blocked-load update.
    pub(super) fn util_blocked_update(&mut self) {
        let blocked = self.now >= self.next_blocked_ns;
        if blocked {
            self.next_blocked_ns = self.now + BLOCKED_PERIOD_NS;
        }
        for c in 0..self.cpus.len() as u32 {
            let busy = matches!(self.cpus[c as usize].curr, Some(p) if p != 0);
            if blocked || (busy && self.counts.ticks == 0) {
                self.cpu_pelt(c);
            }
            if blocked {
                self.cfs_update(c);
            }
        }
    }

    /// The CPU whose cfs_rq holds `pid`'s util (its load's, replay/load.rs) becomes `cpu`:
    /// the old one loses the task's util synced to its clock (at its next update), and
    /// `cpu`'s, brought up to now by the enqueue (update_load_avg() before DO_ATTACH), takes
    /// it on (v6.12 fair.c attach_entity_load_avg(): the task's clock and window take the
    /// cfs_rq's and its sum is rebuilt from its avg).
    pub(crate) fn util_attach(&mut self, cpu: u32, pid: u32) {
        let ca = self.cpus[cpu as usize].pelt;
        let t = self.task(pid);
        // The runnable signal likewise: runnable_sum = runnable_avg * divider.
        t.runnable.attach_at(ca.last_update_time, ca.period_contrib);
        t.pelt.attach_at(ca.last_update_time, ca.period_contrib);
        let (avg, sum) = (u64::from(t.pelt.util_avg), t.pelt.util_sum);
        self.cpus[cpu as usize].pelt.attach(avg, sum);
    }

    /// v6.12 core.c wake_up_new_task(): post_init_entity_util_avg() of a task whose
    /// sched_wakeup_new the trace shows, on `cpu`'s cfs_rq as its last update left it (the
    /// enqueue's update_load_avg(), which takes off the util of tasks that left, comes after).
    pub(crate) fn util_post_init(&mut self, cpu: u32, pid: u32) {
        let (created, prio) = {
            let t = self.task(pid);
            (std::mem::take(&mut t.util_new), t.prio)
        };
        if created {
            let c = &self.cpus[cpu as usize];
            // The cfs_rq's load_avg in 5.7+'s form whatever the presets (replay/mod.rs keeps
            // it): one util signal for all, 6.12's delayed tasks' weight left out of it.
            let cfs_load = c.load.avg[0].load_avg;
            if let Some(u) = post_init_util(c.pelt.load_avg, cfs_load, prio_to_weight(prio)) {
                // `sa->runnable_avg = sa->util_avg`.
                let t = self.task(pid);
                t.pelt.util_avg = u as u32;
                t.runnable.util_avg = u as u32;
            }
        }
    }

    /// remove_entity_load_avg() (a task that moved away, or task_dead_fair()'s): the task's
    /// util, synced to `cpu`'s cfs_rq clock, leaves that cfs_rq at its next update; a queued
    /// task the balancer moves (`migrating`) is detached at once, the cfs_rq brought up to
    /// now first (v6.12 dequeue_entity(), DO_DETACH). Nothing where `cpu` holds none.
    pub(crate) fn util_leave(&mut self, cpu: u32, pid: u32, migrating: bool) {
        if cpu as usize >= self.cpus.len() {
            return;
        }
        if migrating {
            self.cpu_pelt(cpu);
        }
        let at = self.cpus[cpu as usize].pelt.last_update_time;
        let t = self.task(pid);
        t.pelt.update(at, false);
        t.runnable.update(at, false);
        let u = u64::from(t.pelt.util_avg);
        let c = &mut self.cpus[cpu as usize];
        if migrating {
            sub_removed(&mut c.pelt, u);
        } else {
            c.removed_util += u;
        }
    }
}

impl super::rebuild::Task {
    /// dequeue_task_fair() of a task that sleeps (DEQUEUE_SLEEP): util_est_update() with its
    /// util_avg and runnable_avg just brought up to now (a sleep completes an activation), in
    /// both forms: 5.13-6.7's and 6.8+'s, which also reads task_runnable(p).
    pub(super) fn util_est_sleep(&mut self) {
        let util = self.pelt.util_avg;
        let cap = SCHED_CAPACITY_SCALE as u32;
        // UTIL_AVG_UNCHANGED is the util signal's (cfs_se_util_change() clears it in
        // `pelt.util_est` when util_avg is recomputed): the same for both forms.
        let unchanged = self.pelt.util_est.enqueued & UTIL_AVG_UNCHANGED;
        let run = &mut self.util_est_run;
        run.enqueued = (run.enqueued & !UTIL_AVG_UNCHANGED) | unchanged;
        self.pelt.util_est.update(util, true, cap, None);
        let runnable = self.runnable.util_avg;
        self.util_est_run.update(util, true, cap, Some(runnable));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// post_init_entity_util_avg()'s three cases: an empty cfs_rq gives half the capacity,
    /// a busy one a weight share capped at half of what is left, a full one nothing.
    #[test]
    fn a_new_task_gets_a_weight_share_of_util_capped_at_half_the_room_left() {
        assert_eq!(post_init_util(0, 0, 1024), Some(512));
        // 300 * 1024 / (2048 + 1) = 149; cap (1024 - 300) / 2 = 362.
        assert_eq!(post_init_util(300, 2048, 1024), Some(149));
        // 600 * 1024 / 601 = 1022, capped at (1024 - 600) / 2 = 212.
        assert_eq!(post_init_util(600, 600, 1024), Some(212));
        assert_eq!(post_init_util(1023, 5000, 1024), None);
        assert_eq!(post_init_util(1400, 5000, 1024), None);
    }

    /// Removal takes the avg and `avg * divider` off, never below zero, and keeps the sum
    /// at least `util_avg * PELT_MIN_DIVIDER`.
    #[test]
    fn removing_a_tasks_util_never_goes_below_zero_and_keeps_the_sum_in_step() {
        let mut cfs = LoadAvg {
            load_avg: 700,
            load_sum: 700 * PELT_MIN_DIVIDER + 500,
            period_contrib: 0,
            last_update_time: 0,
        };
        sub_removed(&mut cfs, 200);
        assert_eq!(cfs.load_avg, 500);
        assert_eq!(cfs.load_sum, 500 * PELT_MIN_DIVIDER + 500);
        sub_removed(&mut cfs, 900);
        assert_eq!((cfs.load_avg, cfs.load_sum), (0, 0));
        let mut cfs = LoadAvg {
            load_avg: 400,
            load_sum: 100 * PELT_MIN_DIVIDER,
            period_contrib: 10,
            last_update_time: 0,
        };
        sub_removed(&mut cfs, 100);
        assert_eq!(cfs.load_sum, 300 * PELT_MIN_DIVIDER);
    }
}
