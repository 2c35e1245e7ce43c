//! Scan-depth throttles: each a small pure function with the kernel's integer arithmetic.

/// `SCHED_CAPACITY_SCALE`.
pub const SCHED_CAPACITY_SCALE: u64 = 1024;

/// select_idle_cpu's `nr` when nothing throttles the scan (the kernel's INT_MAX).
pub(crate) const NR_INF: i64 = i64::MAX;

/// linux-6.0 fair.c `update_idle_cpu_scan()` (seed 000): the number of CPUs SIS_UTIL lets
/// select_idle_cpu() probe, from the LLC's sum of util (cpu_util_cfs). u64 with truncating division.
pub fn update_idle_cpu_scan(sum_util: u64, llc_weight: u32, imbalance_pct: u32) -> u32 {
    let llc_weight = llc_weight.max(1) as u64;
    // equation [3]: x = sum_util / llc_weight (do_div)
    let x = sum_util / llc_weight;
    // equation [4]: tmp = x*x*pct*pct / (10000 * SCHED_CAPACITY_SCALE), capped at 1024
    let pct = imbalance_pct as u64;
    let tmp = x.saturating_mul(x).saturating_mul(pct * pct) / (10000 * SCHED_CAPACITY_SCALE);
    let tmp = tmp.min(SCHED_CAPACITY_SCALE);
    let y = SCHED_CAPACITY_SCALE - tmp;
    // equation [2]: y * llc_weight / SCHED_CAPACITY_SCALE
    (y * llc_weight / SCHED_CAPACITY_SCALE) as u32
}

/// Seed 001 (RFC) `update_sd_lb_stats`: the LLC is "overloaded" when
/// `total_capacity * 100 < sum_util * imbalance_pct`; then select_idle_cpu() does not scan.
pub fn rfc_overloaded(total_capacity: u64, sum_util: u64, imbalance_pct: u32) -> bool {
    total_capacity.saturating_mul(100) < sum_util.saturating_mul(imbalance_pct as u64)
}

/// Seed 000 changelog idea: `if (llc_weight <= 16) nr_scan = nr_scan * 32 / llc_weight;`
/// capped at llc_weight (a scan cannot visit more CPUs than the LLC has).
pub fn small_llc_scale(nr_scan: u32, llc_weight: u32) -> u32 {
    if llc_weight <= 16 && llc_weight > 0 {
        (nr_scan * 32 / llc_weight).min(llc_weight)
    } else {
        nr_scan
    }
}

/// Seed 001's workaround: subtract each idle CPU's capacity from the LLC's sum of util.
pub fn idle_aware_sum(sum_util: u64, nr_idle: u32) -> u64 {
    sum_util.saturating_sub(nr_idle as u64 * SCHED_CAPACITY_SCALE)
}

/// The SIS_PROP budget (linux-5.12 fair.c select_idle_cpu, seed 003):
/// `span_avg = span_weight * avg_idle; nr = span_avg > 4*avg_cost ? span_avg / avg_cost : 4`
/// where `avg_idle` is already `avg_idle / 512` (pre-5.14) or `wake_avg_idle` (5.14+) and
/// `avg_cost = avg_scan_cost + 1`. The loop pre-decrements, so nr = 4 probes 3 CPUs.
pub fn sis_prop_nr(span_weight: u32, avg_idle: u64, avg_scan_cost: u64) -> u64 {
    let avg_cost = avg_scan_cost.saturating_add(1);
    let span_avg = (span_weight as u64).saturating_mul(avg_idle);
    if span_avg > avg_cost.saturating_mul(4) {
        span_avg / avg_cost
    } else {
        4
    }
}

/// linux-5.10 fair.c select_idle_cpu: with SIS_AVG_CPU, `if (avg_idle < avg_cost) return -1`
/// (avg_idle already divided by 512, avg_cost = avg_scan_cost + 1). True = skip the scan.
pub fn sis_avg_cpu_skips(avg_idle_512: u64, avg_scan_cost: u64) -> bool {
    avg_idle_512 < avg_scan_cost.saturating_add(1)
}

/// linux-5.12 kernel/sched/sched.h `update_avg()`: `s64 diff = sample - *avg; *avg += diff / 8;`
/// (signed division truncating toward zero).
pub fn update_avg(avg: u64, sample: u64) -> u64 {
    // The kernel's s64 arithmetic for every value below 2^63, and no overflow above: the
    // difference's magnitude divided by 8, added or taken away (truncating toward zero, as
    // the signed division does). Not an i128 division: wasm has none, and compiler-rt's
    // __divti3 took 8% of the simulator's time there (node --cpu-prof, session 24).
    if sample >= avg {
        avg + (sample - avg) / 8
    } else {
        avg - (avg - sample) / 8
    }
}

