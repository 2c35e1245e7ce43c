//! 4.x PELT load, as wake_affine read it until 5.7: a task's weighted load and its cfs_rq's
//! `runnable_load_avg`, which enqueue adds each task's load to and dequeue takes it from
//! (linux-4.4 fair.c `__update_load_avg`, `enqueue_entity_load_avg`,
//! `dequeue_entity_load_avg`; linux-4.13 `___update_load_avg` and `accumulate_sum`). The two
//! sums decay at their own period boundaries, so what dequeue takes is not quite what the
//! cfs_rq accrued: the clamp at zero leaves a CPU a small load after its last task sleeps.

use super::pelt::{decay_load, LOAD_AVG_MAX, LOAD_AVG_PERIOD};

/// Which 4.x arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pelt4 {
    /// 4.4: `last_update_time = now` (the sub-1024 ns rest is dropped), the open period is
    /// finished first, divider LOAD_AVG_MAX.
    V44,
    /// 4.13-4.14 (and on to 5.6): `last_update_time += delta << 10`, accumulate_sum,
    /// divider `LOAD_AVG_MAX - 1024 + period_contrib`.
    V413,
}

/// linux-4.4 fair.c `runnable_avg_yN_sum[]`: sum of 1024 * y^k for k in 1..=n.
const RUNNABLE_AVG_YN_SUM: [u32; 33] = [
    0, 1002, 1982, 2941, 3880, 4798, 5697, 6576, 7437, 8279, 9103, 9909, 10698, 11470, 12226,
    12966, 13690, 14398, 15091, 15769, 16433, 17082, 17718, 18340, 18949, 19545, 20128, 20698,
    21256, 21802, 22336, 22859, 23371,
];
/// linux-4.4 fair.c `LOAD_AVG_MAX_N`.
const LOAD_AVG_MAX_N: u64 = 345;

/// linux-4.4 fair.c `__compute_runnable_contrib()`.
fn compute_runnable_contrib(mut n: u64) -> u64 {
    if n <= LOAD_AVG_PERIOD {
        return RUNNABLE_AVG_YN_SUM[n as usize] as u64;
    } else if n >= LOAD_AVG_MAX_N {
        return LOAD_AVG_MAX;
    }
    let mut contrib: u64 = 0;
    loop {
        contrib /= 2;
        contrib += RUNNABLE_AVG_YN_SUM[LOAD_AVG_PERIOD as usize] as u64;
        n -= LOAD_AVG_PERIOD;
        if n <= LOAD_AVG_PERIOD {
            break;
        }
    }
    decay_load(contrib, n) + RUNNABLE_AVG_YN_SUM[n as usize] as u64
}

/// linux-4.13 fair.c `__accumulate_pelt_segments()`.
fn accumulate_segments(periods: u64, d1: u64, d3: u64) -> u64 {
    let c1 = decay_load(d1, periods);
    let c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024;
    c1 + c2 + d3
}

/// One `struct sched_avg`'s load half, plus a cfs_rq's `runnable_load_sum`/`_avg` (which
/// share its period boundaries; a task's are unused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Load4 {
    pub last_update_time: u64,
    pub load_sum: u64,
    pub period_contrib: u64,
    pub load_avg: u64,
    pub runnable_load_sum: u64,
    pub runnable_load_avg: u64,
}

impl Load4 {
    /// `__update_load_avg(now, cpu, sa, weight, running, cfs_rq)`: `weight` is held since
    /// the last update (a task's while on_rq, a cfs_rq's `load.weight`).
    pub fn update(&mut self, era: Pelt4, now: u64, weight: u64) -> bool {
        if now < self.last_update_time {
            self.last_update_time = now;
            return false;
        }
        let mut delta = (now - self.last_update_time) >> 10;
        if delta == 0 {
            return false;
        }
        match era {
            Pelt4::V44 => {
                self.last_update_time = now;
                let mut decayed = false;
                let mut delta_w = self.period_contrib;
                if delta + delta_w >= 1024 {
                    decayed = true;
                    self.period_contrib = 0;
                    delta_w = 1024 - delta_w;
                    self.add(weight * delta_w);
                    delta -= delta_w;
                    let periods = delta / 1024;
                    delta %= 1024;
                    self.decay(periods + 1);
                    self.add(weight * compute_runnable_contrib(periods));
                }
                self.add(weight * delta);
                self.period_contrib += delta;
                if decayed {
                    self.load_avg = self.load_sum / LOAD_AVG_MAX;
                    self.runnable_load_avg = self.runnable_load_sum / LOAD_AVG_MAX;
                }
                decayed
            }
            Pelt4::V413 => {
                self.last_update_time += delta << 10;
                let mut contrib = delta;
                let d = delta + self.period_contrib;
                let periods = d / 1024;
                if periods > 0 {
                    self.decay(periods);
                    contrib = accumulate_segments(periods, 1024 - self.period_contrib, d % 1024);
                }
                self.period_contrib = d % 1024;
                self.add(weight * contrib);
                if periods == 0 {
                    return false;
                }
                let divider = LOAD_AVG_MAX - 1024 + self.period_contrib;
                self.load_avg = self.load_sum / divider;
                self.runnable_load_avg = self.runnable_load_sum / divider;
                true
            }
        }
    }

    fn add(&mut self, v: u64) {
        self.load_sum += v;
        self.runnable_load_sum += v;
    }

