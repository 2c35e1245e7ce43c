//! PELT util_avg with the kernel's constants and integer arithmetic (kernel/sched/pelt.c).
//! Time is in ns; PELT's unit is 1024 ns and a period is 1024 units (~1 ms).

use crate::kernel::util_est::UtilEst;

/// `LOAD_AVG_PERIOD`: y^32 = 0.5.
pub const LOAD_AVG_PERIOD: u64 = 32;
/// `LOAD_AVG_MAX`: the integer maximum of the geometric series.
pub const LOAD_AVG_MAX: u64 = 47742;
/// `PELT_MIN_DIVIDER`.
pub const PELT_MIN_DIVIDER: u64 = LOAD_AVG_MAX - 1024;

/// kernel/sched/sched-pelt.h `runnable_avg_yN_inv[]`: 2^32 * y^n.
const RUNNABLE_AVG_YN_INV: [u32; 32] = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
    0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
    0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
];

/// linux-6.0 pelt.c `decay_load()`: val * y^n.
pub fn decay_load(val: u64, n: u64) -> u64 {
    if n > LOAD_AVG_PERIOD * 63 {
        return 0;
    }
    let mut val = val;
    let mut local_n = n;
    if local_n >= LOAD_AVG_PERIOD {
        val >>= local_n / LOAD_AVG_PERIOD;
        local_n %= LOAD_AVG_PERIOD;
    }
    // mul_u64_u32_shr(val, runnable_avg_yN_inv[local_n], 32)
    ((val as u128 * RUNNABLE_AVG_YN_INV[local_n as usize] as u128) >> 32) as u64
}

/// linux-6.0 pelt.c `__accumulate_pelt_segments()`.
fn accumulate_pelt_segments(periods: u64, d1: u32, d3: u32) -> u32 {
    let c1 = decay_load(d1 as u64, periods) as u32;
    let c2 = (LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024) as u32;
    c1 + c2 + d3
}

/// The util part of `struct sched_avg`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedAvg {
    pub last_update_time: u64,
    pub util_sum: u64,
    pub period_contrib: u32,
    pub util_avg: u32,
    /// `sched_avg.util_est`: a task's estimate, or a runqueue's sum of its tasks' estimates.
    pub util_est: UtilEst,
}

impl SchedAvg {
    /// v6.12 fair.c attach_entity_load_avg(), an entity's side: its clock and window take the
    /// cfs_rq's and its sum is rebuilt from its avg (`util_sum = util_avg * divider`).
    pub fn attach_at(&mut self, last_update_time: u64, period_contrib: u32) {
        self.last_update_time = last_update_time;
        self.period_contrib = period_contrib;
        self.util_sum = u64::from(self.util_avg) * (PELT_MIN_DIVIDER + u64::from(period_contrib));
    }

    /// A signal that has been at `util_avg` forever (the seed's "util_avg 1024" start state).
    pub fn settled(now: u64, util_avg: u32) -> Self {
        let util_avg = util_avg.min(1024);
        SchedAvg {
            last_update_time: now & !1023,
            util_sum: util_avg as u64 * PELT_MIN_DIVIDER,
            period_contrib: 0,
            util_avg,
            util_est: UtilEst::default(),
        }
    }

    /// linux-6.0 pelt.c `___update_load_sum()` + `___update_load_avg()` for util only:
    /// `running` says whether the entity ran during [last_update_time, now).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub fn update(&mut self, now: u64, running: bool) {
        // Less than one 1024 ns unit since the last update: nothing to do.
        if now < self.last_update_time.saturating_add(1024) {
            return;
        }
        self.advance(now, running);
    }

    /// [from, until) was IRQ time: with CONFIG_IRQ_TIME_ACCOUNTING, v5.19 core.c
    /// `update_rq_clock_task()` takes it out of `clock_task`, so `clock_pelt` stands still and
    /// the signal neither accrues nor decays. Time up to `from` counts as `running` says; a
    /// signal already updated past `from` loses only the rest of the window.
    pub fn freeze(&mut self, from: u64, until: u64, running: bool) {
        self.update(from, running);
        let lost = until.saturating_sub(from.max(self.last_update_time));
        self.last_update_time += lost;
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn advance(&mut self, now: u64, running: bool) {
        let delta = (now - self.last_update_time) >> 10;
        self.last_update_time += delta << 10;
        // The usual case: still within the current 1024-unit period. accumulate_sum() then
        // only adds the units (when running) and moves period_contrib; util_avg stays.
        let within = delta + self.period_contrib as u64;
        if within < 1024 {
            self.period_contrib = within as u32;
            if running {
                self.util_sum += delta << 10;
            }
            return;
        }
        self.advance_periods(delta, running);
    }

    /// `advance` across at least one period boundary: decay, and a new util_avg.
    #[inline(never)]
    fn advance_periods(&mut self, delta: u64, running: bool) {
        if self.accumulate_sum(delta, running) {
            // get_pelt_divider(): PELT_MIN_DIVIDER + period_contrib
            let divider = PELT_MIN_DIVIDER + self.period_contrib as u64;
            self.util_avg = (self.util_sum / divider).min(1024) as u32;
            // linux-6.0 pelt.c __update_load_avg_se: cfs_se_util_change() after a new
            // util_avg (a no-op for a runqueue's sum, which never carries the flag).
            self.util_est.util_change();
        }
    }

    /// linux-6.0 pelt.c `accumulate_sum()` with load = runnable = running.
    fn accumulate_sum(&mut self, delta: u64, running: bool) -> bool {
        let mut contrib = delta as u32;
        let delta = delta + self.period_contrib as u64;
        let periods = delta / 1024;
        let rem = (delta % 1024) as u32;
        if periods > 0 {
            self.util_sum = decay_load(self.util_sum, periods);
            if running {
                contrib = accumulate_pelt_segments(periods, 1024 - self.period_contrib, rem);
            }
        }
        self.period_contrib = rem;
        if running {
            self.util_sum += (contrib as u64) << 10;
        }
        periods > 0
    }
}

