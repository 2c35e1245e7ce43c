//! Replicate statistics: the mean, std% and 95% confidence interval of a point's runs (one
//! per seed), the quantities a sweep reports, and the per-load comparison of two presets.

use super::SweepRow;
use crate::sim::engine::RunReport;
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::collections::BTreeMap;

/// Two-sided 95% critical values of Student's t, `t(0.975, df)`, from the NIST/SEMATECH
/// e-Handbook of Statistics, section 1.3.6.7.2 "Critical Values of the Student's t
/// Distribution" (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm).
/// `(df, t)`, df ascending; the last row is df = infinity.
const T_975: &[(usize, f64)] = &[
    (1, 12.706),
    (2, 4.303),
    (3, 3.182),
    (4, 2.776),
    (5, 2.571),
    (6, 2.447),
    (7, 2.365),
    (8, 2.306),
    (9, 2.262),
    (10, 2.228),
    (11, 2.201),
    (12, 2.179),
    (13, 2.160),
    (14, 2.145),
    (15, 2.131),
    (16, 2.120),
    (17, 2.110),
    (18, 2.101),
    (19, 2.093),
    (20, 2.086),
    (21, 2.080),
    (22, 2.074),
    (23, 2.069),
    (24, 2.064),
    (25, 2.060),
    (26, 2.056),
    (27, 2.052),
    (28, 2.048),
    (29, 2.045),
    (30, 2.042),
    (40, 2.021),
    (50, 2.009),
    (60, 2.000),
    (70, 1.994),
    (80, 1.990),
    (90, 1.987),
    (100, 1.984),
    (usize::MAX, 1.960),
];

/// `t(0.975, df)` for `df >= 1`. Between tabulated rows (df > 30) it takes the row of the
/// next smaller df, whose t is larger: the interval is slightly wider, never narrower. Above
/// df 100 that is 1.984 (the exact value falls towards 1.960).
pub fn t_975(df: usize) -> f64 {
    let df = df.max(1);
    T_975
        .iter()
        .rev()
        .find(|(d, _)| *d <= df)
        .map(|(_, t)| *t)
        .unwrap_or(T_975[0].1)
}

/// What a point's runs say about one quantity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Number of runs.
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1) in percent of the mean, as the seeds' `std%`. `None`
    /// for one run, or when the mean is 0 and the runs differ.
    pub std_pct: Option<f64>,
    /// `mean -/+ t(0.975, n-1) * s / sqrt(n)`; `None` for one run.
    pub ci95: Option<(f64, f64)>,
}

