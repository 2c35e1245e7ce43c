//! Wake-ups of the real-time and deadline classes. The kernel places them with their own
//! class's select_task_rq, not select_task_rq_fair: linux-4.4..6.x rt.c `select_task_rq_rt()`
//! and `find_lowest_rq()`, deadline.c `select_task_rq_dl()` and `find_later_rq()`.

use super::rebuild::{Rebuild, Task};
use crate::kernel::cpumask::CpuMask;
use crate::kernel::pelt::prio_to_weight;
use crate::kernel::topology::Topology;

/// linux-6.0 prio.h `MAX_RT_PRIO`: prio 0..=99 is real-time, below 0 deadline.
pub const MAX_RT_PRIO: i32 = 100;

/// A task's scheduling class, as a trace shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskClass {
    Fair,
    Rt,
    Dl,
    /// The per-CPU `migration/N` threads (stop_machine.c `cpu_stop_init` ->
    /// `sched_set_stop_task`); the tracepoints print them as RT prio 0.
    Stop,
}

/// The class of a task of kernel prio `prio` (`p->prio`, as sched_switch and sched_wakeup
/// print it) named `comm`.
pub fn class_of(prio: i32, comm: &str) -> TaskClass {
    if comm.starts_with("migration/") {
        TaskClass::Stop
    } else if prio < 0 {
        TaskClass::Dl
    } else if prio < MAX_RT_PRIO {
        TaskClass::Rt
    } else {
        TaskClass::Fair
    }
}

/// What select_task_rq_rt or select_task_rq_dl reads of the machine, taken at the wake-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassWake {
    /// Rt or Dl.
    pub class: TaskClass,
    /// The wakee may run on one CPU only (a per-CPU kthread): `if (task->nr_cpus_allowed
    /// == 1) return -1;` in find_lowest_rq and find_later_rq.
    pub bound: bool,
    /// rt.c: `test = curr && rt_task(curr) && (curr->nr_cpus_allowed < 2 || curr->prio <=
    /// p->prio)` for prev's current task. deadline.c: prev runs a deadline task; whether the
    /// wakee's deadline is earlier is not in a trace, so it is taken as not (an inference).
    pub test: bool,
    /// RT: cpupri_find()'s lowest_mask, the CPUs at the lowest cpupri level below the
    /// wakee's. DL: cpudl's free_cpus, the CPUs running no deadline task. None: empty.
    pub lowest: Option<CpuMask>,
}

/// The cpupri level of a CPU whose highest queued RT prio is `rt_prio` (None: no RT task).
/// linux-4.4 cpupri.c convert_prio(): RT prio p is `MAX_RT_PRIO - p + 1`, a CPU without RT
/// tasks CPUPRI_NORMAL (1); CPUPRI_IDLE is never set (nothing passes MAX_PRIO), so an idle
/// CPU and one running a fair task are the same level. 5.13 renumbered, same order.
pub fn cpupri_level(rt_prio: Option<i32>) -> i32 {
    match rt_prio {
        None => 1,
        Some(p) => MAX_RT_PRIO - p + 1,
    }
}

impl ClassWake {
    /// The CPU this class's select_task_rq returns. `distribute`: the waker CPU's
    /// `distribute_cpu_mask_prev` where find_lowest_rq uses cpumask_any_and_distribute()
    /// (rt.c since 5.11, 14e292f8d453); None: cpumask_first_and() (4.x-5.10, and
    /// find_later_rq in every era).
    pub fn select(
        &self,
        topo: &Topology,
        prev: u32,
        waker_cpu: u32,
        distribute: Option<&mut u32>,
    ) -> u32 {
        if !self.test || self.bound {
            return prev;
        }
        let Some(lowest) = &self.lowest else {
            return prev;
        };
        // The target always runs no task of the wakee's priority or above (it is in
        // lowest_mask), so `p->prio < cpu_rq(target)->rt.highest_prio.curr` holds, as does
        // deadline.c's `cpu_rq(target)->dl.dl_nr_running == 0`.
        find_lowest(topo, prev, waker_cpu, lowest, distribute)
    }
}

