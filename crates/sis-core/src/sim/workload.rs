//! Workloads as task behaviours: what a task does when its run ends.

use crate::sim::rng::Rng;
use crate::sim::scenario::{Scenario, WorkloadKind};

/// What a task does at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// netperf/tbench client: wakes its server (sync) and blocks.
    Client { server: u32 },
    /// netperf/tbench server: wakes its client (sync) and blocks.
    Server { client: u32 },
    /// hackbench sender: wakes every receiver of its group, then sleeps `think`.
    Sender { first_receiver: u32, receivers: u32 },
    /// hackbench receiver: drains its messages and blocks.
    Receiver,
    /// schbench message thread (schbench.c `run_msg_thread`, 2eef447, Dec 2021): wakes every
    /// worker on its list, waits for a worker's post, spins `message_ns` (wall clock), then
    /// sleeps `period_ns` plus up to a quarter of it.
    Messenger { first_worker: u32, workers: u32 },
    /// schbench worker (`worker_thread`): spins `worker_ns` (wall clock) when woken, then
    /// joins its message thread's list, posts it and waits (`msg_and_wait`).
    Worker { messenger: u32 },
    /// uniform task: exponential run, exponential sleep.
    Uniform,
    /// pinned CPU hog: runs forever.
    Hog,
    /// pinned corner case's waker: short run, timer sleep.
    Waker,
}

/// netperf instances start one after another. The seeds' netperf runs are LKP's netperf test
/// (seed 000's command line is its `log_eval` line), which launches them in a shell loop:
/// lkp-tests tests/netperf (2022, fe3074a7), `for i in $(seq $nr_threads) do log_eval "netperf
/// ... &" done`. One turn of such a loop (bash forking a job, 224 times) measured 0.58 ms on
/// the project's VM. All at once instead, every pair's first request lands on a busy machine
/// from 150% load on and linux-5.19 starts collapsed (guide: where the model differs).
pub const NETPERF_LAUNCH_GAP_NS: u64 = 580_000;

/// A task's static description.
#[derive(Clone, Debug)]
pub struct TaskSpec {
    pub role: Role,
    /// Index into the engine's affinity masks (0 = every CPU).
    pub affinity: u32,
    /// CPU the task starts on (its first prev).
    pub start_cpu: u32,
    /// Initial wake time, ns (None = starts blocked until woken by a partner).
    pub first_wake_ns: Option<u64>,
    /// Initial util_avg (the pinned case starts at 1024).
    pub initial_util: u32,
}

/// Timing parameters of a workload, ns.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// netperf/tbench: time a reply spends on the wire before its non-sync wake-up from the
    /// receiving CPU's softirq (the scenario's `wire_us`; 0 = loopback: a sync wake-up from
    /// the sender's context).
    pub wire_ns: u64,
    /// netperf/tbench on loopback: percent of each send's run in the softirq, kept out of
    /// PELT (the scenario's `softirq_pct`).
    pub softirq_pct: u32,
    /// netperf/tbench: the sender's syscall tail after its sync wake-up of the server (0: it
    /// blocks at once, as WF_SYNC assumes; netperf's client time includes its send).
    pub tail_ns: u64,
    pub client_ns: u64,
    pub server_ns: u64,
    pub msg_ns: u64,
    pub think_ns: u64,
    pub worker_ns: u64,
    pub period_ns: u64,
    /// schbench: the message thread's spin after a worker's post (its message_cputime).
    pub message_ns: u64,
    pub uniform_run_ns: u64,
    pub uniform_sleep_ns: u64,
    pub waker_run_ns: u64,
    pub waker_sleep_ns: u64,
}

impl Timing {
    pub fn for_scenario(sc: &Scenario) -> Timing {
        let svc = sc.service_us as u64 * 1000;
        let or = |d: u64| if svc > 0 { svc } else { d };
        let t = Self::for_workload(sc, or);
        Timing {
            wire_ns: sc.wire_us as u64 * 1000,
            softirq_pct: sc.softirq_pct,
            ..t
        }
    }