/// linux-6.0 sched/core.c `sched_prio_to_weight[]`: a fair task's load weight by nice level
/// (prio 100..=139 is nice -20..=19); nice 0 is 1024.
pub const SCHED_PRIO_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// The load weight of a task of kernel prio `prio` (`p->prio`); 0 for a task that is not in
/// the fair class (prio below 100), which adds nothing to a cfs_rq's load.
pub fn prio_to_weight(prio: i32) -> u64 {
    match prio {
        100..=139 => SCHED_PRIO_TO_WEIGHT[(prio - 100) as usize] as u64,
        _ => 0,
    }
}

/// PELT's load signal (linux-6.0 pelt.c `___update_load_sum()` then `___update_load_avg()`):
/// `load_sum` grows by `input` per 1024 ns while it is non-zero and decays by y per period;
/// `load_avg = weight * load_sum / divider`, recomputed when a period boundary is crossed.
/// A task passes input 1 while runnable (queued or running) and its nice weight as `weight`;
/// a cfs_rq passes the sum of its runnable tasks' weights as input and weight 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadAvg {
    pub last_update_time: u64,
    pub load_sum: u64,
    pub period_contrib: u32,
    pub load_avg: u64,
}

impl LoadAvg {
    /// Starts the signal at `now` (the kernel aligns a new entity's clock the same way).
    pub fn start(now: u64) -> Self {
        LoadAvg {
            last_update_time: now & !1023,
            ..Default::default()
        }
    }

    /// Advances to `now` with `input` held since the last update.
    pub fn update(&mut self, now: u64, input: u64, weight: u64) {
        // ___update_load_sum: delta >>= 10; if (!delta) return 0;
        if now < self.last_update_time.saturating_add(1024) {
            return;
        }
        let delta = (now - self.last_update_time) >> 10;
        self.last_update_time += delta << 10;
        // accumulate_sum()
        let mut contrib = delta as u32;
        let d = delta + self.period_contrib as u64;
        let periods = d / 1024;
        let rem = (d % 1024) as u32;
        if periods > 0 {
            self.load_sum = decay_load(self.load_sum, periods);
            if input != 0 {
                contrib = accumulate_pelt_segments(periods, 1024 - self.period_contrib, rem);
            }
        }
        self.period_contrib = rem;
        if input != 0 {
            self.load_sum += input * contrib as u64;
        }
        if periods > 0 {
            // ___update_load_avg: div_u64(load * sa->load_sum, get_pelt_divider(sa))
            let divider = PELT_MIN_DIVIDER + self.period_contrib as u64;
            self.load_avg = weight * self.load_sum / divider;
        }
    }

    /// `sub_positive()` of another signal's contribution (detach_entity_load_avg): never
    /// below zero.
    pub fn detach(&mut self, avg: u64, sum: u64) {
        self.load_avg = self.load_avg.saturating_sub(avg);
        self.load_sum = self.load_sum.saturating_sub(sum);
    }

