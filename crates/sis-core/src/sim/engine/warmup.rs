//! The warm-up: counting starts once PELT and nr_idle_scan have settled.
//!
//! Every run samples each LLC's sum of `cpu_util_cfs()` (what the next periodic balance would
//! hand to update_idle_cpu_scan), its `nr_idle_scan` and how many periodic balances it has had,
//! three times [`WARMUP_STEP_NS`] apart, the last at the warm-up's end. It has *settled* when,
//! for every LLC, over those 100 ms the sum stayed within a band of 2% of the LLC's capacity
//! ([`settled_util_tolerance`]), nr_idle_scan within [`settled_nr_tolerance`] CPUs, and a
//! periodic balance ran (so nr_idle_scan was recomputed from the current util). A band over
//! three samples, not one difference: PELT's approach from an idle start is a ramp that a
//! single 50 ms difference can pass while still 5-8% short (16 CPUs, 150% netperf, 250 ms),
//! and a steady LLC's sum wanders by 1-2% of capacity from one sample to the next.
//!
//! `warmup=auto` (the default) checks first at [`WARMUP_AUTO_MIN_NS`] (100 ms) and, while not
//! settled, warms [`WARMUP_STEP_NS`] longer and checks again, up to [`WARMUP_CAP_NS`]; the
//! measured window keeps its length (duration less the auto minimum), so the run ends later
//! by as much as the warm-up was extended. A fixed `warmup` is honoured exactly and the report
//! says whether it had settled.

use super::*;
pub use crate::sim::scenario::WARMUP_AUTO_MIN_NS;

/// The time between the two samples of a settle check, and an auto warm-up's extension step.
pub const WARMUP_STEP_NS: u64 = 50_000_000;
/// An auto warm-up never runs longer than this (then the report says it had not settled).
pub const WARMUP_CAP_NS: u64 = 1_000_000_000;

/// The widest band of an LLC's util sum that counts as settled: 2% of its capacity.
pub fn settled_util_tolerance(llc_weight: u32) -> u64 {
    llc_weight as u64 * crate::kernel::throttle::SCHED_CAPACITY_SCALE * 2 / 100
}

/// The widest band of nr_idle_scan that counts as settled: 5% of the LLC, at least 2 CPUs
/// (near 85% util a 2% move of the sum moves nr_idle_scan by ~5% of the LLC).
pub fn settled_nr_tolerance(llc_weight: u32) -> u32 {
    (llc_weight * 5 / 100).max(2)
}

/// What a warm-up was (`RunReport.warmup`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmupReport {
    /// Its length, ns: when counting started (or will start, while still warming).
    pub ns: u64,
    /// PELT and nr_idle_scan had settled when it ended (see the module's rule).
    pub settled: bool,
    /// It was `auto` (extended until settled) rather than a fixed duration.
    pub auto: bool,
}

/// One LLC's sample: (sum of cpu_util_cfs now, nr_idle_scan, periodic balances so far).
pub(super) type LlcSample = (u64, u32, u64);

impl Simulation {
    /// The warm-up's end as it stands: a fixed warm-up's length, or an auto warm-up's next
    /// check (its final length once counting has started).
    pub fn warmup_ns(&self) -> u64 {
        self.warmup_ns
    }

    /// Whether counting has started (the warm-up is over).
    pub fn is_measuring(&self) -> bool {
        self.measuring
    }

    /// The run's end: the warm-up's end plus the measured window.
    pub fn end_ns(&self) -> u64 {
        self.warmup_ns.saturating_add(self.window_ns)
    }

    pub fn warmup_report(&self) -> WarmupReport {
        WarmupReport {
            ns: self.warmup_ns,
            settled: self.warmup_settled,
            auto: self.warmup_auto,
        }
    }

    /// The time of the first sample of a run whose warm-up ends at `warmup_ns`.
    pub(super) fn first_warmup_tick(warmup_ns: u64) -> u64 {
        warmup_ns.saturating_sub(2 * WARMUP_STEP_NS)
    }

    fn settle_sample(&self) -> Vec<LlcSample> {
        (0..self.scenario.llcs)
            .map(|l| {
                (
                    self.llc_sum_util_now(l),
                    self.st.llcs[l as usize].nr_idle_scan,
                    self.llc_balances[l as usize],
                )
            })
            .collect()
    }

    /// The rule of the module's doc over samples `a`, `b`, `c` (oldest first).
    fn is_settled(&self, a: &[LlcSample], b: &[LlcSample], c: &[LlcSample]) -> bool {
        let w = self.scenario.llc_weight;
        let (du, dn) = (settled_util_tolerance(w), settled_nr_tolerance(w));
        a.iter().zip(b).zip(c).all(|((a, b), c)| {
            let band_u = a.0.max(b.0).max(c.0) - a.0.min(b.0).min(c.0);
            let band_n = a.1.max(b.1).max(c.1) - a.1.min(b.1).min(c.1);
            band_u <= du && band_n <= dn && c.2 > a.2
        })
    }

    /// Keeps the last two samples.
    fn keep_sample(&mut self, sample: Vec<LlcSample>) {
        if self.settle_hist.len() == 2 {
            self.settle_hist.remove(0);
        }
        self.settle_hist.push(sample);
    }

    /// Takes the warm-up's samples due by now; starts counting at its end (an auto warm-up
    /// that has not settled is extended by a step, up to the cap).
    #[inline(never)]
    pub(super) fn warmup_tick(&mut self) {
        while !self.measuring && self.now >= self.measure_at {
            let sample = self.settle_sample();
            if self.now < self.warmup_ns {
                self.keep_sample(sample);
                self.measure_at = (self.measure_at + WARMUP_STEP_NS).min(self.warmup_ns);
                continue;
            }
            let settled = match &self.settle_hist[..] {
                [a, b] => self.is_settled(a, b, &sample),
                _ => false,
            };
            if self.warmup_auto && !settled && self.warmup_ns + WARMUP_STEP_NS <= WARMUP_CAP_NS {
                self.warmup_ns += WARMUP_STEP_NS;
                self.measure_at = self.warmup_ns;
                self.keep_sample(sample);
                continue;
            }
            self.warmup_settled = settled;
            self.start_measuring();
        }
    }
}