impl Estimate {
    /// The estimate of `xs`, summed in the given order (so it is the same bytes wherever the
    /// runs were computed).
    pub fn of(xs: &[f64]) -> Estimate {
        let n = xs.len();
        if n == 0 {
            return Estimate {
                n,
                mean: 0.0,
                std_pct: None,
                ci95: None,
            };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Estimate {
                n,
                mean,
                std_pct: None,
                ci95: None,
            };
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        let std_pct = if mean != 0.0 {
            Some(100.0 * sd / mean.abs())
        } else if sd == 0.0 {
            Some(0.0)
        } else {
            None
        };
        let half = t_975(n - 1) * sd / (n as f64).sqrt();
        Estimate {
            n,
            mean,
            std_pct,
            ci95: Some((mean - half, mean + half)),
        }
    }

    /// Whether the two 95% intervals overlap (`None` when either has no interval). Overlap is
    /// the conservative reading: non-overlapping intervals always mean a difference at the 5%
    /// level, overlapping ones may still hide one.
    pub fn overlaps(&self, other: &Estimate) -> Option<bool> {
        let ((a0, a1), (b0, b1)) = (self.ci95?, other.ci95?);
        Some(a0 <= b1 && b0 <= a1)
    }
}

/// A quantity a sweep reports per point.
pub struct Quantity {
    /// The CSV column and JSON key (the `RunReport` field's name).
    pub key: &'static str,
    /// The table's name for it.
    pub label: &'static str,
    pub get: fn(&RunReport) -> f64,
    /// A count (printed without decimals for one run) rather than a percentage or ratio.
    pub count: bool,
}

/// Every quantity of the CSV and JSON, in their column order.
pub static QUANTITIES: &[Quantity] = &[
    Quantity {
        key: "wakeups",
        label: "wakeups",
        get: |r| r.wakeups as f64,
        count: true,
    },
    Quantity {
        key: "sis_search",
        label: "sis_search",
        get: |r| r.counters.sis_search as f64,
        count: true,
    },
    Quantity {
        key: "sis_domain_search",
        label: "sis_domain_search",
        get: |r| r.counters.sis_domain_search as f64,
        count: true,
    },
    Quantity {
        key: "sis_scanned",
        label: "sis_scanned",
        get: |r| r.counters.sis_scanned as f64,
        count: true,
    },
    Quantity {
        key: "sis_failed",
        label: "sis_failed",
        get: |r| r.counters.sis_failed as f64,
        count: true,
    },
    Quantity {
        key: "se_eff",
        label: "se_eff%",
        get: |r| r.metrics.se_eff,
        count: false,
    },
    Quantity {
        key: "dom_eff",
        label: "dom_eff%",
        get: |r| r.metrics.dom_eff,
        count: false,
    },
    Quantity {
        key: "fast_rate",
        label: "fast_rate%",
        get: |r| r.metrics.fast_rate,
        count: false,
    },
    Quantity {
        key: "success_rate",
        label: "success_rate%",
        get: |r| r.metrics.success_rate,
        count: false,
    },
    Quantity {
        key: "scanned_per_wakeup",
        label: "scanned_per_wakeup",
        get: |r| r.metrics.scanned_per_wakeup,
        count: false,
    },
    Quantity {
        key: "migrations",
        label: "migrations",
        get: |r| r.migrations as f64,
        count: true,
    },
    // Seed 000 reports its benchmarks' throughput and latency beside the counters.
    Quantity {
        key: "wakeups_per_s",
        label: "throughput (wake-ups/s)",
        get: |r| r.throughput.wakeups_per_s as f64,
        count: true,
    },
    Quantity {
        key: "messages_per_s",
        label: "throughput (messages/s: netperf/tbench transactions, hackbench messages read)",
        get: |r| r.throughput.messages_per_s as f64,
        count: true,
    },
    Quantity {
        key: "latency_p50_us",
        label: "wake-up latency p50 (us)",
        get: |r| r.throughput.latency_p50_ns as f64 / 1000.0,
        count: false,
    },
    Quantity {
        key: "latency_p99_us",
        label: "wake-up latency p99 (us)",
        get: |r| r.throughput.latency_p99_ns as f64 / 1000.0,
        count: false,
    },
    Quantity {
        key: "scan_cpu_pct",
        label: "select_idle_cpu time (% of CPU time)",
        get: |r| r.scan_cpu_pct(),
        count: false,
    },
    // The wake-up's own price (issue 25; seed 000: "-13% less rq lock contention", seed 001:
    // vanilla ~90% busy at 224 threads, SIS_UTIL ~100%).
    Quantity {
        key: "cpu_busy_pct",
        label: "CPU busy (% of CPU time, scanning included)",
        get: |r| r.cpu_busy_pct,
        count: false,
    },
    Quantity {
        key: "ttwu_lock_wait_ms",
        label: "ttwu rq lock spin (ms)",
        get: |r| r.counters.ttwu_lock_wait_ns as f64 / 1e6,
        count: false,
    },
    Quantity {
        key: "remote_wakeups",
        label: "remote wake-ups",
        get: |r| r.counters.remote_wakeups as f64,
        count: true,
    },
    Quantity {
        key: "involuntary_switches",
        label: "involuntary preemptions",
        get: |r| r.counters.involuntary_switches as f64,
        count: true,
    },
    // What a long scan's success is worth: the idle CPU it picked, taken before ttwu_queue.
    Quantity {
        key: "idle_pick_taken",
        label: "idle picks taken (wakee queued behind another task on the idle CPU it picked)",
        get: |r| r.counters.idle_pick_taken as f64,
        count: true,
    },
];

/// The quantities of the schedstat table's columns.
pub const TABLE_KEYS: [&str; 4] = ["se_eff", "dom_eff", "fast_rate", "success_rate"];

/// The quantities of the mmtests-style compare sections, in section order.
pub const COMPARE_KEYS: [&str; 17] = [
    "messages_per_s",
    "wakeups_per_s",
    "latency_p50_us",
    "latency_p99_us",
    "scan_cpu_pct",
    "cpu_busy_pct",
    "ttwu_lock_wait_ms",
    "remote_wakeups",
    "involuntary_switches",
    "idle_pick_taken",
    "wakeups",
    "se_eff",
    "dom_eff",
    "fast_rate",
    "success_rate",
    "sis_scanned",
    "sis_failed",
];

/// The quantity named `key` (one of [`QUANTITIES`]).
pub fn quantity(key: &str) -> &'static Quantity {
    QUANTITIES
        .iter()
        .find(|q| q.key == key)
        .unwrap_or(&QUANTITIES[0])
}

