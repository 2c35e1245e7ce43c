//! A task's parent, from its fork in the trace, and what the fork and the exit decide for the
//! wake-up path: the child starts with its parent's wake-up flips, and a child that wakes its
//! parent as it exits does so with PF_EXITING set.

use super::rebuild::Rebuild;

impl Rebuild {
    /// A new task's wake-up flips are its parent's: dup_task_struct() copies the task_struct
    /// and __sched_fork() leaves them (4.4..6.12), and the parent runs on `cpu` at the
    /// child's sched_wakeup_new (wake_up_new_task() runs in its context).
    pub(super) fn forked(&mut self, cpu: u32, pid: u32) {
        let Some(parent) = self.cpus[cpu as usize]
            .curr
            .filter(|p| *p != 0 && *p != pid)
        else {
            return;
        };
        let flips = self.task(parent).flips;
        let t = self.task(pid);
        (t.flips, t.parent) = (flips, parent);
        self.counts.flips_inherited += 1;
    }

    /// `pid` exits on `cpu` (its last switch). If the latest waking from this CPU was its
    /// wake-up of its parent, that came from do_exit()'s exit_notify(), after
    /// exit_signals() set PF_EXITING: from v4.16 (24d0c1d6e65f) select_task_rq_fair() takes
    /// no WF_SYNC from an exiting waker, and sched_ext's sync shortcut never took one.
    pub(super) fn exited(&mut self, cpu: u32, pid: u32) {
        let Some(seq) = self.cpus[cpu as usize].sync_watch else {
            return;
        };
        let hit = self.pending_mut(seq).is_some_and(|p| {
            let hit = p.waker_pid == Some(pid) && p.parent_wake;
            p.waker_exiting |= hit;
            hit
        });
        self.counts.exit_wakes += u64::from(hit);
    }
}
