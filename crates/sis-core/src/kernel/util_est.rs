//! util_est (UTIL_EST, 4.17+): a task's utilisation remembered across its sleeps, and the
//! runqueue's sum of it, which `cpu_util_cfs()` reads beside util_avg. Ported from the form
//! the SIS_UTIL eras run (linux-5.13 to 6.7: `UTIL_AVG_UNCHANGED` in bit 31, UTIL_EST_FASTUP
//! on, the `last_enqueued_diff` margin); integer types as the kernel's (`unsigned int`).
//!
//! Before 5.13 the flag was bit 0 and `_task_util_est()` ORed it in; no preset that reads
//! util_est (the SIS_UTIL ones) is from before 5.13, so that form is not modelled.

use serde::{Deserialize, Serialize};

/// linux-6.0 include/linux/sched.h `UTIL_EST_WEIGHT_SHIFT`: new samples weigh 1/4.
pub const UTIL_EST_WEIGHT_SHIFT: u32 = 2;
/// linux-6.0 include/linux/sched.h `UTIL_AVG_UNCHANGED`: "PELT has not changed since the
/// last enqueue", kept in `enqueued`'s top bit (5.13, 68d7a190682a).
pub const UTIL_AVG_UNCHANGED: u32 = 0x8000_0000;
/// linux-6.0 fair.c `UTIL_EST_MARGIN`: SCHED_CAPACITY_SCALE / 100.
pub const UTIL_EST_MARGIN: i32 = 1024 / 100;

/// linux-6.0 include/linux/sched.h `struct util_est`. For a task, `enqueued` is its util_avg
/// at its last dequeue (plus the flag); for a runqueue, the sum of its tasks' estimates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UtilEst {
    pub enqueued: u32,
    pub ewma: u32,
}

/// linux-6.0 fair.c `within_margin()`: abs(value) < margin as
/// `(unsigned int)(value + margin - 1) < (2 * margin - 1)`.
pub fn within_margin(value: i32, margin: i32) -> bool {
    (value.wrapping_add(margin).wrapping_sub(1) as u32) < (2 * margin - 1) as u32
}

impl UtilEst {
    /// linux-6.0 fair.c `_task_util_est()`: `max(ue.ewma, ue.enqueued & ~UTIL_AVG_UNCHANGED)`.
    #[inline]
    pub fn task_util_est(&self) -> u32 {
        self.ewma.max(self.enqueued & !UTIL_AVG_UNCHANGED)
    }

    /// linux-6.0 pelt.h `cfs_se_util_change()`: the task's util_avg was recomputed (a PELT
    /// period passed), so the next dequeue may take a new sample.
    #[inline(always)]
    pub fn util_change(&mut self) {
        self.enqueued &= !UTIL_AVG_UNCHANGED;
    }

    /// linux-6.0 fair.c `util_est_enqueue()` on the runqueue's sum (`self`): `+= _task_util_est(p)`.
    #[inline]
    pub fn enqueue(&mut self, task: &UtilEst) {
        self.enqueued = self.enqueued.wrapping_add(task.task_util_est());
    }

    /// linux-6.0 fair.c `util_est_dequeue()`: `enqueued -= min(enqueued, _task_util_est(p))`.
    #[inline]
    pub fn dequeue(&mut self, task: &UtilEst) {
        self.enqueued -= self.enqueued.min(task.task_util_est());
    }

    /// linux-6.0 fair.c `util_est_update()` on a task (`self`) being dequeued, with its fresh
    /// util_avg `task_util` and its CPU's `capacity_orig`. Only a sleep completes an
    /// activation; a migration (`task_sleep` false) leaves the estimate alone. With the task's
    /// `runnable` avg (UTIL_EST_RUNNABLE, 6.8+), an EWMA that would fall is left where it is
    /// when the task waited for the CPU.
    pub fn update(
        &mut self,
        task_util: u32,
        task_sleep: bool,
        capacity_orig: u32,
        runnable: Option<u32>,
    ) {
        if !task_sleep {
            return;
        }
        // "If the PELT values haven't changed since enqueue time, skip the util_est update."
        let mut ue = *self;
        if ue.enqueued & UTIL_AVG_UNCHANGED != 0 {
            return;
        }
        let last_enqueued = ue.enqueued;
        ue.enqueued = task_util;
        // UTIL_EST_FASTUP (5.5-6.7, on): a rise resets the EWMA to the new sample.
        if ue.ewma < ue.enqueued {
            ue.ewma = ue.enqueued;
            return self.done(ue);
        }
        // long last_ewma_diff = ue.enqueued - ue.ewma (unsigned int arithmetic, then within
        // an int); last_enqueued_diff -= ue.enqueued.
        let last_ewma_diff = ue.enqueued.wrapping_sub(ue.ewma) as i32;
        let last_enqueued_diff = last_enqueued as i64 - ue.enqueued as i64;
        if within_margin(last_ewma_diff, UTIL_EST_MARGIN) {
            if !within_margin(last_enqueued_diff as i32, UTIL_EST_MARGIN) {
                return self.done(ue);
            }
            return;
        }
        // "skip updates if we cannot grant there is idle time in this CPU"
        if task_util > capacity_orig {
            return;
        }
        // v6.8 fair.c (50181c0cff31): `if ((ue.enqueued + UTIL_EST_MARGIN) < task_runnable(p))
        // goto done;`: it did not get all the CPU time it wanted, so no sample is taken.
        if runnable.is_some_and(|r| task_util.saturating_add(UTIL_EST_MARGIN as u32) < r) {
            return self.done(ue);
        }
        // ewma <<= SHIFT; ewma += last_ewma_diff; ewma >>= SHIFT (unsigned int, wrapping)
        ue.ewma <<= UTIL_EST_WEIGHT_SHIFT;
        ue.ewma = ue.ewma.wrapping_add(last_ewma_diff as u32);
        ue.ewma >>= UTIL_EST_WEIGHT_SHIFT;
        self.done(ue)
    }

