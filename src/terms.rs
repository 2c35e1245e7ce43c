//! One-sentence explanations of kernel terms for tooltips, each naming where it comes from.
//! Feature, preset and workload help comes from sis-core's own tables.

use sis_core::kernel::features::FEATURES;
use sis_core::sim::scenario::WORKLOADS;

/// The UI's own terms and their explanations (a table: one lookup loop in the wasm, not a
/// comparison per term).
static TERMS: &[(&str, &str)] = &[
    ("nr_idle_scan", "How many CPUs select_idle_cpu() may probe, set at each periodic LLC load balance from the LLC's sum of cpu_util_cfs() (SIS_UTIL, Chen Yu; 6.0)."),
    ("llc_weight", "CPUs that share one last-level cache (the sd_llc domain's span weight); select_idle_cpu() scans only within it."),
    ("imbalance_pct", "The LLC domain's imbalance percentage (sd_init: 117 for SD_SHARE_PKG_RESOURCES): SIS_UTIL's curve reaches 0 at 100/imbalance_pct of capacity."),
    ("sum_util", "Sum of cpu_util_cfs() over the LLC's CPUs at the last periodic load balance; SIS_UTIL turns it into nr_idle_scan (SIS_UTIL v4, equations [1]-[4])."),
    ("has_idle_cores", "sd_llc_shared->has_idle_cores: set when a whole SMT core goes idle; while true, the scan looks for an idle core and is not throttled (select_idle_core, 4.9+)."),
    ("recent_used_cpu", "The CPU the task last woke up on before prev; select_idle_sibling() tries it when it shares the cache and is idle (Mel Gorman, 4.16)."),
    ("util_avg", "PELT's running-time average of a CPU, 0..1024; the bar height."),
    ("se_eff", "Search efficiency: 100 × wake-ups that found an idle CPU / runqueues scanned (Chen Yu's schedstat_parse.py over Mel Gorman's SIS schedstats)."),
    ("dom_eff", "Domain search efficiency: idle CPUs found by the LLC scan / runqueues probed by it (schedstat_parse.py)."),
    ("fast_rate", "Fast-path success: % of wake-ups placed by target / prev / recent_used_cpu without scanning the LLC (schedstat_parse.py)."),
    ("success_rate", "% of wake-ups that found an idle CPU at all (fast path or LLC scan) rather than falling back to target (schedstat_parse.py)."),
    ("scanned_per_wakeup", "Runqueues looked at per wake-up (sis_scanned / wake-ups): the cost of select_idle_sibling()."),
    ("migrations", "Wake-ups placed on a CPU other than the task's previous one."),
    ("wakeups", "Wake-up decisions counted since the warm-up ended."),
    ("messages", "The benchmark's own work done since the warm-up: netperf/tbench transactions, hackbench messages read (several a wake-up at overload). Its rate is what netperf and LKP's hackbench.throughput report."),
    ("select_idle_cpu", "select_idle_cpu(): walks the LLC with for_each_cpu_wrap() from the target, probing runqueues until one is idle or the budget nr runs out."),
    ("select_idle_sibling", "select_idle_sibling(): the fast checks (target, prev, recent_used_cpu), then the LLC scan."),
    ("scan_hist", "Time per select_idle_cpu() call in the bpftrace @usecs power-of-two buckets of the SIS_UTIL v4 patch; each probed runqueue costs probe_cost_ns."),
    ("nr", "The scan budget: select_idle_cpu() stops when --nr reaches 0 (SIS_PROP, or SIS_UTIL's nr_idle_scan)."),
    ("sis_prop_nr", "SIS_PROP's budget at the last wake-up that computed one: span × avg_idle / avg_scan_cost, at least 4 (Peter Zijlstra 4.13; kept by Mel Gorman's single-pass SIS)."),
    ("scan_cpu_pct", "select_idle_cpu's share of all CPU time (probes x probe cost). Seed 000: \"The time spent in select_idle_cpu() is visible to netperf\"."),
    ("lock_wait", "Band under a bar: a waker spinning for another CPU's runqueue lock in ttwu_queue (v5.19 core.c); from 6.0 an idle CPU's wakelist takes the wake-up instead (TTWU_QUEUE_IDLE). Seed 000 credits SIS_UTIL with \"-13% less rq lock contention\"."),
    ("idle_exit", "Band over a bar: the CPU leaving its idle state (exit latency from intel_idle or ACPI tables), plus the waker's IPI if the state does not poll, before the woken task runs."),
    ("machine", "A topology and what a wake-up costs on it (IPI, idle states, lock transfer, probe, cold start), cited in docs/machines.md. auto: the machine with this LLC, else seed 000's Xeon."),
    ("wire_us", "netperf/tbench: a reply's time on a NIC's wire before its softirq wakes the peer. 0 = loopback: the sender wakes the peer with WF_SYNC."),
    ("softirq_pct", "netperf/tbench on loopback: the share of each send's run spent in the NET_RX softirq on the sender's CPU. With CONFIG_IRQ_TIME_ACCOUNTING that time (and the wake-up's scan inside it) is busy but outside PELT's clock (v5.19 update_rq_clock_task()), so util_avg grows more slowly than the CPU is busy."),
    ("scanning", "Band under a bar: the CPU runs a wake-up's select_task_rq_fair scan in the waker's context (scan_cost=waker), time not spent running tasks."),
    ("missed_idle", "Idle CPUs of the LLC the task could use that the scan never reached: the price of throttling."),
    ("waker", "W: the CPU of the task doing the wake-up."),
    ("prev", "P: the CPU the wakee last ran on."),
    ("target", "T: where wake_affine() points the search (waker's or prev's CPU)."),
    ("wake_affine_weight", "WA_WEIGHT (fair.c wake_affine_weight(), 4.14+): the waker's CPU load, less a sync waker's own, plus the wakee's, times 100, against prev's load less the wakee's, times 100 + (imbalance_pct - 100) / 2; the lighter side becomes the target."),
    ("smt", "Hardware threads per core; SMT siblings are drawn side by side."),
    ("runqueue", "fifo: first come, first run, a 3 ms slice each. cfs: vruntime order, a sleeper's credit (place_entity), wake-up preemption (check_preempt_wakeup) and the tick's sched_slice, fair.c 4.4-6.5."),
    ("numbering", "contiguous: siblings adjacent; interleaved: sibling of cpu i is i + N/2 (most x86). It changes the for_each_cpu_wrap() order."),
    ("llcs", "Number of last-level caches (LLC domains); each has its own nr_idle_scan."),
    ("load", "Tasks (or pairs/groups, by workload) per CPU of the LLC, in percent: the SIS_UTIL v4 patch's 25%..200%."),
    ("seed", "PRNG seed: one seed gives one run, bit for bit."),
    ("speed", "Simulated microseconds per real millisecond while playing (capped so a frame stays under ~10 ms)."),
    ("preset", "A kernel era: a bundle of scheduler features plus that era's imbalance_pct."),
    ("workload", "What the tasks do between wake-ups."),
    ("predict", "Predict mode: before a decision is revealed, click the CPU you think select_idle_sibling() will pick."),
];

