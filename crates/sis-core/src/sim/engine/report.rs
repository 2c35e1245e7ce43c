//! What a run reports: per-CPU results, the CPU views the app draws, the RunReport.

use super::*;

/// Per-CPU results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerCpu {
    pub cpu: u32,
    pub placed: u64,
    pub found_by_scan: u64,
    pub util_avg: u32,
}

/// What a CPU looks like now, for drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuView {
    pub cpu: u32,
    pub state: CpuState,
    pub util_avg: u32,
    pub nr_running: u32,
    pub running_task: Option<u32>,
    /// Spending this instant in a wake-up's select_task_rq_fair scan (scan_cost=waker only).
    pub scanning: bool,
    /// A waker on it spins for a remote runqueue's lock (ttwu_queue), this instant.
    pub lock_wait: bool,
    /// Coming out of an idle state (and its IPI) before the woken task runs, this instant.
    pub idle_exit: bool,
}

/// The histogram as reported (labels included so the JSON reads like the seed's `@usecs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistogramReport {
    pub unit: String,
    pub labels: Vec<String>,
    pub buckets: Vec<u64>,
}

/// The result of a run (`sis run --format json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub scenario: Scenario,
    pub sim_time_ns: u64,
    pub wakeups: u64,
    pub migrations: u64,
    pub counters: Counters,
    pub metrics: Metrics,
    pub nr_idle_scan: Vec<u32>,
    pub per_cpu: Vec<PerCpu>,
    pub scan_histogram: HistogramReport,
    /// Throughput and wake-up latency of the measured window (seed 000 reports both).
    #[serde(default)]
    pub throughput: ThroughputReport,
    /// How long the warm-up was and whether PELT and nr_idle_scan had settled.
    #[serde(default)]
    pub warmup: super::WarmupReport,
    /// The share of CPU time not idle in the measured window, scanning and lock spinning
    /// included (seed 001: vanilla about 90% busy at 224 threads, SIS_UTIL about 100%), %.
    #[serde(default)]
    pub cpu_busy_pct: f64,
}

/// What the seeds' benchmarks report beside the schedstat counters, in integers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThroughputReport {
    /// Wake-ups per simulated second (a netperf TCP_RR transaction is two wake-ups).
    pub wakeups_per_s: u64,
    /// The benchmark's throughput: `counters.messages` per simulated second (netperf/tbench
    /// transactions, hackbench messages read; 0 for the other workloads).
    #[serde(default)]
    pub messages_per_s: u64,
    /// Wake-up latency (woken -> running) percentiles, ns: each the upper bound of its
    /// log-linear bucket (within 12.5%), never above the maximum.
    pub latency_p50_ns: u64,
    pub latency_p90_ns: u64,
    pub latency_p99_ns: u64,
    pub latency_max_ns: u64,
}

impl RunReport {
    /// select_idle_cpu's time as a share of all CPU time in the measured window, %.
    pub fn scan_cpu_pct(&self) -> f64 {
        let cpus = u64::from(self.scenario.llcs) * u64::from(self.scenario.llc_weight);
        crate::kernel::stats::scan_cpu_pct(self.counters.scan_time_ns, cpus, self.sim_time_ns)
    }
}

impl Simulation {
    /// The CPU now (util_avg decayed/accumulated to the current time, without mutating).
    pub fn cpu_view(&self, cpu: u32) -> CpuView {
        let rq = &self.st.rqs[cpu as usize];
        let mut pelt = rq.pelt;
        pelt.update(self.now, self.cpus[cpu as usize].curr.is_some());
        CpuView {
            cpu,
            state: rq.state(),
            util_avg: pelt.util_avg,
            nr_running: rq.nr_running,
            running_task: self.cpus[cpu as usize].curr,
            scanning: self.now < self.cpus[cpu as usize].scan_until,
            lock_wait: self.now < self.cpus[cpu as usize].lock_wait_until,
            idle_exit: self.now < self.cpus[cpu as usize].idle_exit_until,
        }
    }

    /// The LLC's sum of `cpu_util_cfs()` now (what the next periodic balance would see):
    /// util_avg brought up to now, max'd with util_est where the preset has UTIL_EST.
    pub fn llc_sum_util_now(&self, llc: u32) -> u64 {
        let util_est = self.st.features.util_est;
        self.st
            .topo
            .llc_span(llc)
            .iter()
            .map(|c| {
                let mut pelt = self.st.rqs[c as usize].pelt;
                pelt.update(self.now, self.cpus[c as usize].curr.is_some());
                crate::kernel::util_est::cpu_util_cfs(
                    pelt.util_avg,
                    pelt.util_est.enqueued,
                    util_est,
                    crate::kernel::throttle::SCHED_CAPACITY_SCALE as u32,
                ) as u64
            })
            .sum()
    }