    fn for_workload(sc: &Scenario, or: impl Fn(u64) -> u64) -> Timing {
        match sc.workload {
            WorkloadKind::Tbench => Timing {
                client_ns: 20_000,
                server_ns: or(50_000),
                ..Self::base()
            },
            WorkloadKind::Netperf => Timing {
                client_ns: 10_000,
                server_ns: or(20_000),
                tail_ns: 0,
                ..Self::base()
            },
            WorkloadKind::Hackbench => Timing {
                msg_ns: or(2_000),
                ..Self::base()
            },
            // Seed 000 ran `schbench -m $job -t 28 -r 100 -s 30000 -c 30000`: each worker
            // spins 30 ms per message (-c), the message thread sleeps 30 ms (-s) and spins
            // message_cputime, 30 ms (schbench.c 2eef447: its -C never takes effect,
            // `message_cputime = message_cputime;`, so the default stands).
            WorkloadKind::Schbench => Timing {
                worker_ns: or(30_000_000),
                period_ns: 30_000_000,
                message_ns: 30_000_000,
                ..Self::base()
            },
            WorkloadKind::Uniform => Timing {
                uniform_run_ns: or(1_000_000),
                uniform_sleep_ns: or(1_000_000),
                ..Self::base()
            },
            WorkloadKind::Pinned => Timing {
                waker_run_ns: or(200_000),
                ..Self::base()
            },
        }
    }

    fn base() -> Timing {
        Timing {
            wire_ns: 0,
            softirq_pct: 0,
            tail_ns: 2_000,
            client_ns: 8_000,
            server_ns: 10_000,
            msg_ns: 2_000,
            think_ns: 20_000,
            worker_ns: 2_000_000,
            period_ns: 4_000_000,
            message_ns: 0,
            uniform_run_ns: 1_000_000,
            uniform_sleep_ns: 1_000_000,
            waker_run_ns: 200_000,
            waker_sleep_ns: 2_000_000,
        }
    }
}

/// hackbench's group size and schbench's workers per message thread, as in the seed ("each
/// group has 28 tasks", `schbench -t 28`).
pub const GROUP_TASKS: u32 = 28;

