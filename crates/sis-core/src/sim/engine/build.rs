//! Building a Simulation from a Scenario: tasks, CPUs, the first timers and balances.

use super::*;

impl Simulation {
    pub fn new(scenario: &Scenario) -> Result<Self, InputError> {
        scenario.check()?;
        let features: Features = scenario.features()?;
        let topo = Topology::new(scenario.topology_spec())?;
        let n = topo.nr_cpus();
        let mut rng = Rng::new(scenario.seed);
        let llc0: Vec<u32> = topo.llc_span(0).iter().collect();
        let (specs, mask_lists) = crate::sim::workload::build(scenario, &llc0, &mut rng);
        let mut masks = vec![CpuMask::full(n)];
        for m in mask_lists.iter().skip(1) {
            masks.push(CpuMask::from_cpus(n, m.iter().copied()));
        }
        let mut st = SchedState::new(
            topo,
            features,
            scenario.imbalance_pct,
            scenario.probe_cost_ns,
        );
        st.pkg_imbalance_pct = crate::kernel::features::preset(&scenario.preset)
            .map(|p| p.pkg_imbalance_pct())
            .unwrap_or(117);
        st.nr_expr = scenario.nr_expr_rule();
        let groups: Vec<Vec<u64>> = (0..scenario.llcs)
            .map(|l| vec![scenario.llc_weight as u64; st.topo.llc_groups(l).len()])
            .collect();
        let timing = Timing::for_scenario(scenario);
        let tasks = specs.iter().map(|s: &TaskSpec| Task {
            next_queued: NONE,
            waker_cpu: NONE,
            picked_idle: false,
            rescan: None,
            jittered_burst_ns: match s.role {
                Role::Client { .. } => timing.client_ns,
                Role::Server { .. } => timing.server_ns,
                Role::Waker => timing.waker_run_ns,
                _ => 0,
            },
            role: s.role,
            affinity: s.affinity,
            state: TaskState::Sleeping,
            prev: s.start_cpu,
            recent_used_cpu: None,
            pelt: SchedAvg::settled(0, s.initial_util),
            remaining: 0,
            woken_at: u64::MAX,
            pending_msgs: 0,
            spin_ns: 0,
            spin_until: 0,
            futex_posted: false,
            in_fwait: false,
            msg_spin_next: false,
            in_tail: false,
            wake_pending: false,
            tail_timer: None,
            flips: WakeeFlips {
                last_wakee: NONE,
                ..WakeeFlips::default()
            },
            exec_start: 0,
            ran_since_sleep: 0,
            dur_avg: 0,
            last_dequeue_ns: 0,
            last_ran_ns: 0,
            avg_hot_dur: 0,
            vruntime: 0,
            vruntime_relative: false,
        });
        let tasks: Vec<Task> = tasks.collect();
        // Pinned hogs start with util 1024 on their CPU (the seed's table).
        for s in specs.iter().filter(|s| s.initial_util > 0) {
            st.rqs[s.start_cpu as usize].pelt = SchedAvg::settled(0, s.initial_util);
        }
        let nr_llcs = scenario.llcs as usize;
        // schbench: every worker starts in msg_and_wait(), on its message thread's list.
        let mut msg_lists = Vec::new();
        for (i, t) in tasks.iter().enumerate() {
            if let Role::Worker { messenger } = t.role {
                if msg_lists.is_empty() {
                    msg_lists = vec![Vec::new(); tasks.len()];
                }
                msg_lists[messenger as usize].push(i as u32);
            }
        }
        let mut sim = Simulation {
            msg_lists,
            scenario: scenario.clone(),
            machine: scenario.machine_spec(),
            cpus: (0..n)
                .map(|cpu| Cpu {
                    llc: st.topo.llc_of(cpu),
                    ..Cpu::default()
                })
                .collect(),
            all_unpinned: masks.iter().all(|m| m.weight() == n),
            timed_cpus: CpuMask::new(0),
            idle_changes: vec![[0; 2]; n as usize],
            idle_core_seen_at: vec![0; nr_llcs],
            cfs_runqueue: scenario.runqueue == crate::sim::scenario::Runqueue::Cfs,
            cfs: cfs::CfsTunables::for_cpus(n),
            newidle_migration_cost_gate: scenario.newidle_migration_cost_gate(),
            task_hot_ignores_smt: scenario.task_hot_ignores_smt(),
            max_newidle_lb_cost: scenario.llc_weight as u64 * scenario.probe_cost_ns,
            masks,
            events: EventQueue::new(),
            now: 0,
            rng,
            timing,
            counters: Counters::default(),
            hist: ScanHistogram::default(),
            latency: LatencyHistogram::default(),
            per_cpu: (0..n)
                .map(|cpu| PerCpu {
                    cpu,
                    ..Default::default()
                })
                .collect(),
            // An auto warm-up checks first at its minimum's floor, 100 ms; the window is the
            // duration less the scenario's warm-up (an auto one's minimum).
            warmup_ns: if scenario.warmup_auto() {
                crate::sim::scenario::WARMUP_AUTO_MIN_NS
            } else {
                scenario.warmup_ns()
            },
            recount_from_ns: None,
            counted_after_seq: 0,
            window_ns: scenario.duration_ns() - scenario.warmup_ns().min(scenario.duration_ns()),
            warmup_auto: scenario.warmup_auto(),
            warmup_settled: false,
            settle_hist: Vec::new(),
            llc_balances: vec![0; scenario.llcs as usize],
            tick_armed: false,
            measuring: !scenario.warmup_auto() && scenario.warmup_ns() == 0,
            measure_at: if !scenario.warmup_auto() && scenario.warmup_ns() == 0 {
                u64::MAX
            } else if scenario.warmup_auto() {
                Self::first_warmup_tick(crate::sim::scenario::WARMUP_AUTO_MIN_NS)
            } else {
                Self::first_warmup_tick(scenario.warmup_ns())
            },
            recording: false,
            decisions: VecDeque::with_capacity(DECISION_RING),
            decision_seq: 0,
            stepped_seq: 0,
            batch_end: 0,
            scratch_decision: Decision::default(),
            scans_in_flight: vec![Default::default(); nr_llcs],
            woke: false,
            nr_balance_failed: groups.iter().map(|g| vec![0; g.len()]).collect(),
            balance_interval_ms: groups,
            llc_load: vec![LlcLoad::default(); nr_llcs],
            waiting: CpuMask::new(n),
            tasks,
            st: {
                // Every CPU starts idle, from time 0 (0 means "not idle": the clock's 1 ns).
                for rq in st.rqs.iter_mut() {
                    rq.idle_stamp = 1;
                }
                // Every CPU starts empty; enqueue and block keep the mask (no SCHED_IDLE tasks
                // here, so it is exactly what choose_idle_cpu() accepts).
                st.idle_cpus = Some(CpuMask::full(n));
                // collision=timed walks select_idle_core()'s loop again where it ends, and
                // clears has_idle_cores there (timed.rs).
                st.defer_idle_cores_clear = scenario.collision == Collision::Timed;
                st
            },
        };
        for llc in 0..scenario.llcs {
            sim.llc_load[llc as usize].idle = scenario.llc_weight;
        }
        // All CPUs start idle: has_idle_cores as the idle loop would set it.
        for cpu in 0..n {
            sim.st.update_idle_core(cpu);
        }
        // First periodic balance at t=0 so nr_idle_scan reflects the start state (the seed's
        // corner case holds from the first wake-up); then each group at its own interval, from
        // a random phase within the busy interval (llc_weight ms * busy_factor), as on a machine
        // that has been up for a while: the groups' updates interleave instead of bunching at
        // start-up, so nr_idle_scan follows the LLC's util within a short run.
        let phase_ms = scenario.llc_weight as u64 * scenario.busy_factor() as u64;
        for llc in 0..scenario.llcs {
            sim.st.update_idle_cpu_scan(llc);
            let ng = sim.st.topo.llc_groups(llc).len() as u32;
            for g in 0..ng {
                let first = sim.rng.below(phase_ms * 1_000_000) + 1;
                sim.push(first, Event::Balance { llc, group: g });
            }
        }
        sim.arm_tick();
        for (i, s) in specs.iter().enumerate() {
            if let Some(t) = s.first_wake_ns {
                sim.tasks[i].wake_pending = true;
                sim.push(t, Event::Timer { task: i as u32 });
            }
        }
        Ok(sim)
    }
}
