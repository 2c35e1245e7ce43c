//! Mel Gorman's SIS schedstat counters, the two metric families, and the scan-time histogram.

use serde::{Deserialize, Serialize};

/// Counters summed over every waker runqueue (`this_rq()` in the patch). All u64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Every entry to select_idle_sibling (SIS-STAT-2021).
    pub sis_search: u64,
    /// The fast checks failed and the LLC search starts.
    pub sis_domain_search: u64,
    /// +1 at SIS entry (target/prev/recent together), +1 per probe in the LLC search.
    pub sis_scanned: u64,
    /// SIS fell through to `return target`.
    pub sis_failed: u64,
    pub sis_recent_hit: u64,
    pub sis_recent_miss: u64,
    /// has_idle_core scans, and those that found no idle core.
    pub sis_core_search: u64,
    pub sis_core_miss: u64,
    pub wakeups: u64,
    /// Wake-ups placed on a CPU other than prev.
    pub migrations: u64,
    /// Tasks pulled by newidle or periodic balance.
    pub balance_pulls: u64,
    /// Sum and count of wake-up latencies (wake to run), ns.
    pub wakeup_latency_sum_ns: u64,
    pub wakeup_latency_count: u64,
    pub wakeup_latency_max_ns: u64,
    /// CPU time idle while another CPU of the same LLC had runnable tasks waiting, ns.
    pub wasted_ns: u64,
    /// Simulated time spent in select_idle_cpu, ns.
    pub scan_time_ns: u64,
}

/// Both metric families, as percentages. Zero denominators are defined, never NaN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// schedstat_parse.py: 100 * found / scanned (100 when nothing was scanned).
    pub se_eff: f64,
    /// 100 * dom_found / dom_scanned (100 when no domain probe happened).
    pub dom_eff: f64,
    /// 100 * fast_found / search (0 without searches).
    pub fast_rate: f64,
    /// 100 * found / search (0 without searches).
    pub success_rate: f64,
    /// mmtests "SIS Search Efficiency": 100 * search / scanned (100 when scanned == 0).
    pub mmtests_search_eff: f64,
    /// mmtests "SIS Domain Search Eff": 100 * domain_search / domain_scanned (100 if none).
    pub mmtests_domain_eff: f64,
    /// mmtests "SIS Fast Success Rate" (same as fast_rate).
    pub mmtests_fast_rate: f64,
    /// mmtests "SIS Success Rate" as intended: 100 * (search - failed) / search.
    pub mmtests_success_rate: f64,
    /// mmtests "SIS Recent Success Rate": 100 * hit / (hit + miss) (0 if none).
    pub recent_success_rate: f64,
    /// mmtests "SIS Core Search Eff": 100 * (core_search - core_miss) / core_search (0 if none).
    pub core_search_eff: f64,
    /// Runqueues scanned per wake-up.
    pub scanned_per_wakeup: f64,
    pub avg_wakeup_latency_us: f64,
}

fn pct(num: u64, den: u64, if_zero: f64) -> f64 {
    if den == 0 {
        if_zero
    } else {
        100.0 * num as f64 / den as f64
    }
}

impl Counters {
    /// kernel-semantics.md 4b/4c definitions.
    pub fn metrics(&self) -> Metrics {
        let found = self.sis_search.saturating_sub(self.sis_failed);
        let fast_found = self.sis_search.saturating_sub(self.sis_domain_search);
        let dom_scanned = self.sis_scanned.saturating_sub(fast_found);
        let dom_found = self.sis_domain_search.saturating_sub(self.sis_failed);
        Metrics {
            se_eff: pct(found, self.sis_scanned, 100.0),
            dom_eff: pct(dom_found, dom_scanned, 100.0),
            fast_rate: pct(fast_found, self.sis_search, 0.0),
            success_rate: pct(found, self.sis_search, 0.0),
            mmtests_search_eff: pct(self.sis_search, self.sis_scanned, 100.0),
            mmtests_domain_eff: if self.sis_domain_search == 0 {
                100.0
            } else {
                pct(self.sis_domain_search, dom_scanned, 100.0)
            },
            mmtests_fast_rate: pct(fast_found, self.sis_search, 0.0),
            mmtests_success_rate: pct(found, self.sis_search, 0.0),
            recent_success_rate: pct(
                self.sis_recent_hit,
                self.sis_recent_hit + self.sis_recent_miss,
                0.0,
            ),
            core_search_eff: pct(
                self.sis_core_search.saturating_sub(self.sis_core_miss),
                self.sis_core_search,
                0.0,
            ),
            scanned_per_wakeup: if self.wakeups == 0 {
                0.0
            } else {
                self.sis_scanned as f64 / self.wakeups as f64
            },
            avg_wakeup_latency_us: if self.wakeup_latency_count == 0 {
                0.0
            } else {
                self.wakeup_latency_sum_ns as f64 / self.wakeup_latency_count as f64 / 1000.0
            },
        }
    }
}

