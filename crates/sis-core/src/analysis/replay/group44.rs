//! linux-4.4's task groups, for the replay's `--autogroup` inference (ReplayConfig::autogroup).
//!
//! With CONFIG_SCHED_AUTOGROUP each session's tasks share a task group one level under the
//! root (Mike Galbraith, "sched: automated per session task groups", 2.6.38): the root
//! runqueue holds the group's entity, whose weight is the group's share (`calc_cfs_shares()`),
//! and 4.4's wake_affine weighs a wake-up through `effective_load()`, which reads the group's
//! per-CPU cfs_rq `avg.load_avg` (blocked load included), `tg->load_avg` and the entity's
//! `se->avg.load_avg`. The trace shows no groups, so the replay infers them, counted: a
//! task created in the trace (sched_wakeup_new) joins its creator's group (autogroups are
//! inherited at fork), a kernel thread (by its comm) stays in the root, and any other task
//! joins the group of a task seen before with the comm it is first seen with (a new thread
//! or child carries its parent's comm until it renames or execs), else makes a group of its
//! own. Each group's cfs_rq and entity keep 4.4's PELT (kernel::pelt4) through
//! the enqueue, dequeue and update steps of linux-4.4 fair.c `enqueue_task_fair()` and
//! `dequeue_task_fair()`.

use super::classes::pinned_cpu;
use super::rebuild::{Rebuild, TaskState};
use crate::kernel::pelt::{prio_to_weight, LOAD_AVG_MAX};
use crate::kernel::pelt4::{Load4, Pelt4};
use crate::kernel::select::{GroupLoad44, TaskGroups44};

/// An autogroup's `tg->shares` at nice 0 (4.4 has no extra load resolution).
const SHARES: u64 = 1024;
/// linux-4.4 sched.h `MIN_SHARES`.
const MIN_SHARES: u64 = 2;
/// `Task::group` before the task's group is known.
pub(crate) const UNGROUPED: u32 = u32::MAX;