    /// util_est_update's `done:` label: `ue.enqueued |= UTIL_AVG_UNCHANGED`, store.
    fn done(&mut self, mut ue: UtilEst) {
        ue.enqueued |= UTIL_AVG_UNCHANGED;
        *self = ue;
    }
}

/// linux-6.0 sched.h `cpu_util_cfs()`: `min(max(util_avg, util_est.enqueued), capacity_orig)`
/// with UTIL_EST on, `min(util_avg, capacity_orig)` without.
#[inline]
pub fn cpu_util_cfs(util_avg: u32, rq_util_est: u32, util_est: bool, capacity_orig: u32) -> u32 {
    let util = if util_est {
        util_avg.max(rq_util_est)
    } else {
        util_avg
    };
    util.min(capacity_orig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::pelt::SchedAvg;

    /// v6.8 (50181c0cff31): a task that waited for the CPU in its activation (util_avg + 1%
    /// below runnable_avg) keeps its EWMA; one that did not, or the 6.7 form (no runnable),
    /// takes the quarter-weight step down.
    #[test]
    fn an_ewma_does_not_fall_after_an_activation_in_which_the_task_waited() {
        let start = UtilEst {
            enqueued: 400,
            ewma: 500,
        };
        let after = |runnable: Option<u32>| {
            let mut ue = start;
            ue.update(300, true, 1024, runnable);
            ue
        };
        // (500 * 4 - 200) / 4
        assert_eq!(after(None).ewma, 450);
        assert_eq!(after(Some(309)).ewma, 450, "runnable within 1% of util");
        let waited = after(Some(311));
        assert_eq!(waited.ewma, 500);
        assert_eq!(waited.enqueued, 300 | UTIL_AVG_UNCHANGED);
        assert_eq!(waited.task_util_est(), 500);
    }

    #[test]
    fn within_margin_is_a_strict_absolute_bound() {
        assert!(within_margin(0, 10));
        assert!(within_margin(9, 10));
        assert!(within_margin(-9, 10));
        assert!(!within_margin(10, 10));
        assert!(!within_margin(-10, 10));
        assert!(!within_margin(-300, 10));
    }

    #[test]
    fn ewma_arithmetic_by_hand() {
        // A fall from ewma 300 to a sample of 200: (300*4 + (200-300)) >> 2 = 1100/4 = 275.
        let mut ue = UtilEst {
            enqueued: 300,
            ewma: 300,
        };
        ue.update(200, true, 1024, None);
        assert_eq!(
            ue,
            UtilEst {
                enqueued: 200 | UTIL_AVG_UNCHANGED,
                ewma: 275
            }
        );
        assert_eq!(ue.task_util_est(), 275);
        // The flag set: no new sample until PELT changes.
        ue.update(100, true, 1024, None);
        assert_eq!(ue.ewma, 275);
        ue.util_change();
        // (275*4 + (100-275)) >> 2 = (1100 - 175) / 4 = 925/4 = 231.
        ue.update(100, true, 1024, None);
        assert_eq!((ue.enqueued & !UTIL_AVG_UNCHANGED, ue.ewma), (100, 231));
        // FASTUP: a rise resets the EWMA.
        ue.util_change();
        ue.update(500, true, 1024, None);
        assert_eq!((ue.enqueued & !UTIL_AVG_UNCHANGED, ue.ewma), (500, 500));
        // A migration (no sleep) takes no sample, whatever the flag.
        ue.util_change();
        ue.update(10, false, 1024, None);
        assert_eq!((ue.enqueued, ue.ewma), (500, 500));
    }

    #[test]
    fn margin_rules_skip_or_refresh_enqueued() {
        // ewma within 1% of the sample, enqueued too: nothing changes (flag stays clear).
        let mut ue = UtilEst {
            enqueued: 400,
            ewma: 405,
        };
        ue.update(400, true, 1024, None);
        assert_eq!(
            ue,
            UtilEst {
                enqueued: 400,
                ewma: 405
            }
        );
        // ewma within 1% (diff -9) but enqueued moved by 12: refresh enqueued, keep ewma.
        let mut ue = UtilEst {
            enqueued: 408,
            ewma: 405,
        };
        ue.update(396, true, 1024, None);
        assert_eq!(
            ue,
            UtilEst {
                enqueued: 396 | UTIL_AVG_UNCHANGED,
                ewma: 405
            }
        );
        // A sample above the CPU's capacity (not reachable at 1024, here 256) is not taken.
        let mut ue = UtilEst {
            enqueued: 600,
            ewma: 600,
        };
        ue.update(300, true, 256, None);
        assert_eq!(
            ue,
            UtilEst {
                enqueued: 600,
                ewma: 600
            }
        );
    }

    #[test]
    fn runqueue_sum_adds_and_removes_the_masked_estimate() {
        let a = UtilEst {
            enqueued: 120 | UTIL_AVG_UNCHANGED,
            ewma: 100,
        };
        let b = UtilEst {
            enqueued: 50,
            ewma: 80,
        };
        let mut rq = UtilEst::default();
        rq.enqueue(&a);
        rq.enqueue(&b);
        assert_eq!(rq.enqueued, 200);
        rq.dequeue(&a);
        assert_eq!(rq.enqueued, 80);
        // Never below zero: min(enqueued, _task_util_est(p)).
        rq.dequeue(&a);
        assert_eq!(rq.enqueued, 0);
    }

    #[test]
    fn cpu_util_cfs_is_max_of_avg_and_est_capped() {
        assert_eq!(cpu_util_cfs(300, 700, true, 1024), 700);
        assert_eq!(cpu_util_cfs(300, 700, false, 1024), 300);
        assert_eq!(cpu_util_cfs(900, 1500, true, 1024), 1024);
        assert_eq!(cpu_util_cfs(900, 100, true, 1024), 900);
    }

    /// A task runs `run_us` of every `period_us`, `n` times per phase, phases back to back;
    /// (util_avg, enqueued, ewma) after each dequeue, driven as the engine drives it: the
    /// task's own `SchedAvg` (whose util_est is the task's) updated at the wake-up
    /// (enqueue_entity's update_load_avg, which clears the flag when a PELT period passed)
    /// and at the dequeue, then util_est_update with the fresh util_avg.
    fn drive(phases: &[(u64, u64, usize)]) -> Vec<(u32, u32, u32)> {
        let mut pelt = SchedAvg::default();
        let (mut out, mut t) = (vec![], 0);
        for &(run_us, period_us, n) in phases {
            for _ in 0..n {
                pelt.update(t, false);
                pelt.update(t + run_us * 1000, true);
                let util = pelt.util_avg;
                pelt.util_est.update(util, true, 1024, None);
                let ue = pelt.util_est;
                out.push((util, ue.enqueued & !UTIL_AVG_UNCHANGED, ue.ewma));
                t += period_us * 1000;
            }
        }
        out
    }

    #[test]
    fn four_of_every_sixteen_ms_then_one_kernel_sequence() {
        // The numbers come from the kernel's C (pelt.c accumulate_sum/decay_load, fair.c
        // util_est_update) re-implemented apart from this crate. 20 cycles of 4 ms in 16 ms:
        // util_avg at each dequeue rises towards the square wave's peak (~288); every rise
        // resets ewma (UTIL_EST_FASTUP), so enqueued == ewma == the sample; an equal sample
        // (287, 287) is inside both margins and changes nothing.
        let seq = drive(&[(4000, 16000, 20), (1000, 16000, 8)]);
        let ramp = [
            81, 139, 181, 211, 233, 248, 259, 268, 273, 277, 280, 283, 284, 285, 286, 287, 287,
            287, 287, 288,
        ];
        let want: Vec<(u32, u32, u32)> = ramp.iter().map(|&u| (u, u, u)).collect();
        assert_eq!(seq[..20], want[..]);
        // Then 1 ms in 16: each sample is far below ewma, which falls by a quarter of the gap
        // per activation: (288*4 + (241-288)) >> 2 = 1105 >> 2 = 276; (276*4 - 82) >> 2 = 255.
        // _task_util_est = max(ewma, enqueued) stays above util_avg while the task shrinks.
        assert_eq!(
            seq[20..],
            [
                (241, 241, 276),
                (194, 194, 255),
                (160, 160, 231),
                (136, 136, 207),
                (118, 118, 184),
                (106, 106, 164),
                (97, 97, 147),
                (90, 90, 132),
            ]
        );
    }

    #[test]
    fn no_new_sample_without_a_pelt_period() {
        // Two 100 us activations inside one 1024 us PELT period: the second dequeue sees the
        // flag util_est_update set after the first (util_avg has not been recomputed) and
        // keeps the estimate, as the kernel's "PELT values haven't changed" skip does.
        let mut pelt = SchedAvg::default();
        pelt.update(2_200_000, true);
        let u = pelt.util_avg;
        pelt.util_est.update(u, true, 1024, None);
        let after_first = pelt.util_est;
        assert_ne!(after_first.enqueued & UTIL_AVG_UNCHANGED, 0);
        pelt.update(2_300_000, false);
        pelt.update(2_400_000, true);
        pelt.util_est.update(0, true, 1024, None);
        assert_eq!(pelt.util_est, after_first);
    }
}