    /// attach_entity_load_avg(): the cfs_rq takes on a task's load.
    pub fn attach(&mut self, avg: u64, sum: u64) {
        self.load_avg += avg;
        self.load_sum += sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn run_for(ms: u64) -> u32 {
        let mut s = SchedAvg::default();
        let mut t = 0;
        while t < ms * MS {
            t += 100_000;
            s.update(t, true);
        }
        s.util_avg
    }

    #[test]
    fn irq_time_is_cut_out_of_the_signal() {
        // A task runs 7 us, then 3 us of softirq, then sleeps 20 us, over and over. With the
        // softirq frozen (IRQ time accounting) the signal is exactly that of a task that runs
        // 7 us and sleeps 20 us on a clock without the softirq; without the freeze it is
        // higher (10 of every 30 us).
        let (run, irq, sleep) = (7_000, 3_000, 20_000);
        let (mut frozen, mut cut, mut plain) = <[SchedAvg; 3]>::default().into();
        let (mut t, mut c) = (0u64, 0u64);
        for _ in 0..5_000 {
            frozen.update(t + run, true);
            frozen.freeze(t + run, t + run + irq, true);
            plain.update(t + run + irq, true);
            cut.update(c + run, true);
            t += run + irq + sleep;
            c += run + sleep;
            frozen.update(t, false);
            plain.update(t, false);
            cut.update(c, false);
        }
        assert_eq!(frozen.util_sum, cut.util_sum);
        assert_eq!(frozen.util_avg, cut.util_avg);
        assert_eq!(frozen.period_contrib, cut.period_contrib);
        assert!(
            plain.util_avg > frozen.util_avg + 50,
            "{} {}",
            plain.util_avg,
            frozen.util_avg
        );
    }

    #[test]
    fn decay_halves_every_32_periods() {
        // y^0 is 0xffffffff / 2^32, so even a whole-half decay loses one: the kernel gives 511.
        assert_eq!(decay_load(1024, 32), 511);
        assert_eq!(decay_load(1024, 64), 255);
        assert_eq!(decay_load(1 << 20, 0), (1 << 20) - 1);
        assert_eq!(decay_load(1024, 32 * 63 + 1), 0);
    }

    #[test]
    fn ramp_matches_kernel_semantics_table() {
        // kernel-semantics.md section 5: 1024*(1-y^t), t in ms (1 ms ~ 1 PELT period of 1.048576 ms)
        let u32ms = run_for(32);
        assert!((480..=530).contains(&u32ms), "{u32ms}");
        let u100 = run_for(100);
        assert!((880..=930).contains(&u100), "{u100}");
        assert!(run_for(400) >= 1000);
    }

    #[test]
    fn ramp_follows_1024_us_periods_not_1_ms() {
        // An always-running task's util_avg after t ms is 1024 * (1 - y^n) for n = t / 1.048576
        // PELT periods (a period is 1024 us; y^32 = 1/2). With 1 ms periods 32 ms would give
        // 512 and 100 ms 906 instead of 495 and 894: outside the tolerance. (Before ~30 ms the
        // signal also lags by the current partial period, so the check starts there.)
        for ms in [32u64, 100, 200] {
            let n = ms as f64 / 1.048576;
            let want = 1024.0 * (1.0 - 0.5f64.powf(n / 32.0));
            let got = run_for(ms) as f64;
            assert!(
                (got - want).abs() <= 6.0,
                "{ms} ms: util_avg {got}, expected {want:.1}"
            );
        }
    }

    #[test]
    fn settled_signal_decays_by_half_in_32_periods() {
        let mut s = SchedAvg::settled(0, 1024);
        assert_eq!(s.util_avg, 1024);
        s.update(32 * 1024 * 1024, false);
        assert!((505..=515).contains(&s.util_avg), "{}", s.util_avg);
    }

    #[test]
    fn load_avg_of_a_runnable_nice_0_task_ramps_like_util_and_weights_scale_it() {
        let mut util = SchedAvg::default();
        let mut load = LoadAvg::default();
        let mut heavy = LoadAvg::default();
        let mut t = 0;
        while t < 100 * MS {
            t += 100_000;
            util.update(t, true);
            load.update(t, 1, prio_to_weight(120));
            heavy.update(t, 1, prio_to_weight(100));
        }
        // The same sum and divider: nice 0's load_avg is util_avg of a task always running.
        assert_eq!(load.load_avg, util.util_avg as u64);
        // nice -20 weighs 88761 / 1024 = 86.7 times nice 0.
        assert_eq!(
            heavy.load_avg / load.load_avg,
            86,
            "{} {}",
            heavy.load_avg,
            load.load_avg
        );
        // Blocked: no input, it decays by half in 32 periods.
        let before = load.load_avg;
        load.update(t + 32 * 1024 * 1024, 0, 1024);
        assert!(
            load.load_avg <= before / 2 + 1 && load.load_avg >= before / 2 - 2,
            "{}",
            load.load_avg
        );
        assert_eq!(
            prio_to_weight(99),
            0,
            "an RT task is not in any cfs_rq's load"
        );
        assert_eq!(prio_to_weight(139), 15);
    }
}