/// One group's state on one CPU.
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupCpu {
    /// The group's cfs_rq: `avg.load_avg`/`load_sum` and its runnable load.
    cfs: Load4,
    /// `cfs_rq->removed_load_avg`, taken off at its next update.
    removed: u64,
    /// `cfs_rq->tg_load_avg_contrib`.
    contrib: u64,
    /// The group's entity on the root runqueue, its weight and whether it is queued.
    se: Load4,
    se_weight: u64,
    on_rq: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Group {
    /// `tg->load_avg`.
    tg_load_avg: u64,
    cpus: Vec<GroupCpu>,
}

/// Every inferred group and each CPU's root runqueue.
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups44 {
    /// Group g (1..) at index g - 1; group 0 is the root.
    groups: Vec<Group>,
    /// The root cfs_rq of each CPU (its root tasks and group entities): `runnable_load_avg`
    /// is what 4.4's wake_affine reads as the CPU's load.
    root: Vec<Load4>,
    /// The summed weight of the group entities queued on each root runqueue.
    root_group_weight: Vec<u64>,
    /// The group of the tasks first seen with each comm.
    by_comm: std::collections::HashMap<String, u32>,
}

/// Whether `comm` names a kernel thread (which autogroup leaves in the root task group).
fn is_kthread(comm: &str) -> bool {
    const PREFIXES: [&str; 18] = [
        "kworker/",
        "rcu_",
        "rcuo",
        "rcub/",
        "kthreadd",
        "irq/",
        "jbd2/",
        "kswapd",
        "khugepaged",
        "kcompactd",
        "kauditd",
        "khungtaskd",
        "oom_reaper",
        "kblockd",
        "kdevtmpfs",
        "writeback",
        "scsi_",
        "watchdogd",
    ];
    pinned_cpu(comm).is_some() || PREFIXES.iter().any(|p| comm.starts_with(p))
}

impl Rebuild {
    fn tracks_groups(&self) -> bool {
        self.groups44.is_some()
    }

    /// A task seen with `comm`: its group if it has none yet (unless its creator gave it
    /// one), and that comm names its group from now on if no other group has it.
    pub(crate) fn group44_name(&mut self, pid: u32, comm: &str) {
        if !self.tracks_groups() || comm.is_empty() || pid == 0 {
            return;
        }
        let n = self.cpus.len();
        let current = self.task(pid).group;
        let c = &mut self.counts;
        let g = self.groups44.as_mut().unwrap();
        if current != UNGROUPED {
            match g.by_comm.get(comm) {
                // A task that renamed itself (prctl, exec): its later threads carry the name.
                None if current != 0 => {
                    g.by_comm.insert(comm.to_string(), current);
                }
                // Its new name is a group's already (its threads were seen first): it moves
                // there, while it sleeps.
                Some(&other)
                    if other != current
                        && current != 0
                        && self.tasks.get(&pid).map(|t| t.state) == Some(TaskState::Sleeping) =>
                {
                    self.group44_move(pid, other);
                }
                _ => {}
            }
            return;
        }
        let group = if is_kthread(comm) {
            c.autogroup_kthreads += 1;
            0
        } else if let Some(group) = g.by_comm.get(comm) {
            c.autogroup_joined += 1;
            *group
        } else {
            c.autogroups += 1;
            let group = g.new_group(n);
            g.by_comm.insert(comm.to_string(), group);
            group
        };
        self.task(pid).group = group;
    }

    /// sched_wakeup_new of `pid` from `cpu`: it joins the group of the task running there,
    /// which created it (sched_autogroup_fork()).
    pub(crate) fn group44_fork(&mut self, pid: u32, cpu: u32) {
        if !self.tracks_groups() || self.task(pid).group != UNGROUPED {
            return;
        }
        let Some(parent) = self.cpus[cpu as usize].curr.filter(|p| *p != 0) else {
            return;
        };
        let group = self.group_of(parent);
        self.task(pid).group = group;
        self.counts.autogroup_joined += 1;
    }

    /// `pid`'s group, made now if it has none yet (a task never named: a group of its own).
    fn group_of(&mut self, pid: u32) -> u32 {
        let n = self.cpus.len();
        let t = self.task(pid);
        if t.group == UNGROUPED {
            self.counts.autogroups += 1;
            let g = self.groups44.as_mut().unwrap();
            let group = g.new_group(n);
            self.task(pid).group = group;
        }
        self.task(pid).group
    }

    /// A sleeping task's move to group `to`: its blocked load leaves its group's cfs_rq on
    /// its CPU and joins `to`'s there (linux-4.4 fair.c task_move_group_fair(): detach, then
    /// attach).
    fn group44_move(&mut self, pid: u32, to: u32) {
        let cpu = self.task(pid).load.cfs_cpu;
        if (cpu as usize) < self.cpus.len() {
            self.group44_remove(cpu, pid);
            self.task(pid).group = to;
            self.group_cfs_update(cpu, to);
            let se = self.task(pid).load.se4[0];
            self.groups44.as_mut().unwrap().group(to).attach(cpu, &se);
        }
        self.task(pid).group = to;
        self.counts.autogroup_moved += 1;
    }

    /// `cfs_rq->load.weight` of group `g` on `cpu`: its fair tasks runnable there.
    fn group_runnable_weight(&self, cpu: u32, g: u32) -> u64 {
        self.cpus[cpu as usize]
            .runnable()
            .filter_map(|p| self.tasks.get(&p))
            .filter(|t| t.group == g)
            .map(|t| prio_to_weight(t.prio))
            .sum()
    }

    /// The root runqueue of `cpu` up to now, at the weight it held: its root tasks' and its
    /// queued group entities'.
    fn root_update(&mut self, cpu: u32) {
        let w = self.group_runnable_weight(cpu, 0);
        let now = self.now;
        let g = self.groups44.as_mut().unwrap();
        let w = w + g.root_group_weight[cpu as usize];
        g.root[cpu as usize].update(Pelt4::V44, now, w);
    }

    /// linux-4.4 fair.c `update_cfs_rq_load_avg()` of group `g` on `cpu` (removed load
    /// first), then `update_tg_load_avg(cfs_rq, 0)` if it decayed or lost load.
    fn group_cfs_update(&mut self, cpu: u32, g: u32) {
        let w = self.group_runnable_weight(cpu, g);
        let now = self.now;
        let group = self.groups44.as_mut().unwrap().group(g);
        let c = &mut group.cpus[cpu as usize];
        let removed = c.removed > 0;
        if removed {
            let r = std::mem::take(&mut c.removed);
            c.cfs.load_avg = c.cfs.load_avg.saturating_sub(r);
            c.cfs.load_sum = c.cfs.load_sum.saturating_sub(r * LOAD_AVG_MAX);
        }
        if c.cfs.update(Pelt4::V44, now, w) || removed {
            group.update_tg_load_avg(cpu);
        }
    }

    /// The group's entity on `cpu` after its cfs_rq's weight became `rw`: reweighted
    /// (update_cfs_shares()), its load brought up to now, and queued on or taken off the root
    /// runqueue as the group has tasks there or not.
    fn group_entity(&mut self, cpu: u32, g: u32, rw: u64) {
        self.root_update(cpu);
        let now = self.now;
        let gs = self.groups44.as_mut().unwrap();
        let i = cpu as usize;
        let group = &mut gs.groups[g as usize - 1];
        let share = group.calc_cfs_shares(cpu, rw);
        let c = &mut group.cpus[i];
        c.se.update(Pelt4::V44, now, if c.on_rq { c.se_weight } else { 0 });
        let root = &mut gs.root[i];
        match (c.on_rq, rw > 0) {
            (false, true) => {
                root.enqueue(&c.se);
                c.on_rq = true;
                gs.root_group_weight[i] += share;
            }
            (true, false) => {
                root.dequeue(&c.se);
                c.on_rq = false;
                gs.root_group_weight[i] -= c.se_weight;
            }
            (true, true) => gs.root_group_weight[i] = gs.root_group_weight[i] - c.se_weight + share,
            (false, false) => {}
        }
        c.se_weight = share;
    }

    /// The group of `pid`, its own load and weight, while groups are kept for a 4.4 preset.
    fn group44_task(&mut self, pid: u32) -> Option<(u32, Load4, u64)> {
        if !self.tracks_groups() || !self.eras[0] {
            return None;
        }
        let g = self.group_of(pid);
        let t = self.tasks.get(&pid)?;
        Some((g, t.load.se4[0], prio_to_weight(t.prio)))
    }

    /// enqueue_task_fair() of `pid` on `cpu` (before it joins the runnable set; its own load
    /// is up to date, `attach`: it came from another CPU or is new).
    pub(crate) fn group44_enqueue(&mut self, cpu: u32, pid: u32, attach: bool) {
        let Some((g, se, w)) = self.group44_task(pid) else {
            return;
        };
        if g == 0 {
            self.root_update(cpu);
            self.groups44.as_mut().unwrap().root[cpu as usize].enqueue(&se);
            return;
        }
        self.group_cfs_update(cpu, g);
        let rw = self.group_runnable_weight(cpu, g) + w;
        let group = self.groups44.as_mut().unwrap().group(g);
        group.cpus[cpu as usize].cfs.enqueue(&se);
        if attach {
            group.attach(cpu, &se);
        }
        self.group_entity(cpu, g, rw);
    }

    /// dequeue_task_fair() of `pid` from `cpu` (still in the runnable set; its own load is
    /// up to date).
    pub(crate) fn group44_dequeue(&mut self, cpu: u32, pid: u32) {
        let Some((g, se, w)) = self.group44_task(pid) else {
            return;
        };
        if g == 0 {
            self.root_update(cpu);
            self.groups44.as_mut().unwrap().root[cpu as usize].dequeue(&se);
            return;
        }
        self.group_cfs_update(cpu, g);
        let rw = self.group_runnable_weight(cpu, g).saturating_sub(w);
        let group = self.groups44.as_mut().unwrap().group(g);
        group.cpus[cpu as usize].cfs.dequeue(&se);
        self.group_entity(cpu, g, rw);
    }

    /// update_load_avg() up the hierarchy of `pid`, which stays runnable on `cpu`.
    pub(crate) fn group44_touch(&mut self, cpu: u32, pid: u32) {
        let Some((g, _, _)) = self.group44_task(pid) else {
            return;
        };
        if g != 0 {
            self.group_cfs_update(cpu, g);
            let rw = self.group_runnable_weight(cpu, g);
            self.group_entity(cpu, g, rw);
        } else {
            self.root_update(cpu);
        }
    }

    /// remove_entity_load_avg() of `pid` from its group's cfs_rq on `cpu` (it migrated or
    /// died): its load, decayed to that cfs_rq's last update, waits in `removed_load_avg`.
    pub(crate) fn group44_remove(&mut self, cpu: u32, pid: u32) {
        let Some((g, _, _)) = self.group44_task(pid).filter(|t| t.0 != 0) else {
            return;
        };
        // Decayed on a copy: the task's own clock may be past that cfs_rq's already (the
        // replay's root-group sums were synced first), and it must not go back.
        let mut se = self.task(pid).load.se4[0];
        let group = self.groups44.as_mut().unwrap().group(g);
        let c = &mut group.cpus[cpu as usize];
        se.update(Pelt4::V44, c.cfs.last_update_time, 0);
        c.removed += se.load_avg;
    }

    /// The root runqueue's `runnable_load_avg` on `cpu` (linux-4.4 `weighted_cpuload()`).
    pub(crate) fn group44_root_load(&self, cpu: u32) -> Option<u64> {
        self.groups44
            .as_ref()
            .map(|g| g.root[cpu as usize].runnable_load_avg)
    }

    /// What effective_load() reads of the groups of the wakee and the waker (the task on
    /// `this`), for this CPU and prev.
    pub(crate) fn group44_view(
        &mut self,
        wakee: u32,
        this: u32,
        prev: u32,
    ) -> Option<TaskGroups44> {
        self.groups44.as_ref()?;
        let view = |rb: &mut Rebuild, pid: u32| {
            let g = rb.group_of(pid);
            (g != 0).then(|| rb.groups44.as_mut().unwrap().group(g).view(this, prev))
        };
        let waker = match self.cpus[this as usize].curr.filter(|p| *p != 0) {
            Some(w) => view(self, w),
            None => None,
        };
        Some(TaskGroups44 {
            wakee: view(self, wakee),
            waker,
        })
    }
}

impl Groups44 {
    pub(crate) fn new(nr_cpus: usize) -> Self {
        Groups44 {
            root: vec![Load4::default(); nr_cpus],
            root_group_weight: vec![0; nr_cpus],
            ..Default::default()
        }
    }

    fn new_group(&mut self, nr_cpus: usize) -> u32 {
        self.groups.push(Group {
            tg_load_avg: 0,
            cpus: vec![GroupCpu::default(); nr_cpus],
        });
        self.groups.len() as u32
    }

    fn group(&mut self, g: u32) -> &mut Group {
        &mut self.groups[g as usize - 1]
    }
}

impl Group {
    /// linux-4.4 fair.c enqueue_entity_load_avg() of a migrated task: `if (migrated) {
    /// cfs_rq->avg.load_avg += sa->load_avg; ... }`, then update_tg_load_avg().
    fn attach(&mut self, cpu: u32, se: &Load4) {
        let c = &mut self.cpus[cpu as usize].cfs;
        c.load_avg += se.load_avg;
        c.load_sum += se.load_sum;
        self.update_tg_load_avg(cpu);
    }

    /// linux-4.4 fair.c `update_tg_load_avg(cfs_rq, 0)`: `tg->load_avg` follows the cfs_rq's
    /// `avg.load_avg` once it moved by more than 1/64 of what it last gave.
    fn update_tg_load_avg(&mut self, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        let (avg, contrib) = (c.cfs.load_avg, c.contrib);
        if avg.abs_diff(contrib) > contrib / 64 {
            c.contrib = avg;
            self.tg_load_avg = self.tg_load_avg + avg - contrib;
        }
    }

    /// linux-4.4 fair.c `calc_cfs_shares()` with the cfs_rq's weight `rw`: `shares * rw /
    /// (tg->load_avg - tg_load_avg_contrib + rw)`, in [MIN_SHARES, shares].
    fn calc_cfs_shares(&self, cpu: u32, rw: u64) -> u64 {
        let tg_weight = (self.tg_load_avg + rw).saturating_sub(self.cpus[cpu as usize].contrib);
        let shares = SHARES * rw;
        // `if (tg_weight) shares /= tg_weight;`
        shares
            .checked_div(tg_weight)
            .unwrap_or(shares)
            .clamp(MIN_SHARES, SHARES)
    }

    fn view(&self, this: u32, prev: u32) -> GroupLoad44 {
        let at = |cpu: u32| {
            let c = &self.cpus[cpu as usize];
            [c.cfs.load_avg, c.contrib, c.se.load_avg]
        };
        GroupLoad44 {
            tg_load_avg: self.tg_load_avg,
            this: at(this),
            prev: at(prev),
        }
    }
}