/// Time spent in select_idle_cpu per call, in the seed's bpftrace `@usecs` power-of-two buckets:
/// [0], [1], [2,4), [4,8), ... [64K,128K), and one overflow bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanHistogram {
    pub buckets: Vec<u64>,
}

pub const HIST_BUCKETS: usize = 19;

impl Default for ScanHistogram {
    fn default() -> Self {
        ScanHistogram {
            buckets: vec![0; HIST_BUCKETS],
        }
    }
}

impl ScanHistogram {
    /// Bucket index of a duration in microseconds.
    pub fn bucket_of(usecs: u64) -> usize {
        if usecs == 0 {
            0
        } else {
            ((64 - usecs.leading_zeros()) as usize).min(HIST_BUCKETS - 1)
        }
    }

    pub fn record_ns(&mut self, ns: u64) {
        self.buckets[Self::bucket_of(ns / 1000)] += 1;
    }

    /// The bucket's label as bpftrace prints it.
    pub fn label(i: usize) -> String {
        fn k(v: u64) -> String {
            if v >= 1024 && v.is_multiple_of(1024) {
                format!("{}K", v / 1024)
            } else {
                v.to_string()
            }
        }
        match i {
            0 => "[0]".into(),
            1 => "[1]".into(),
            i if i == HIST_BUCKETS - 1 => format!("[{}, ...)", k(1 << (i - 1))),
            i => format!("[{}, {})", k(1 << (i - 1)), k(1 << i)),
        }
    }

    pub fn total(&self) -> u64 {
        self.buckets.iter().sum()
    }

    /// The histogram as bpftrace draws it.
    pub fn to_text(&self) -> String {
        let max = self.buckets.iter().copied().max().unwrap_or(0).max(1);
        let mut s = String::from("@usecs:\n");
        for (i, n) in self.buckets.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            let bar = "@".repeat((*n * 52 / max) as usize);
            s.push_str(&format!("{:<18}{:>10} |{:<52}|\n", Self::label(i), n, bar));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chen_yu_definitions() {
        let c = Counters {
            sis_search: 100,
            sis_domain_search: 40,
            sis_scanned: 400,
            sis_failed: 10,
            ..Default::default()
        };
        let m = c.metrics();
        // found = 90, fast_found = 60, dom_scanned = 340, dom_found = 30
        assert!((m.se_eff - 22.5).abs() < 1e-9);
        assert!((m.dom_eff - 100.0 * 30.0 / 340.0).abs() < 1e-9);
        assert!((m.fast_rate - 60.0).abs() < 1e-9);
        assert!((m.success_rate - 90.0).abs() < 1e-9);
        assert!((m.mmtests_search_eff - 25.0).abs() < 1e-9);
    }

    #[test]
    fn zero_denominators_are_defined() {
        let m = Counters::default().metrics();
        for v in [
            m.se_eff,
            m.dom_eff,
            m.fast_rate,
            m.success_rate,
            m.recent_success_rate,
            m.core_search_eff,
        ] {
            assert!(v.is_finite());
        }
        assert_eq!(m.se_eff, 100.0);
        assert_eq!(m.success_rate, 0.0);
    }

    #[test]
    fn histogram_buckets_match_bpftrace() {
        assert_eq!(ScanHistogram::bucket_of(0), 0);
        assert_eq!(ScanHistogram::bucket_of(1), 1);
        assert_eq!(ScanHistogram::bucket_of(2), 2);
        assert_eq!(ScanHistogram::bucket_of(3), 2);
        assert_eq!(ScanHistogram::bucket_of(4), 3);
        assert_eq!(ScanHistogram::bucket_of(40), 6); // [32, 64)
        assert_eq!(ScanHistogram::label(6), "[32, 64)");
        assert_eq!(ScanHistogram::label(11), "[1K, 2K)");
        assert_eq!(ScanHistogram::label(17), "[64K, 128K)");
    }
}