/// `(key, value)` pairs serialised as a JSON object in this order.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyed<T>(pub Vec<(&'static str, T)>);

impl<T: Serialize> Serialize for Keyed<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<T> Keyed<T> {
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

/// One quantity of one point in the JSON: `{mean, std_pct, ci95_lo, ci95_hi}` (nulls for one
/// run).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EstimateJson {
    pub mean: f64,
    pub std_pct: Option<f64>,
    pub ci95_lo: Option<f64>,
    pub ci95_hi: Option<f64>,
}

impl From<&Estimate> for EstimateJson {
    fn from(e: &Estimate) -> Self {
        EstimateJson {
            mean: e.mean,
            std_pct: e.std_pct,
            ci95_lo: e.ci95.map(|c| c.0),
            ci95_hi: e.ci95.map(|c| c.1),
        }
    }
}

/// A (preset, load) point over its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct PointSummary {
    pub preset: String,
    pub load: u32,
    /// The seeds of its runs, in run order.
    pub seeds: Vec<u64>,
    /// One of the point's reports (the first run): its scenario names the point.
    pub first: RunReport,
    /// Every quantity of [`QUANTITIES`], in that order.
    pub estimates: Keyed<Estimate>,
}

impl PointSummary {
    pub fn runs(&self) -> usize {
        self.seeds.len()
    }

    pub fn estimate(&self, key: &str) -> &Estimate {
        self.estimates.get(key).unwrap_or(&self.estimates.0[0].1)
    }
}

/// The rows grouped by (preset, load) in order of first appearance, each with the estimate
/// of every quantity over its runs.
pub fn summarise(rows: &[SweepRow]) -> Vec<PointSummary> {
    // One pass: each (preset, load) and its runs in row order (linear in rows, for sweeps of
    // 10^5 runs).
    let mut index: BTreeMap<(&str, u32), usize> = BTreeMap::new();
    let mut groups: Vec<Vec<&SweepRow>> = Vec::new();
    for r in rows {
        let g = *index.entry((&r.preset, r.load)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(r);
    }
    groups
        .into_iter()
        .map(|runs| {
            let estimates = QUANTITIES
                .iter()
                .map(|q| {
                    let xs: Vec<f64> = runs.iter().map(|r| (q.get)(&r.report)).collect();
                    (q.key, Estimate::of(&xs))
                })
                .collect();
            PointSummary {
                preset: runs[0].preset.clone(),
                load: runs[0].load,
                seeds: runs.iter().map(|r| r.report.scenario.seed).collect(),
                first: runs[0].report.clone(),
                estimates: Keyed(estimates),
            }
        })
        .collect()
}

/// One quantity of one load, compared between a baseline and another preset.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Compared {
    /// The baseline's mean.
    pub baseline: f64,
    /// The compared preset's mean.
    pub compare: f64,
    /// mmtests' `100 * (compare - baseline) / baseline` ([`super::compare_pct`]); JSON null
    /// when the baseline is 0 and the compared value is not (+/- infinity).
    pub compare_pct: f64,
    /// Whether the two 95% intervals overlap (`None` with one run per point).
    pub ci_overlap: Option<bool>,
}

impl Compared {
    pub fn of(b: &Estimate, c: &Estimate) -> Self {
        Compared {
            baseline: b.mean,
            compare: c.mean,
            compare_pct: super::compare_pct(b.mean, c.mean),
            ci_overlap: b.overlaps(c),
        }
    }