/// The tooltip for a term shown in the UI.
pub fn term(name: &str) -> String {
    let s = TERMS.iter().find(|t| t.0 == name).map_or("", |t| t.1);
    if !s.is_empty() {
        return s.to_string();
    }
    if let Some(f) = FEATURES.iter().find(|f| f.name == name) {
        return format!("{}: {}", f.name, f.help);
    }
    if let Some(p) = sis_core::presets().iter().find(|p| p.name == name) {
        return format!("{}: {}", p.name, p.description);
    }
    if let Some(w) = WORKLOADS.iter().find(|w| w.0 == name) {
        return format!("{}: {}", w.0, w.2);
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ui_term_has_help() {
        for t in [
            "nr_idle_scan",
            "llc_weight",
            "imbalance_pct",
            "sum_util",
            "has_idle_cores",
            "recent_used_cpu",
            "util_avg",
            "scanning",
            "lock_wait",
            "idle_exit",
            "machine",
            "wire_us",
            "softirq_pct",
            "runqueue",
            "scan_cpu_pct",
            "messages",
            "se_eff",
            "SIS_UTIL",
            "linux-6.0",
            "netperf",
        ] {
            assert!(!term(t).is_empty(), "{t}");
        }
        assert!(term("nope").is_empty());
    }
}