/// Builds the tasks of a scenario and the affinity masks they use (as CPU lists; mask 0 = all).
pub fn build(sc: &Scenario, llc0_cpus: &[u32], rng: &mut Rng) -> (Vec<TaskSpec>, Vec<Vec<u32>>) {
    let nr_cpus = sc.nr_cpus();
    // Units of load: tasks (or pairs/groups) per CPU, percent.
    let units = |per: u32| -> u32 {
        if sc.tasks > 0 {
            (sc.tasks / per).max(1)
        } else {
            ((sc.load as u64 * nr_cpus as u64 / 100) as u32 / per).max(if sc.load > 0 {
                1
            } else {
                0
            })
        }
    };
    let mut tasks = Vec::new();
    let mut masks: Vec<Vec<u32>> = vec![Vec::new()];
    let spread = |i: u32| i % nr_cpus;
    let first = |rng: &mut Rng| Some(rng.below(1_000_000));
    match sc.workload {
        WorkloadKind::Netperf | WorkloadKind::Tbench => {
            // load = netperf instances (client/server pairs) per CPU, as in the seed's tables.
            let pairs = if sc.tasks > 0 {
                (sc.tasks / 2).max(1)
            } else {
                units(1)
            };
            for i in 0..pairs {
                let c = 2 * i;
                tasks.push(TaskSpec {
                    role: Role::Client { server: c + 1 },
                    affinity: 0,
                    start_cpu: spread(i),
                    first_wake_ns: match sc.workload {
                        // One instance after another, as the seeds' harness launches them.
                        WorkloadKind::Netperf => {
                            first(rng).map(|t| t + i as u64 * NETPERF_LAUNCH_GAP_NS)
                        }
                        _ => first(rng),
                    },
                    initial_util: 0,
                });
                tasks.push(TaskSpec {
                    role: Role::Server { client: c },
                    affinity: 0,
                    start_cpu: spread(i + pairs),
                    first_wake_ns: None,
                    initial_util: 0,
                });
            }
        }
        WorkloadKind::Hackbench | WorkloadKind::Schbench => {
            let groups = units(GROUP_TASKS);
            for g in 0..groups {
                let base = g * GROUP_TASKS;
                if sc.workload == WorkloadKind::Hackbench {
                    let half = GROUP_TASKS / 2;
                    for k in 0..half {
                        tasks.push(TaskSpec {
                            role: Role::Sender {
                                first_receiver: base + half,
                                receivers: half,
                            },
                            affinity: 0,
                            start_cpu: spread(base + k),
                            first_wake_ns: first(rng),
                            initial_util: 0,
                        });
                    }
                    for k in 0..half {
                        tasks.push(TaskSpec {
                            role: Role::Receiver,
                            affinity: 0,
                            start_cpu: spread(base + half + k),
                            first_wake_ns: None,
                            initial_util: 0,
                        });
                    }
                } else {
                    // `-t 28`: 28 workers per message thread (the seed's "mthread-n has 1/4 *
                    // n * 112 tasks" counts the workers).
                    let messenger = tasks.len() as u32;
                    tasks.push(TaskSpec {
                        role: Role::Messenger {
                            first_worker: messenger + 1,
                            workers: GROUP_TASKS,
                        },
                        affinity: 0,
                        start_cpu: spread(messenger),
                        first_wake_ns: first(rng),
                        initial_util: 0,
                    });
                    for k in 1..=GROUP_TASKS {
                        tasks.push(TaskSpec {
                            role: Role::Worker { messenger },
                            affinity: 0,
                            start_cpu: spread(messenger + k),
                            first_wake_ns: None,
                            initial_util: 0,
                        });
                    }
                }
            }
        }
        WorkloadKind::Uniform => {
            for i in 0..units(1) {
                tasks.push(TaskSpec {
                    role: Role::Uniform,
                    affinity: 0,
                    start_cpu: spread(i),
                    first_wake_ns: first(rng),
                    initial_util: 0,
                });
            }
        }
        WorkloadKind::Pinned => {
            // Seed 000/001: hogs bound to CPU0..W-2 of LLC 0 at util 1024, the last CPU idle.
            let w = llc0_cpus.len();
            let hogs = w.saturating_sub(1);
            for &cpu in &llc0_cpus[..hogs] {
                masks.push(vec![cpu]);
                tasks.push(TaskSpec {
                    role: Role::Hog,
                    affinity: masks.len() as u32 - 1,
                    start_cpu: cpu,
                    first_wake_ns: Some(0),
                    initial_util: 1024,
                });
            }
            masks.push(llc0_cpus.to_vec());
            let llc_mask = masks.len() as u32 - 1;
            // Wakers that want a CPU: load% of one per hog (at least one), starting on the
            // hogs' CPUs in turn, so every hog CPU is somebody's prev.
            let wakers = if sc.tasks > 0 {
                sc.tasks
            } else {
                (sc.load as usize * hogs / 100).max(1) as u32
            };
            for i in 0..wakers {
                let start = llc0_cpus[(i as usize) % hogs.max(1)];
                tasks.push(TaskSpec {
                    role: Role::Waker,
                    affinity: llc_mask,
                    start_cpu: start,
                    first_wake_ns: Some(1_000_000 + rng.below(1_000_000)),
                    initial_util: 0,
                });
            }
        }
    }
    (tasks, masks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(pairs: &[(&str, &str)]) -> (Vec<TaskSpec>, Vec<Vec<u32>>) {
        let sc = Scenario::from_pairs(pairs.iter().copied()).unwrap();
        let llc0: Vec<u32> = (0..sc.llc_weight).collect();
        build(&sc, &llc0, &mut Rng::new(sc.seed))
    }

    #[test]
    fn netperf_load_is_client_server_pairs_per_cpu() {
        // Seed 000: 224 threads on 112 CPUs is "200%": one pair per CPU at 100%.
        let (t, masks) = built(&[("llc_weight", "112"), ("smt", "2"), ("load", "200")]);
        assert_eq!(t.len(), 2 * 224);
        assert_eq!(masks.len(), 1, "nothing pinned");
        for (i, pair) in t.chunks(2).enumerate() {
            let c = 2 * i as u32;
            assert_eq!(pair[0].role, Role::Client { server: c + 1 });
            assert_eq!(pair[1].role, Role::Server { client: c });
            assert!(pair[0].first_wake_ns.is_some() && pair[1].first_wake_ns.is_none());
        }
    }

    #[test]
    fn netperf_instances_start_one_after_another_as_lkp_launches_them() {
        // Instance i's first request: its launch, i turns of the shell loop in, plus up to 1 ms.
        let (t, _) = built(&[("llc_weight", "112"), ("smt", "2"), ("load", "200")]);
        for (i, pair) in t.chunks(2).enumerate() {
            let at = pair[0].first_wake_ns.unwrap();
            let launch = i as u64 * NETPERF_LAUNCH_GAP_NS;
            assert!(
                (launch..launch + 1_000_000).contains(&at),
                "instance {i}: {at}"
            );
        }
        // tbench's clients are not launched by a loop of the harness: all within the first ms.
        let (t, _) = built(&[
            ("llc_weight", "112"),
            ("workload", "tbench"),
            ("load", "200"),
        ]);
        assert!(t
            .iter()
            .filter_map(|s| s.first_wake_ns)
            .all(|at| at < 1_000_000));
    }

    #[test]
    fn hackbench_groups_of_28_each_sender_wakes_its_group() {
        // 16 CPUs at 350% = 56 tasks = 2 groups of 28: 14 senders, 14 receivers each.
        let (t, _) = built(&[
            ("llc_weight", "16"),
            ("load", "350"),
            ("workload", "hackbench"),
        ]);
        assert_eq!(t.len(), 2 * GROUP_TASKS as usize);
        for g in 0..2u32 {
            let base = g * GROUP_TASKS;
            for k in 0..14 {
                assert_eq!(
                    t[(base + k) as usize].role,
                    Role::Sender {
                        first_receiver: base + 14,
                        receivers: 14
                    }
                );
                assert_eq!(t[(base + 14 + k) as usize].role, Role::Receiver);
            }
        }
    }

    #[test]
    fn pinned_is_the_seeds_corner_case() {
        // Seed 000/001: hogs bound to CPU0..6 of an 8-CPU LLC at util 1024, CPU7 left idle,
        // wakers allowed on the whole LLC.
        let (t, masks) = built(&[("llc_weight", "8"), ("smt", "1"), ("workload", "pinned")]);
        let hogs: Vec<&TaskSpec> = t.iter().filter(|s| s.role == Role::Hog).collect();
        assert_eq!(hogs.len(), 7);
        for (cpu, h) in hogs.iter().enumerate() {
            assert_eq!((h.start_cpu, h.initial_util), (cpu as u32, 1024));
            assert_eq!(masks[h.affinity as usize], vec![cpu as u32]);
        }
        let wakers: Vec<&TaskSpec> = t.iter().filter(|s| s.role == Role::Waker).collect();
        assert!(!wakers.is_empty());
        for w in wakers {
            assert_eq!(masks[w.affinity as usize], (0..8).collect::<Vec<u32>>());
            assert!(w.start_cpu < 7, "a waker starts on a hog's CPU");
        }
    }

    #[test]
    fn an_explicit_task_count_overrides_the_load() {
        let (t, _) = built(&[
            ("llc_weight", "16"),
            ("load", "200"),
            ("tasks", "10"),
            ("workload", "uniform"),
        ]);
        assert_eq!(t.len(), 10);
        let (t, _) = built(&[("llc_weight", "16"), ("load", "0"), ("workload", "uniform")]);
        assert!(t.is_empty(), "0% load: no task");
    }
}