/// find_lowest_rq() / find_later_rq() once the mask is known: prev if it is in the mask;
/// else, for each of prev's SD_WAKE_AFFINE domains from the smallest (SMT, cluster, LLC,
/// node, machine), the waker's CPU if it is in the mask and the domain, else the mask's
/// first (or distributed) CPU in the domain.
pub fn find_lowest(
    topo: &Topology,
    prev: u32,
    waker_cpu: u32,
    lowest: &CpuMask,
    mut distribute: Option<&mut u32>,
) -> u32 {
    if lowest.test(prev) {
        return prev;
    }
    // if (!cpumask_test_cpu(this_cpu, lowest_mask)) this_cpu = -1;
    let this = lowest.test(waker_cpu).then_some(waker_cpu);
    let n = topo.nr_cpus();
    let node_of = |c: u32| topo.node_of_llc(topo.llc_of(c));
    let levels: [&dyn Fn(u32) -> bool; 5] = [
        &|c| topo.smt() > 1 && topo.core_of(c) == topo.core_of(prev),
        &|c| topo.has_clusters() && topo.cluster_of(c) == topo.cluster_of(prev),
        &|c| topo.share_llc(c, prev),
        &|c| node_of(c) == node_of(prev),
        &|_| true,
    ];
    for in_span in levels {
        if !(0..n).any(in_span) {
            continue; // no such level on this machine
        }
        if let Some(t) = this.filter(|t| in_span(*t)) {
            return t;
        }
        let pick = match distribute.as_deref_mut() {
            // lib/cpumask.c cpumask_any_and_distribute: the first after this CPU's last pick.
            Some(cursor) => {
                let start = *cursor + 1;
                let found = (0..n)
                    .map(|i| (start + i) % n)
                    .find(|c| lowest.test(*c) && in_span(*c));
                if let Some(c) = found {
                    *cursor = c;
                }
                found
            }
            None => lowest.iter().find(|c| in_span(*c)),
        };
        if let Some(c) = pick {
            return c;
        }
    }
    this.unwrap_or(prev)
}

