//! The rebuild's tasks by pid: kept in a slab, found through a pid -> slot map, with the last
//! pid looked up remembered, since one event's handlers (the switch, its load, EEVDF's lag)
//! look the same task up several times in a row. Tasks are never removed.

use super::load::TaskLoad;
use super::rebuild::{Rebuild, Task, TaskState};
use super::PidMap;
use crate::kernel::pelt::SchedAvg;
use crate::kernel::select::WakeeFlips;
use std::cell::Cell;

#[derive(Default)]
pub(crate) struct TaskTable {
    index: PidMap<u32>,
    slab: Vec<Task>,
    /// The pid last found and its slot.
    last: Cell<Option<(u32, u32)>>,
}

impl TaskTable {
    #[inline]
    pub(crate) fn slot(&self, pid: u32) -> Option<usize> {
        if let Some((p, i)) = self.last.get() {
            if p == pid {
                return Some(i as usize);
            }
        }
        let i = *self.index.get(&pid)?;
        self.last.set(Some((pid, i)));
        Some(i as usize)
    }

    pub(crate) fn get(&self, pid: &u32) -> Option<&Task> {
        let i = self.slot(*pid)?;
        self.slab.get(i)
    }

    pub(crate) fn get_mut(&mut self, pid: &u32) -> Option<&mut Task> {
        let i = self.slot(*pid)?;
        self.slab.get_mut(i)
    }

    /// The task in `slot` (from [`TaskTable::slot`]).
    #[inline]
    pub(crate) fn at(&mut self, slot: usize) -> &mut Task {
        &mut self.slab[slot]
    }

    /// Adds `pid`'s task (the table has none yet) and returns it.
    pub(crate) fn insert(&mut self, pid: u32, task: Task) -> &mut Task {
        let i = self.slab.len();
        self.slab.push(task);
        self.index.insert(pid, i as u32);
        self.last.set(Some((pid, i as u32)));
        &mut self.slab[i]
    }
}

impl Rebuild {
    /// `pid` seen for the first time.
    #[cold]
    #[inline(never)]
    pub(super) fn new_task(&mut self, pid: u32) -> &mut Task {
        let now = self.now;
        let k = self.nr_presets;
        // alloc_pid() hands out pids upwards from the last one (idr_alloc_cyclic): a task first
        // seen with a pid above every pid seen before it was created during the trace; one
        // below, or the first seen, is older. (A wrap at pid_max would count as older.)
        let created = self.max_pid != 0 && pid > self.max_pid;
        self.max_pid = self.max_pid.max(pid);
        if created {
            self.counts.tasks_created += 1;
        } else {
            self.counts.tasks_older += 1;
        }
        self.tasks.insert(
            pid,
            Task {
                state: TaskState::Unknown,
                pelt: SchedAvg {
                    last_update_time: now & !1023,
                    ..Default::default()
                },
                util_est_run: Default::default(),
                runnable: SchedAvg {
                    last_update_time: now & !1023,
                    ..Default::default()
                },
                flips: WakeeFlips {
                    wakee_flip_decay_ts: now,
                    ..WakeeFlips::default()
                },
                pending: None,
                recent: vec![u32::MAX; k].into_boxed_slice(),
                exec_start: now,
                ran_since_sleep: 0,
                dur_avg: 0,
                last_dequeue_ns: 0,
                avg_hot_dur: 0,
                prio: 120,
                bound: false,
                stop: false,
                fresh: true,
                named: false,
                wakelist_cpu: None,
                ev: Default::default(),
                group: super::group44::UNGROUPED,
                // A task the trace has not shown before starts at its full (nice-0) weight: a new
                // one as the kernel starts it (init_entity_runnable_average), an older one because
                // its history is unknown.
                load: TaskLoad::new_task(now, 1024, created),
                created,
                util_new: false,
                parent: 0,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::rebuild::Rebuild;
    use crate::kernel::topology::{Topology, TopologySpec};

    /// The remembered pid never answers for another: lookups in any order find each task's
    /// own, and a pid never inserted finds none.
    #[test]
    fn every_lookup_finds_its_own_task() {
        let topo = Topology::new(TopologySpec::one_llc(2)).unwrap();
        let mut rb = Rebuild::new(topo, 1, [false; super::super::load::ERAS]);
        for pid in [7u32, 3, 900, 4] {
            rb.task(pid).prio = pid as i32;
        }
        for pid in [7u32, 7, 3, 900, 3, 4, 4, 7] {
            assert_eq!(rb.tasks.get(&pid).map(|t| t.prio), Some(pid as i32));
            assert_eq!(rb.tasks.get_mut(&pid).map(|t| t.prio), Some(pid as i32));
            assert_eq!(rb.task(pid).prio, pid as i32);
        }
        assert!(rb.tasks.get(&5).is_none());
        assert_eq!(rb.tasks.get(&900).map(|t| t.prio), Some(900));
        // Found, not made again: no task is counted anew for a known pid.
        let made = rb.counts.tasks_created + rb.counts.tasks_older;
        let t = rb.task(3);
        assert_eq!(t.prio, 3);
        assert_eq!(rb.counts.tasks_created + rb.counts.tasks_older, made);
        assert_eq!(made, 4);
    }
}