/// The SIS_UTIL curve over every integer util percent: (sum_util, util_pct, nr_scan) with
/// sum_util = floor(pct * W * 1024 / 100), as the seed tabulates it.
pub fn curve_percent(llc_weight: u32, imbalance_pct: u32) -> Vec<(u64, u32, u32)> {
    (0..=100)
        .map(|pct| {
            let sum = pct as u64 * llc_weight as u64 * SCHED_CAPACITY_SCALE / 100;
            (
                sum,
                pct,
                update_idle_cpu_scan(sum, llc_weight, imbalance_pct),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED_PCTS: [u64; 11] = [0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 86];

    fn table(w: u32) -> Vec<u32> {
        SEED_PCTS
            .iter()
            .map(|p| update_idle_cpu_scan(p * w as u64 * 1024 / 100, w, 117))
            .collect()
    }

    #[test]
    fn seed_000_table_112_cpus() {
        assert_eq!(
            table(112),
            vec![112, 111, 108, 102, 93, 81, 65, 47, 25, 1, 0]
        );
    }

    #[test]
    fn seed_000_table_16_cpus() {
        assert_eq!(table(16), vec![16, 15, 15, 14, 13, 11, 9, 6, 3, 0, 0]);
    }

    #[test]
    fn kernel_semantics_worked_values() {
        // kernel-semantics.md section 3: llc 8 at 0,25,50,60,70,75,80,85 % -> 8 7 5 4 2 1 1 0
        let w = 8;
        let got: Vec<u32> = [0u64, 25, 50, 60, 70, 75, 80, 85]
            .iter()
            .map(|p| update_idle_cpu_scan(p * w * 1024 / 100, w as u32, 117))
            .collect();
        assert_eq!(got, vec![8, 7, 5, 4, 2, 1, 1, 0]);
    }

    #[test]
    fn seed_corner_case_seven_of_eight_busy_stops_the_scan() {
        // seed 000: util_avg 1024 on CPU0..6, 0 on CPU7: 87.5% > 85% -> nr_idle_scan 0
        assert_eq!(update_idle_cpu_scan(7 * 1024, 8, 117), 0);
        // seed 001 RFC: overloaded
        assert!(rfc_overloaded(8 * 1024, 7 * 1024, 117));
        // seed 001 workaround: 7*1024 - 1024 = 75% -> not overloaded, scan continues
        let adj = idle_aware_sum(7 * 1024, 1);
        assert_eq!(adj, 6 * 1024);
        assert!(!rfc_overloaded(8 * 1024, adj, 117));
        assert!(update_idle_cpu_scan(adj, 8, 117) > 0);
    }

    #[test]
    fn small_llc_scaling_doubles_16() {
        assert_eq!(small_llc_scale(3, 16), 6);
        assert_eq!(small_llc_scale(9, 16), 16);
        assert_eq!(small_llc_scale(0, 16), 0);
        assert_eq!(small_llc_scale(25, 112), 25);
    }

    #[test]
    fn sis_prop_minimum_is_four() {
        assert_eq!(sis_prop_nr(112, 0, 500), 4);
        // 1 ms avg_idle / 512 = 1953; 112 * 1953 / 501 = 436
        assert_eq!(sis_prop_nr(112, 1_000_000 / 512, 500), 436);
    }

    #[test]
    fn sis_prop_floor_is_four_avg_costs() {
        // avg_cost = 99 + 1 = 100. span_avg between 2 and 4 avg_costs takes the floor of 4
        // (a floor of 2 * avg_cost would give 300 / 100 = 3); at exactly 4 avg_costs too
        // (`span_avg > 4*avg_cost` is strict); one ns more divides.
        assert_eq!(sis_prop_nr(3, 100, 99), 4);
        assert_eq!(sis_prop_nr(4, 100, 99), 4);
        assert_eq!(sis_prop_nr(4, 101, 99), 4); // 404 / 100 = 4 by the division
        assert_eq!(sis_prop_nr(5, 100, 99), 5);
    }

    #[test]
    fn update_avg_truncates_toward_zero() {
        assert_eq!(update_avg(100, 107), 100); // +7/8 = 0
        assert_eq!(update_avg(100, 93), 100); // -7/8 = 0 (toward zero, not -1)
        assert_eq!(update_avg(100, 180), 110);
        assert_eq!(update_avg(100, 20), 90);
    }

    /// The same as `avg + (sample - avg) / 8` in i128 (the kernel's s64 below 2^63) for
    /// every pair of a spread of values, the extremes included.
    #[test]
    fn update_avg_is_the_signed_formula_everywhere() {
        let mut vals: Vec<u64> = vec![0, 1, 7, 8, 9, 15, 16, 17, u64::MAX, u64::MAX - 7];
        vals.extend([1u64 << 62, (1 << 63) - 1, 1 << 63, (1 << 63) + 9]);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            vals.push(x >> (x % 64));
        }
        for &a in &vals {
            for &b in &vals {
                let want = (a as i128 + (b as i128 - a as i128) / 8) as u64;
                assert_eq!(update_avg(a, b), want, "avg {a}, sample {b}");
            }
        }
    }

    #[test]
    fn no_overflow_at_extremes() {
        assert_eq!(update_idle_cpu_scan(u64::MAX, 1024, 1000), 0);
        assert_eq!(update_idle_cpu_scan(0, 1, 117), 1);
    }
}