/// The CPU a per-CPU kthread is bound to, from its comm (`kworker/3:1H`, `ksoftirqd/3`).
pub fn pinned_cpu(comm: &str) -> Option<u32> {
    let (name, rest) = comm.split_once('/')?;
    const PER_CPU: [&str; 8] = [
        "kworker",
        "ksoftirqd",
        "migration",
        "watchdog",
        "cpuhp",
        "rcuc",
        "idle_inject",
        "posixcputmr",
    ];
    if !PER_CPU.contains(&name) {
        return None;
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 5 {
        return None; // kworker/u16:2 is unbound
    }
    let after = &rest[digits..];
    if !(after.is_empty() || after.starts_with(':')) {
        return None;
    }
    rest[..digits].parse().ok()
}

impl Task {
    pub(crate) fn class(&self) -> TaskClass {
        if self.stop {
            TaskClass::Stop
        } else {
            class_of(self.prio, "")
        }
    }
}

impl Rebuild {
    /// What a trace line says of a task: its prio and, from its comm, whether it is bound
    /// to one CPU or a stop task.
    pub(crate) fn note_task(&mut self, pid: u32, prio: Option<i32>, comm: &str) {
        if pid == 0 {
            return;
        }
        let now = self.now;
        let t = self.task(pid);
        if let Some(p) = prio {
            if t.fresh {
                // As the kernel starts a new task: at its own weight.
                t.load = super::load::TaskLoad::new_task(now, prio_to_weight(p), t.created);
            }
            t.prio = p;
        }
        t.fresh = false;
        // Its comm, once: whether it is a per-CPU kthread or a stop task.
        if !t.named && !comm.is_empty() {
            t.named = true;
            t.bound = pinned_cpu(comm).is_some();
            t.stop = class_of(t.prio, comm) == TaskClass::Stop;
        }
    }

    /// What select_task_rq_rt or _dl reads at a wake-up of a `class` task of prio `prio`.
    pub(crate) fn class_wake(
        &mut self,
        class: TaskClass,
        prio: i32,
        bound: bool,
        prev: u32,
    ) -> ClassWake {
        let n = self.topo.nr_cpus();
        // Per CPU: its highest RT prio (cpupri) and whether a deadline task is runnable.
        let mut level = Vec::with_capacity(n as usize);
        let mut has_dl = Vec::with_capacity(n as usize);
        for c in 0..n {
            let (mut rt, mut dl) = (None::<i32>, false);
            for p in self.cpus[c as usize].runnable() {
                if let Some(t) = self.tasks.get(&p) {
                    match t.class() {
                        TaskClass::Rt => rt = Some(rt.map_or(t.prio, |r| r.min(t.prio))),
                        TaskClass::Dl => dl = true,
                        _ => {}
                    }
                }
            }
            level.push(cpupri_level(rt));
            has_dl.push(dl);
        }
        let curr = self.cpus[prev as usize]
            .curr
            .filter(|p| *p != 0)
            .and_then(|p| self.tasks.get(&p));
        let (test, lowest) = if class == TaskClass::Rt {
            // rt_task(curr): prio below MAX_RT_PRIO, so deadline and stop tasks too.
            let test = curr.is_some_and(|c| {
                (c.stop || c.prio < super::classes::MAX_RT_PRIO)
                    && (c.bound || c.stop || c.prio <= prio)
            });
            // cpupri_find(): the lowest level below the wakee's that has a CPU.
            let task_pri = cpupri_level(Some(prio));
            let min = level.iter().copied().min().unwrap_or(task_pri);
            let lowest = (min < task_pri)
                .then(|| CpuMask::from_cpus(n, (0..n).filter(|c| level[*c as usize] == min)));
            (test, lowest)
        } else {
            let test = curr.is_some_and(|c| c.class() == TaskClass::Dl);
            if test {
                self.counts.dl_deadline_inferred += 1;
            }
            // cpudl_find(): the CPUs running no deadline task (free_cpus).
            let free = CpuMask::from_cpus(n, (0..n).filter(|c| !has_dl[*c as usize]));
            (test, (!free.is_empty()).then_some(free))
        };
        ClassWake {
            class,
            bound,
            test,
            lowest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_cpu_kthreads_are_pinned() {
        assert_eq!(pinned_cpu("kworker/4:1H"), Some(4));
        assert_eq!(pinned_cpu("ksoftirqd/12"), Some(12));
        assert_eq!(pinned_cpu("kworker/u16:2"), None);
        assert_eq!(pinned_cpu("irq/123-eth0"), None);
        assert_eq!(pinned_cpu("multithread"), None);
        assert_eq!(pinned_cpu("kworker/4x"), None);
    }

    use crate::kernel::topology::{Numbering, TopologySpec};

    fn topo(llcs: u32, llc_weight: u32, smt: u32) -> Topology {
        Topology::new(TopologySpec {
            llcs,
            llc_weight,
            smt,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            nodes: 1,
        })
        .unwrap()
    }

    #[test]
    fn classes_from_prio_and_comm() {
        assert_eq!(class_of(120, "bash"), TaskClass::Fair);
        assert_eq!(class_of(100, "nice-20"), TaskClass::Fair);
        assert_eq!(class_of(99, "rt"), TaskClass::Rt);
        assert_eq!(class_of(0, "migration/3"), TaskClass::Stop);
        assert_eq!(class_of(-1, "sugov:0"), TaskClass::Dl);
        assert!(cpupri_level(None) < cpupri_level(Some(99)));
        assert!(cpupri_level(Some(99)) < cpupri_level(Some(0)));
    }

    #[test]
    fn rt_wakeup_stays_unless_prev_runs_higher_rt_then_nearest_lowest_cpu() {
        // 2 LLCs x 4 CPUs, SMT2: cores {0,1} {2,3} | {4,5} {6,7}.
        let t = topo(2, 4, 2);
        let mask = |cpus: &[u32]| CpuMask::from_cpus(8, cpus.iter().copied());
        let mut w = ClassWake {
            class: TaskClass::Rt,
            bound: false,
            test: false,
            lowest: Some(mask(&[3, 5])),
        };
        assert_eq!(w.select(&t, 0, 6, None), 0, "no test: stay on prev");
        w.test = true;
        // prev 0's LLC has 3 in the mask; the waker 6 is not in the mask.
        assert_eq!(w.select(&t, 0, 6, None), 3);
        // The waker's CPU wins at the first domain that holds it, if it is in the mask.
        assert_eq!(w.select(&t, 4, 5, None), 5, "the SMT sibling is the waker");
        w.lowest = Some(mask(&[1, 5]));
        assert_eq!(
            w.select(&t, 0, 5, None),
            1,
            "the SMT domain comes before the waker's LLC"
        );
        w.bound = true;
        assert_eq!(w.select(&t, 0, 5, None), 0, "a bound task stays");
        w.bound = false;
        w.lowest = None;
        assert_eq!(w.select(&t, 0, 5, None), 0, "no lower-priority CPU: stay");
    }

    #[test]
    fn distribute_rotates_from_the_wakers_last_pick() {
        let t = topo(1, 8, 1);
        let lowest = CpuMask::from_cpus(8, [2, 4, 6]);
        let w = ClassWake {
            class: TaskClass::Rt,
            bound: false,
            test: true,
            lowest: Some(lowest),
        };
        let mut cursor = 0;
        assert_eq!(w.select(&t, 0, 1, Some(&mut cursor)), 2);
        assert_eq!(w.select(&t, 0, 1, Some(&mut cursor)), 4);
        assert_eq!(w.select(&t, 0, 1, Some(&mut cursor)), 6);
        assert_eq!(w.select(&t, 0, 1, Some(&mut cursor)), 2);
        assert_eq!(
            w.select(&t, 0, 1, None),
            2,
            "first_and always takes the first"
        );
    }
}