    /// The seed's `*`: the means differ but the runs' intervals do not support the difference.
    pub fn unsupported(&self) -> bool {
        self.ci_overlap == Some(true) && self.baseline != self.compare
    }
}

/// Every quantity of one load of `preset` against the same load of `baseline`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub preset: String,
    pub baseline: String,
    pub load: u32,
    pub quantities: Keyed<Compared>,
}

/// Each preset after the first (the baseline) against the baseline, per load the baseline ran
/// and the preset also ran: preset order, then the baseline's load order.
pub fn comparisons(summaries: &[PointSummary]) -> Vec<Comparison> {
    let Some(base) = summaries.first().map(|s| s.preset.clone()) else {
        return Vec::new();
    };
    let mut presets: Vec<&str> = Vec::new();
    for s in summaries {
        if s.preset != base && !presets.contains(&s.preset.as_str()) {
            presets.push(&s.preset);
        }
    }
    // Inserted one by one rather than collected: `collect` sorts first (a stable sort the
    // browser's wasm would carry only for this).
    let mut index: BTreeMap<(&str, u32), &PointSummary> = BTreeMap::new();
    for s in summaries {
        index.insert((s.preset.as_str(), s.load), s);
    }
    let mut out = Vec::new();
    for p in presets {
        for b in summaries.iter().filter(|s| s.preset == base) {
            let Some(c) = index.get(&(p, b.load)) else {
                continue;
            };
            let quantities = QUANTITIES
                .iter()
                .map(|q| (q.key, Compared::of(b.estimate(q.key), c.estimate(q.key))))
                .collect();
            out.push(Comparison {
                preset: p.to_string(),
                baseline: base.clone(),
                load: b.load,
                quantities: Keyed(quantities),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_follow_the_nist_table() {
        assert_eq!(t_975(1), 12.706);
        assert_eq!(t_975(2), 4.303);
        assert_eq!(t_975(9), 2.262);
        assert_eq!(t_975(30), 2.042);
        // Between rows: the next smaller tabulated df (wider interval).
        assert_eq!(t_975(35), 2.042);
        assert_eq!(t_975(40), 2.021);
        assert_eq!(t_975(99), 1.987);
        assert_eq!(t_975(1000), 1.984);
        assert_eq!(t_975(0), 12.706);
        // Decreasing in df: more runs never widen the interval.
        let ts: Vec<f64> = (1..200).map(t_975).collect();
        assert!(ts.windows(2).all(|w| w[0] >= w[1]));
    }

    #[test]
    fn estimate_of_three_runs() {
        // mean 2, s = 1 (sample), std% 50, half-width 4.303 / sqrt(3).
        let e = Estimate::of(&[1.0, 2.0, 3.0]);
        assert_eq!(e.n, 3);
        assert_eq!(e.mean, 2.0);
        assert_eq!(e.std_pct, Some(50.0));
        let half = 4.303 / 3f64.sqrt();
        let (lo, hi) = e.ci95.unwrap();
        assert!((lo - (2.0 - half)).abs() < 1e-12 && (hi - (2.0 + half)).abs() < 1e-12);
        // One run: no spread, no interval.
        let one = Estimate::of(&[5.0]);
        assert_eq!((one.mean, one.std_pct, one.ci95), (5.0, None, None));
        // All zero: std% 0; zero mean with spread: undefined.
        assert_eq!(Estimate::of(&[0.0, 0.0]).std_pct, Some(0.0));
        assert_eq!(Estimate::of(&[-1.0, 1.0]).std_pct, None);
    }

    #[test]
    fn overlap_and_the_unsupported_mark() {
        let a = Estimate::of(&[10.0, 10.1, 9.9]);
        let far = Estimate::of(&[20.0, 20.1, 19.9]);
        let near = Estimate::of(&[10.05, 10.15, 9.95]);
        assert_eq!(a.overlaps(&far), Some(false));
        assert_eq!(a.overlaps(&near), Some(true));
        assert!(!Compared::of(&a, &far).unsupported());
        assert!(Compared::of(&a, &near).unsupported());
        // Equal means are no difference to mark; one run gives no interval.
        assert!(!Compared::of(&a, &a).unsupported());
        let one = Estimate::of(&[10.0]);
        assert_eq!(Compared::of(&one, &far).ci_overlap, None);
    }
}