    fn decay(&mut self, n: u64) {
        self.load_sum = decay_load(self.load_sum, n);
        self.runnable_load_sum = decay_load(self.runnable_load_sum, n);
    }

    /// enqueue_entity_load_avg(): the cfs_rq's runnable load takes on the task's.
    pub fn enqueue(&mut self, se: &Load4) {
        self.runnable_load_avg += se.load_avg;
        self.runnable_load_sum += se.load_sum;
    }

    /// dequeue_entity_load_avg(): `max_t(long, runnable - se, 0)`.
    pub fn dequeue(&mut self, se: &Load4) {
        self.runnable_load_avg = self.runnable_load_avg.saturating_sub(se.load_avg);
        self.runnable_load_sum = self.runnable_load_sum.saturating_sub(se.load_sum);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_contrib_table_is_the_series() {
        // runnable_avg_yN_sum[n] is sum over 1..=n of 1024 * y^k, y^32 = 1/2.
        let y = 0.5f64.powf(1.0 / 32.0);
        for n in [1u64, 2, 16, 32] {
            let want: f64 = (1..=n).map(|k| 1024.0 * y.powi(k as i32)).sum();
            let got = compute_runnable_contrib(n) as f64;
            // The kernel's table floors each step: within 0.1%.
            assert!((got - want).abs() < want / 1000.0, "{n}: {got} vs {want}");
        }
        // Past the table: halving per 32 periods plus the rest, towards LOAD_AVG_MAX.
        let got = compute_runnable_contrib(100) as f64;
        let want: f64 = (1..=100).map(|k| 1024.0 * y.powi(k)).sum();
        assert!((got - want).abs() < want / 500.0, "{got} vs {want}");
        assert_eq!(compute_runnable_contrib(400), LOAD_AVG_MAX);
    }

    #[test]
    fn both_eras_ramp_a_runnable_nice_0_task_to_its_weight() {
        for era in [Pelt4::V44, Pelt4::V413] {
            let mut se = Load4::default();
            let mut t = 0;
            while t < 400 * MS {
                t += 250_000;
                se.update(era, t, 1024);
            }
            assert!(
                (1000..=1024).contains(&se.load_avg),
                "{era:?}: {}",
                se.load_avg
            );
        }
    }

    #[test]
    fn dequeue_after_enqueue_leaves_the_clamped_drift_of_two_clocks() {
        // A cfs_rq and a task that started at another phase: the task runs 3 ms, sleeps.
        for era in [Pelt4::V44, Pelt4::V413] {
            let mut cfs = Load4 {
                last_update_time: 300_000,
                ..Default::default()
            };
            let mut se = Load4::default();
            let mut residue = Vec::new();
            let mut t = 1_000_000u64;
            for _ in 0..40 {
                // enqueue: the task decays over its sleep, the cfs_rq at its old weight (0).
                se.update(era, t, 0);
                cfs.update(era, t, 0);
                cfs.enqueue(&se);
                t += 3 * MS + 123_457;
                // dequeue: both accrue the task's weight, then the task's load comes off.
                se.update(era, t, 1024);
                cfs.update(era, t, 1024);
                cfs.dequeue(&se);
                residue.push(cfs.runnable_load_avg);
                t += 2 * MS + 77_001;
            }
            // Never negative; not always zero (what the 4.x wake_affine then reads on an
            // idle CPU), and small against the task's own load.
            assert!(residue.iter().any(|r| *r > 0), "{era:?} {residue:?}");
            assert!(
                residue.iter().all(|r| *r < se.load_avg / 4),
                "{era:?} {residue:?} {}",
                se.load_avg
            );
        }
    }

    /// linux-4.4 init_entity_runnable_average(): a new task starts at its full weight with
    /// period_contrib 1023, so its first update crosses a period boundary at once and decays
    /// its sum by y, which the cfs_rq's copy of that sum (added at enqueue) has not had.
    /// A task that lives 200 us leaves about (1 - y) of its load behind: 2%, 20 of 1024.
    #[test]
    fn a_short_lived_new_task_leaves_its_first_decay_behind() {
        let era = Pelt4::V44;
        let mut cfs = Load4 {
            last_update_time: 5_000_000 + 300_000,
            ..Default::default()
        };
        let now = 5_000_000 + 700_000;
        let mut se = Load4 {
            last_update_time: now,
            load_avg: 1024,
            load_sum: 1024 * LOAD_AVG_MAX,
            period_contrib: 1023,
            ..Default::default()
        };
        cfs.update(era, now, 0);
        cfs.enqueue(&se);
        let end = now + 200_000;
        se.update(era, end, 1024);
        cfs.update(era, end, 1024);
        cfs.dequeue(&se);
        assert!(
            (15..=25).contains(&cfs.runnable_load_sum.div_ceil(LOAD_AVG_MAX)),
            "{cfs:?}"
        );
        // Without the 1023 (a task the trace saw from its start), nothing is left.
        let mut cfs = Load4 {
            last_update_time: 5_000_000 + 300_000,
            ..Default::default()
        };
        let mut se = Load4 {
            period_contrib: 0,
            last_update_time: now,
            load_avg: 1024,
            load_sum: 1024 * LOAD_AVG_MAX,
            ..Default::default()
        };
        cfs.update(era, now, 0);
        cfs.enqueue(&se);
        se.update(era, end, 1024);
        cfs.update(era, end, 1024);
        cfs.dequeue(&se);
        assert!(cfs.runnable_load_sum < LOAD_AVG_MAX, "{cfs:?}");
    }
}
