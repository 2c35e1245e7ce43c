//! Mel Gorman's SIS schedstat counters, the two metric families, and the scan-time histogram.

use serde::{Deserialize, Serialize};

/// Declares `Counters` from one field list, with `LEN`, `to_array` and `from_array` in that
/// declaration order (the sweep workers' wire format), so a new counter cannot be left out.
macro_rules! counters {
    ($($(#[$doc:meta])* $field:ident,)*) => {
        /// Counters summed over every waker runqueue (`this_rq()` in the patch). All u64.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub struct Counters {
            $($(#[$doc])* pub $field: u64,)*
        }

        impl Counters {
            /// How many counters there are ([`Counters::to_array`]).
            pub const LEN: usize = [$(stringify!($field)),*].len();

            /// Every counter in declaration order (the sweep workers' wire format).
            pub fn to_array(&self) -> [u64; Self::LEN] {
                [$(self.$field),*]
            }

            /// [`Counters::to_array`]'s inverse.
            pub fn from_array(a: [u64; Self::LEN]) -> Self {
                let [$($field),*] = a;
                Counters { $($field),* }
            }
        }
    };
}

counters! {
    /// Every entry to select_idle_sibling (SIS-STAT-2021).
    sis_search,
    /// The fast checks failed and the LLC search starts.
    sis_domain_search,
    /// +1 at SIS entry (target/prev/recent together), +1 per probe in the LLC search.
    sis_scanned,
    /// SIS fell through to `return target`.
    sis_failed,
    sis_recent_hit,
    sis_recent_miss,
    /// has_idle_core scans, and those that found no idle core.
    sis_core_search,
    sis_core_miss,
    wakeups,
    /// Wake-ups placed on a CPU other than prev.
    migrations,
    /// Tasks pulled by newidle or periodic balance.
    balance_pulls,
    /// Sum and count of wake-up latencies (wake to run), ns.
    wakeup_latency_sum_ns,
    wakeup_latency_count,
    wakeup_latency_max_ns,
    /// CPU time idle while another CPU of the same LLC had runnable tasks waiting, ns.
    wasted_ns,
    /// Simulated time spent in select_idle_cpu, ns.
    scan_time_ns,
    /// Time wakers spun for a remote runqueue's lock in ttwu_queue, ns (issue 25).
    ttwu_lock_wait_ns,
    /// Wake-ups activated on a CPU other than the waker's (a remote rq lock or a wakelist).
    remote_wakeups,
    /// IPIs sent to wake a CPU or run its wakelist (none to a polling idle state).
    ipis,
    /// Context switches (every pick of the next task, the idle task included), and those of
    /// them that preempted a running task (involuntary).
    context_switches,
    involuntary_switches,
    /// Wake-ups queued on a CPU that was idle when the wake-up picked it (select_task_rq_fair,
    /// or a timed walk's probe) and ran another task by the time the wakee was queued:
    /// ttwu_queue comes after the scan and the rq lock, and nothing reserves the CPU.
    idle_pick_taken,
    /// CPU time idle (in an idle state or exiting one), ns: cpu_busy_pct's complement.
    idle_ns,
    /// The benchmark's own unit of work, done: a netperf/tbench transaction (the server's
    /// reply), a message a hackbench receiver reads. What the seeds' throughput counts
    /// (netperf's transactions/s, LKP's hackbench.throughput); a wake-up may carry several
    /// hackbench messages, or none. 0 for the other workloads.
    messages,
}

/// The share of `cpus` CPUs' time over `window_ns` that was not idle, % to 0.01 (integer
/// arithmetic: the same bytes natively and in wasm).
pub fn cpu_busy_pct(idle_ns: u64, cpus: u64, window_ns: u64) -> f64 {
    let cpu_time = cpus as u128 * window_ns as u128;
    let busy_bp = match cpu_time {
        0 => 0,
        t => 10_000 - (idle_ns as u128 * 10_000 / t).min(10_000) as u64,
    };
    busy_bp as f64 / 100.0
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

/// select_idle_cpu's time as a share of all CPU time in a window, % (seed 000: "The time
/// spent in select_idle_cpu() is visible to netperf"): 100 * scan_time_ns / (cpus * window).
pub fn scan_cpu_pct(scan_time_ns: u64, cpus: u64, window_ns: u64) -> f64 {
    pct(scan_time_ns, cpus.saturating_mul(window_ns), 0.0)
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

/// Wake-up latency (woken -> running), ns, in log-linear buckets: 8 per power of two, so a
/// percentile read as its bucket's upper bound is within 12.5% of the exact value, in integers
/// (the same bytes natively and in wasm) and in fixed memory however long the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyHistogram {
    buckets: Vec<u64>,
    count: u64,
    max_ns: u64,
}

const LAT_SUB: u32 = 8;
const LAT_BUCKETS: usize = (64 - 2) * LAT_SUB as usize;

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram {
            buckets: vec![0; LAT_BUCKETS],
            count: 0,
            max_ns: 0,
        }
    }
}

impl LatencyHistogram {
    /// 0..8 ns one bucket each; then 8 buckets between each power of two and the next.
    fn bucket_of(ns: u64) -> usize {
        if ns < LAT_SUB as u64 {
            return ns as usize;
        }
        let e = 63 - ns.leading_zeros(); // 2^e <= ns < 2^(e+1), e >= 3
        let sub = (ns >> (e - 3)) & 7;
        ((e - 2) * LAT_SUB) as usize + sub as usize
    }

    /// The largest ns in bucket `i`.
    fn upper_bound(i: usize) -> u64 {
        if i < LAT_SUB as usize {
            return i as u64;
        }
        let (e, sub) = (i as u32 / LAT_SUB + 2, i as u64 % LAT_SUB as u64);
        ((8 + sub + 1) << (e - 3)) - 1
    }

    pub fn record(&mut self, ns: u64) {
        self.buckets[Self::bucket_of(ns)] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    /// The `per_mille`-th per-mille latency (500 = median), ns: the upper bound of the bucket
    /// holding it, never above the maximum seen; 0 without samples.
    pub fn percentile_ns(&self, per_mille: u64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        // The rank of the sample, 1-based: ceil(count * per_mille / 1000).
        let rank = (self.count * per_mille).div_ceil(1000).max(1);
        let mut seen = 0;
        for (i, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Self::upper_bound(i).min(self.max_ns);
            }
        }
        self.max_ns
    }

    pub fn count(&self) -> u64 {
        self.count
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

    /// One call recorded as `from` ns took `to` ns (a scan that went on after it was counted).
    pub fn move_ns(&mut self, from: u64, to: u64) {
        let b = &mut self.buckets[Self::bucket_of(from / 1000)];
        *b = b.saturating_sub(1);
        self.record_ns(to);
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

    #[test]
    fn counters_round_trip_through_their_array_in_declaration_order() {
        let a: [u64; Counters::LEN] = std::array::from_fn(|i| 10 + i as u64);
        let c = Counters::from_array(a);
        assert_eq!((c.sis_search, c.sis_scanned, c.scan_time_ns), (10, 12, 25));
        assert_eq!(c.to_array(), a);
    }

    use super::*;

    #[test]
    fn latency_buckets_are_log_linear_and_percentiles_exact_to_a_bucket() {
        // Every ns lands in the bucket whose upper bound is the first at or above it.
        for ns in (0..5000u64).chain([1 << 20, (1 << 20) + 1, 3_000_000, u64::MAX / 2]) {
            let i = LatencyHistogram::bucket_of(ns);
            assert!(LatencyHistogram::upper_bound(i) >= ns, "{ns}");
            if i > 0 {
                assert!(LatencyHistogram::upper_bound(i - 1) < ns, "{ns}");
            }
        }
        // 8 buckets per power of two: [1024, 1152) is one bucket (12.5% wide).
        assert_eq!(
            LatencyHistogram::bucket_of(1024),
            LatencyHistogram::bucket_of(1151)
        );
        assert_ne!(
            LatencyHistogram::bucket_of(1151),
            LatencyHistogram::bucket_of(1152)
        );
        // 1..=1000 us: the median is 500 us, p99 990 us, each within its bucket.
        let mut h = LatencyHistogram::default();
        for us in 1..=1000u64 {
            h.record(us * 1000);
        }
        for (per_mille, exact) in [(500u64, 500_000u64), (900, 900_000), (990, 990_000)] {
            let got = h.percentile_ns(per_mille);
            assert!(
                got >= exact && got <= exact + exact / 8,
                "{per_mille}: {got}"
            );
        }
        assert_eq!(h.percentile_ns(1000), 1_000_000, "capped at the maximum");
        assert_eq!(LatencyHistogram::default().percentile_ns(500), 0);
    }

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

    #[test]
    fn scan_cpu_pct_is_the_scans_share_of_every_cpus_time() {
        // 112 CPUs for 100 ms are 11.2 CPU-seconds; 5.6 of them scanning is half.
        assert_eq!(scan_cpu_pct(5_600_000_000, 112, 100_000_000), 50.0);
        assert_eq!(scan_cpu_pct(1_000_000, 8, 1_000_000), 12.5);
        assert_eq!(scan_cpu_pct(0, 112, 100_000_000), 0.0);
        assert_eq!(scan_cpu_pct(5, 112, 0), 0.0);
    }
}