    pub fn per_cpu(&self) -> Vec<PerCpu> {
        self.per_cpu
            .iter()
            .map(|p| PerCpu {
                util_avg: self.cpu_view(p.cpu).util_avg,
                ..*p
            })
            .collect()
    }

    /// Runs to the scenario's duration and reports.
    pub fn run_to_end(&mut self) -> RunReport {
        // An auto warm-up that extends moves the end out while the run steps towards it.
        loop {
            let end = self.end_ns();
            self.step_until(end);
            if self.end_ns() <= end {
                break;
            }
        }
        self.report()
    }

    /// [`Simulation::run_to_end`] that calls `progress(now_ns, end_ns)` after each `slice_ns`
    /// of measured simulated time (the CLI's progress bar), with the same report.
    pub fn run_to_end_with(
        &mut self,
        slice_ns: u64,
        mut progress: impl FnMut(u64, u64),
    ) -> RunReport {
        self.run_in_slices(slice_ns, |sim| progress(sim.now, sim.end_ns()))
    }

    /// Runs to the end, calling `at_slice_end` after each `slice_ns` of the measured window
    /// (counted from its start; the last slice may be shorter). The warm-up runs event by
    /// event (a slice's end would move its 50 ms samples, which are taken at the first event
    /// after each), and once counting has started a slice's end changes nothing, so the
    /// report is [`Simulation::run_to_end`]'s.
    pub(super) fn run_in_slices(
        &mut self,
        slice_ns: u64,
        mut at_slice_end: impl FnMut(&Self),
    ) -> RunReport {
        while !self.measuring {
            let Some((t, ev)) = self.events.pop_until(self.end_ns()) else {
                // No event left before the end: nothing to slice.
                return self.run_to_end();
            };
            self.process(t, ev);
        }
        let mut at = self.count_from_ns();
        while self.now < self.end_ns() {
            at = at.saturating_add(slice_ns.max(1)).min(self.end_ns());
            self.step_until(at);
            at_slice_end(self);
        }
        self.report()
    }

    pub fn report(&self) -> RunReport {
        let mut counters = self.counters;
        counters.wasted_ns += self.pending_wasted();
        counters.idle_ns += self.pending_idle();
        let cpus = self.cpus.len() as u64;
        RunReport {
            cpu_busy_pct: crate::kernel::stats::cpu_busy_pct(
                counters.idle_ns,
                cpus,
                self.measured_ns(),
            ),
            scenario: self.scenario.clone(),
            sim_time_ns: self.measured_ns(),
            wakeups: counters.wakeups,
            migrations: counters.migrations,
            metrics: counters.metrics(),
            counters,
            nr_idle_scan: self.st.llcs.iter().map(|l| l.nr_idle_scan).collect(),
            per_cpu: self.per_cpu(),
            scan_histogram: HistogramReport {
                unit: "usecs".into(),
                labels: (0..self.hist.buckets.len())
                    .map(ScanHistogram::label)
                    .collect(),
                buckets: self.hist.buckets.clone(),
            },
            throughput: self.throughput(counters.wakeups, counters.messages),
            warmup: self.warmup_report(),
        }
    }

    /// The idle time of the CPUs idle now, in the measured window, ns.
    pub(super) fn pending_idle(&self) -> u64 {
        if !self.measuring {
            return 0;
        }
        let from = self.count_from_ns();
        self.st
            .rqs
            .iter()
            .filter(|rq| rq.nr_running == 0 && rq.idle_stamp != 0)
            .map(|rq| self.now.saturating_sub(rq.idle_stamp.max(from)))
            .sum()
    }

    fn throughput(&self, wakeups: u64, messages: u64) -> ThroughputReport {
        let window_ns = self.measured_ns();
        let per_s = |n: u64| match window_ns {
            0 => 0,
            ns => (n as u128 * 1_000_000_000 / ns as u128) as u64,
        };
        ThroughputReport {
            wakeups_per_s: per_s(wakeups),
            messages_per_s: per_s(messages),
            latency_p50_ns: self.latency.percentile_ns(500),
            latency_p90_ns: self.latency.percentile_ns(900),
            latency_p99_ns: self.latency.percentile_ns(990),
            latency_max_ns: self.latency.percentile_ns(1000),
        }
    }

    pub(super) fn start_measuring(&mut self) {
        self.measuring = true;
        self.measure_at = u64::MAX;
        self.counted_after_seq = self.decision_seq;
        self.counters = Counters::default();
        self.hist = ScanHistogram::default();
        self.latency = LatencyHistogram::default();
        for p in &mut self.per_cpu {
            p.placed = 0;
            p.found_by_scan = 0;
        }
        for l in &mut self.llc_load {
            l.wasted_at = self.now;
        }
    }
}
