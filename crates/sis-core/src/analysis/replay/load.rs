//! The load signal wake_affine reads, rebuilt from the trace's runnable times and prios, in
//! each era's own form: 4.4's and 4.13's `runnable_load_avg` (kernel::pelt4, enqueue adds
//! a task's load, dequeue takes it off) and 5.7+'s cfs_rq `load_avg`, which keeps a sleeping
//! task's load until it migrates (kernel::pelt::LoadAvg, attach and detach). 6.12's differs
//! once more: a task left `sched_delayed` stays on its cfs_rq, its weight in the cfs_rq's
//! load and its own load accruing as runnable, until its dequeue ends. Tasks are taken
//! to be in the root task group: a trace does not show cgroups or autogroups (but see
//! replay/group44.rs for `--autogroup`).

use super::rebuild::Rebuild;
use super::util::sub_removed;
use crate::kernel::features::Preset;
use crate::kernel::pelt::{prio_to_weight, LoadAvg, PELT_MIN_DIVIDER};
use crate::kernel::pelt4::{Load4, Pelt4};

/// v6.12 kernel/sched/sched.h enqueue flags (the same values since 4.x).
const ENQUEUE_WAKEUP: u32 = 0x01;
const ENQUEUE_MIGRATED: u32 = 0x40;
/// `ENQUEUE_RESTORE`: the enqueue after a DEQUEUE_SAVE (sched_move_task(), a nice or policy
/// change): util_est_dequeue() took the task's estimate off its cfs_rq's sum meanwhile.
const ENQUEUE_RESTORE: u32 = 0x02;

/// How many load signals there are, in [`load_era`]'s order.
pub const ERAS: usize = 4;
const PELT4: [Pelt4; 2] = [Pelt4::V44, Pelt4::V413];

/// Which load signal a preset's wake_affine reads: 0 linux-4.4, 1 4.13-5.6 (runnable
/// load), 2 5.7+ (load_avg), 3 6.12+ with DELAY_DEQUEUE (load_avg, delayed tasks on_rq).
pub fn load_era(p: &Preset) -> usize {
    if p.features.delay_dequeue {
        3
    } else if p.features.wa_legacy {
        0
    } else if p.cpu_load_runnable() {
        1
    } else {
        2
    }
}

/// A task's load in every era's form.
#[derive(Clone, Debug)]
pub(crate) struct TaskLoad {
    /// 5.7+ `p->se.avg` load (input 1 while runnable, times its weight): [5.7+, 6.12 with
    /// DELAY_DEQUEUE (input 1 while delayed too)].
    pub avg: [LoadAvg; 2],
    /// 4.4 and 4.13 `p->se.avg` (weighted sums).
    pub se4: [Load4; 2],
    /// The CPU whose cfs_rq holds its load (u32::MAX: none yet).
    pub cfs_cpu: u32,
    /// The same for each of `avg`'s signals: they part when 6.12's balancer moves a delayed
    /// task, whose load goes with it at once (`detach_task()`/`attach_task()`), while to the
    /// 5.7+ signal it is a sleeping task whose load stays until it wakes elsewhere.
    pub avg_cpu: [u32; 2],
}

impl TaskLoad {
    pub fn new(now: u64) -> Self {
        TaskLoad {
            avg: [LoadAvg::start(now); 2],
            se4: [Load4 {
                last_update_time: now,
                ..Default::default()
            }; 2],
            cfs_cpu: u32::MAX,
            avg_cpu: [u32::MAX; 2],
        }
    }

    pub fn new_task(now: u64, weight: u64, created: bool) -> Self {
        let mut l = TaskLoad::new(now);
        l.init_new(weight, created);
        l
    }

    /// init_entity_runnable_average() of a new task (`created`): "seen as heavy" until it
    /// settles. 4.4 and 4.13 give it its weight with the matching sum (`load_sum = load_avg *
    /// LOAD_AVG_MAX`) and period_contrib 1023 (linux-4.4 fair.c); 5.7+ its weight as
    /// load_avg with a zero sum. A task older than the trace starts at its weight too (its
    /// history is unknown), but its period's phase is taken at a period's start: the 1023
    /// is the kernel's for new tasks only.
    pub fn init_new(&mut self, weight: u64, created: bool) {
        for se in &mut self.se4 {
            se.load_avg = weight;
            se.load_sum = weight * crate::kernel::pelt::LOAD_AVG_MAX;
            // "strictly less than 1024 ... so it will definitely be updated (after enqueue)":
            // its first update crosses a period the cfs_rq's sum has not, so a short-lived
            // task leaves about 2% of its load in runnable_load_avg when it goes.
            se.period_contrib = if created { 1023 } else { 0 };
        }
        for a in &mut self.avg {
            a.load_avg = weight;
            a.load_sum = 0;
        }
    }
}

/// A CPU's cfs_rq load in every era's form.
#[derive(Clone, Debug, Default)]
pub(crate) struct CpuLoad {
    /// [5.7+, 6.12 with DELAY_DEQUEUE], as [`TaskLoad::avg`].
    pub avg: [LoadAvg; 2],
    /// `cfs_rq->removed.load_avg` of each: the load of tasks that left (migrated or died),
    /// taken off at the cfs_rq's next update; until then cpu_load() still counts it.
    pub removed: [u64; 2],
    pub cfs4: [Load4; 2],
}

impl Rebuild {
    /// cfs_rq->load.weight: the fair tasks runnable on `cpu`.
    fn runnable_weight(&self, cpu: u32) -> u64 {
        self.cpus[cpu as usize]
            .runnable()
            .map(|p| self.tasks.get(&p).map_or(1024, |t| prio_to_weight(t.prio)))
            .sum()
    }

    /// The fair tasks queued `sched_delayed` on `cpu` (replay/eevdf.rs): v6.12
    /// dequeue_entity() returns before account_entity_dequeue(), so their weight stays in
    /// cfs_rq->load.
    fn delayed_weight(&self, cpu: u32) -> u64 {
        self.cfs[cpu as usize].delayed_weight
    }

    /// update_cfs_rq_load_avg() of every era up to now, at the weight held until now.
    pub(super) fn cfs_update(&mut self, cpu: u32) {
        let w = self.runnable_weight(cpu);
        let now = self.now;
        let eras = self.eras;
        let w_delayed = if eras[3] {
            w + self.delayed_weight(cpu)
        } else {
            0
        };
        let c = &mut self.cpus[cpu as usize].load;
        // v6.12 fair.c update_cfs_rq_load_avg(): the removed load first, then the decay.
        for (a, r) in c.avg.iter_mut().zip(&mut c.removed) {
            sub_removed(a, std::mem::take(r));
        }
        if eras[2] {
            c.avg[0].update(now, w, 1);
        }
        if eras[3] {
            c.avg[1].update(now, w_delayed, 1);
        }
        for ((l, era), on) in c.cfs4.iter_mut().zip(PELT4).zip(eras) {
            if on {
                l.update(era, now, w);
            }
        }
    }

    /// A task's own load up to now; `on_rq`: runnable since its last update.
    fn se_update(&mut self, pid: u32, on_rq: bool) {
        let now = self.now;
        let Some(t) = self.tasks.get_mut(&pid) else {
            return;
        };
        let w = prio_to_weight(t.prio);
        // v6.12 __update_load_avg_se(): runnable input se_runnable(), not while delayed.
        t.runnable.update(now, on_rq);
        if self.eras[2] {
            t.load.avg[0].update(now, u64::from(on_rq), w);
        }
        if self.eras[3] {
            // v6.12 __update_load_avg_se(): load input `!!se->on_rq`, still 1 while delayed.
            t.load.avg[1].update(now, u64::from(on_rq || t.ev.delayed), w);
        }
        for ((l, era), on) in t.load.se4.iter_mut().zip(PELT4).zip(self.eras) {
            if on {
                l.update(era, now, if on_rq { w } else { 0 });
            }
        }
    }

    /// enqueue_entity() of `pid` on `cpu`, before it joins the runnable set: a task whose
    /// load is on another cfs_rq migrates (remove_entity_load_avg there, then
    /// attach_entity_load_avg here, its clock set to the cfs_rq's); else it decays over its
    /// sleep. The cfs_rq updates at its old weight, then takes on the task's runnable load.
    pub(crate) fn load_enqueue(&mut self, cpu: u32, pid: u32) {
        if pid == 0 {
            return;
        }
        let old_avg = self.task(pid).load.avg_cpu;
        // wake_up_new_task(): post_init_entity_util_avg() reads the cfs_rq before this update.
        self.util_post_init(cpu, pid);
        // enqueue_entity() -> update_load_avg(): the cfs_rq's util up to now first.
        self.cpu_pelt(cpu);
        if self.task(pid).load.cfs_cpu == cpu {
            self.se_update(pid, false);
        } else {
            self.load_leave(pid, cpu, false);
            self.util_attach(cpu, pid);
        }
        self.cfs_update(cpu);
        let t = self.task(pid);
        let moved = t.load.cfs_cpu != cpu;
        t.load.cfs_cpu = cpu;
        let se4 = t.load.se4;
        let c = &mut self.cpus[cpu as usize].load;
        for (cfs, se) in c.cfs4.iter_mut().zip(&se4) {
            cfs.enqueue(se);
        }
        for (k, oc) in old_avg.into_iter().enumerate() {
            if oc != cpu {
                self.load_attach_avg(cpu, pid, k);
            }
        }
        if moved {
            let at = self.cpus[cpu as usize]
                .load
                .cfs4
                .map(|l| l.last_update_time);
            for (se, at) in self.task(pid).load.se4.iter_mut().zip(at) {
                se.last_update_time = at;
            }
        }
        self.group44_enqueue(cpu, pid, moved);
    }

    /// `pid`'s load and util leave the cfs_rq that holds them for `dest`'s. A sleeping task
    /// leaves at its wake-up's set_task_cpu() (the trace's sched_migrate_task):
    /// migrate_task_rq_fair() -> remove_entity_load_avg(), synced to the old cfs_rq's clock
    /// and taken off at that cfs_rq's next update. A queued task the balancer moves
    /// (`migrating`) is detached at once (v6.12 dequeue_entity(), DO_DETACH).
    pub(crate) fn load_leave(&mut self, pid: u32, dest: u32, migrating: bool) {
        let old = self.task(pid).load.cfs_cpu;
        if old != dest {
            self.util_leave(old, pid, migrating);
        }
        if let Some(oc) = self.cpus.get(old as usize).filter(|_| old != dest) {
            let sync4 = oc.load.cfs4.map(|l| l.last_update_time);
            let t = self.task(pid);
            for ((l, era), at) in t.load.se4.iter_mut().zip(PELT4).zip(sync4) {
                l.update(era, at, 0);
            }
            t.load.cfs_cpu = u32::MAX;
            self.group44_remove(old, pid);
        }
        // Each `avg` signal held by another cfs_rq leaves it (6.12's may have gone ahead with
        // the balancer's move of a delayed task, load_move_delayed()).
        let w = prio_to_weight(self.task(pid).prio);
        for k in 0..2 {
            let oc = self.task(pid).load.avg_cpu[k];
            let Some(at) = self.cpus.get(oc as usize).filter(|_| oc != dest) else {
                continue;
            };
            let at = at.load.avg[k].last_update_time;
            let ta = &mut self.task(pid).load.avg[k];
            ta.update(at, 0, w);
            let (avg, sum) = (ta.load_avg, ta.load_sum * w);
            self.task(pid).load.avg_cpu[k] = u32::MAX;
            let c = &mut self.cpus[oc as usize].load;
            if migrating {
                c.avg[k].detach(avg, sum);
            } else {
                c.removed[k] += avg;
            }
        }
    }

    /// attach_entity_load_avg() of `pid`'s signal `k` (of `avg`) to `cpu`'s cfs_rq.
    fn load_attach_avg(&mut self, cpu: u32, pid: u32, k: usize) {
        // linux-5.10 fair.c attach_entity_load_avg(): the task's clock and window take the
        // cfs_rq's and its sum is rebuilt from its avg, `load_sum = divider; if
        // (se_weight(se)) load_sum = div_u64(load_avg * load_sum, se_weight(se))`. So a new
        // task (load_avg = its weight, load_sum 0) starts with a full sum and is "seen as
        // heavy" until its load decays. (5.18's form, "sched/pelt: Fix
        // attach_entity_load_avg() corner case", differs only where that quotient is 0.)
        let w = prio_to_weight(self.task(pid).prio);
        let ca = self.cpus[cpu as usize].load.avg[k];
        let divider = PELT_MIN_DIVIDER + u64::from(ca.period_contrib);
        let t = self.task(pid);
        t.load.avg_cpu[k] = cpu;
        let ta = &mut t.load.avg[k];
        ta.last_update_time = ca.last_update_time;
        ta.period_contrib = ca.period_contrib;
        ta.load_sum = (ta.load_avg * divider).checked_div(w).unwrap_or(divider);
        let (avg, sum) = (ta.load_avg, ta.load_sum * w);
        self.cpus[cpu as usize].load.avg[k].attach(avg, sum);
    }

    /// 6.12's balancer moved `pid`, still delayed, from `from` to `to`: detach_task() ->
    /// dequeue_entity() detaches its load (DO_DETACH, `task_on_rq_migrating()`), and
    /// attach_task() -> enqueue_entity() attaches it on `to` (`last_update_time` was zeroed
    /// by migrate_task_rq_fair()), whether the delay goes on there or a pick ends it at once.
    /// Only 6.12's signal: to the others it is a sleeping task.
    pub(crate) fn load_move_delayed(&mut self, from: u32, to: u32, pid: u32) {
        if !self.eras[3] || pid == 0 || self.task(pid).load.avg_cpu[1] != from || from == to {
            return;
        }
        let w = prio_to_weight(self.task(pid).prio);
        let ta = self.task(pid).load.avg[1];
        self.cpus[from as usize].load.avg[1].detach(ta.load_avg, ta.load_sum * w);
        self.cfs_update(to);
        self.load_attach_avg(to, pid, 1);
    }

    /// dequeue_entity() of `pid` from `cpu`, while still in its runnable set: the task and
    /// the cfs_rq accrue up to now, then the task's runnable load comes off (clamped at 0).
    pub(crate) fn load_dequeue(&mut self, cpu: u32, pid: u32) {
        if pid == 0 {
            return;
        }
        self.se_update(pid, true);
        self.cfs_update(cpu);
        let se4 = self.task(pid).load.se4;
        for (cfs, se) in self.cpus[cpu as usize].load.cfs4.iter_mut().zip(&se4) {
            cfs.dequeue(se);
        }
        self.group44_dequeue(cpu, pid);
    }

    /// task_dead_fair() -> remove_entity_load_avg() (5.7+): a dead task's load, synced to
    /// its cfs_rq's clock, leaves that cfs_rq's load_avg at its next update. (4.x's runnable
    /// load lost it at its dequeue.)
    pub(crate) fn load_task_dead(&mut self, pid: u32) {
        let cpu = self.task(pid).load.cfs_cpu;
        self.util_leave(cpu, pid, false);
        if (cpu as usize) < self.cpus.len() {
            // linux-4.4 fair.c task_dead_fair() (4.3 on) did the same for its groups' cfs_rqs.
            self.group44_remove(cpu, pid);
        }
        let t = self.task(pid);
        let w = prio_to_weight(t.prio);
        t.load.cfs_cpu = u32::MAX;
        let avg_cpu = std::mem::replace(&mut t.load.avg_cpu, [u32::MAX; 2]);
        for (k, c) in avg_cpu.into_iter().enumerate() {
            let Some(at) = self
                .cpus
                .get(c as usize)
                .map(|x| x.load.avg[k].last_update_time)
            else {
                continue;
            };
            // sync_entity_load_avg(): decayed, not accrued, up to the cfs_rq's last update.
            let ta = &mut self.task(pid).load.avg[k];
            ta.update(at, 0, w);
            let avg = ta.load_avg;
            self.cpus[c as usize].load.removed[k] += avg;
        }
    }

    /// 6.12's load up to now while `pid` is still queued `sched_delayed` on `cpu`, before
    /// that changes (its dequeue ends, or it moves): the task accrued as on_rq and the cfs_rq
    /// held its weight until now (v6.12 dequeue_entity(), DELAY_DEQUEUE).
    pub(crate) fn load_delayed_update(&mut self, cpu: u32, pid: u32) {
        if !self.eras[3] || pid == 0 {
            return;
        }
        let now = self.now;
        let w_cfs = self.runnable_weight(cpu) + self.delayed_weight(cpu);
        let t = self.task(pid);
        let w = prio_to_weight(t.prio);
        t.load.avg[1].update(now, 1, w);
        self.cpus[cpu as usize].load.avg[1].update(now, w_cfs, 1);
    }

    /// put_prev_entity() / set_next_entity() / the tick: `pid` stays runnable on `cpu`.
    pub(crate) fn load_touch(&mut self, cpu: u32, pid: u32) {
        if pid == 0 {
            return;
        }
        self.se_update(pid, true);
        self.cfs_update(cpu);
        self.group44_touch(cpu, pid);
    }

    /// A `sis_load` reading (init.sh): the kernel's cfs_rq load_avg and util_avg on `cpu` as
    /// its update at `lut` left them, against the rebuild's (its 5.7+ load, 6.12's if kept),
    /// both at the later update: the rebuild's brought forward takes its removed load and util
    /// off first, as the kernel's update does. A balancer's move (migrated, not woken) is left
    /// out: the rebuild attached that task at its sched_migrate_task, before this enqueue.
    pub(crate) fn load_reading(&mut self, cpu: u32, flags: u32, kernel: [u64; 2], lut: u64) {
        let k = match (self.eras[3], self.eras[2]) {
            (true, _) => 1,
            (false, true) => 0,
            _ => return,
        };
        if flags & ENQUEUE_MIGRATED != 0 && flags & ENQUEUE_WAKEUP == 0 {
            return;
        }
        let w = self.runnable_weight(cpu);
        let delayed = if k == 1 { self.delayed_weight(cpu) } else { 0 };
        let c = &self.cpus[cpu as usize];
        let running = matches!(c.curr, Some(p) if p != 0);
        // With both kept, 5.7-6.11's form too (last): the trace's kernel may be either.
        let rebuilt = [
            Some((c.load.avg[k], c.load.removed[k], w + delayed, 0)),
            Some((c.pelt, c.removed_util, u64::from(running) << 10, 1)),
            (k == 1 && self.eras[2]).then(|| (c.load.avg[0], c.load.removed[0], w, 0)),
        ];
        self.counts.load_read += 1;
        for (i, (mut r, removed, input, of)) in rebuilt.into_iter().flatten().enumerate() {
            // Both at the later of the two updates: the older one brought forward with what
            // the CPU holds now (the kernel's with its sum taken as full for its avg).
            let mut kv = LoadAvg {
                last_update_time: lut,
                load_sum: kernel[of] * PELT_MIN_DIVIDER,
                period_contrib: 0,
                load_avg: kernel[of],
            };
            if lut >= r.last_update_time + 1024 {
                sub_removed(&mut r, removed);
                r.update(lut, input, 1);
            } else {
                kv.update(r.last_update_time, input, 1);
            }
            let diff = r.load_avg.abs_diff(kv.load_avg);
            self.counts.load_read_close[i] += u64::from(diff * 10 <= kv.load_avg);
            self.counts.load_read_diff[i] += diff;
        }
    }

    /// A `sis_load` reading of the cfs_rq's util_est (6.10+, init.sh): the kernel's sum of its
    /// queued tasks' estimates before this enqueue adds the task's (util_est_enqueue() comes
    /// first in enqueue_task_fair(), after the probe), against the rebuild's sum of its
    /// runnable tasks' in each form, 5.13-6.7's and 6.8+'s (UTIL_EST_RUNNABLE). Left out:
    /// a balancer's move and a restore, whose task the kernel's sum no longer holds while the
    /// rebuild's does.
    pub(crate) fn util_est_reading(&mut self, cpu: u32, flags: u32, kernel: u64) {
        let moved = flags & ENQUEUE_MIGRATED != 0 && flags & ENQUEUE_WAKEUP == 0;
        if moved || flags & ENQUEUE_RESTORE != 0 || cpu >= self.topo.nr_cpus() {
            return;
        }
        let sums = self.rq_util_est(cpu);
        self.counts.util_est_read += 1;
        for (close, rebuilt) in self.counts.util_est_close.iter_mut().zip(sums) {
            *close += u64::from(u64::from(rebuilt).abs_diff(kernel) * 10 <= kernel);
        }
    }

    /// A `sis_tick` on `cpu` (init.sh): entity_tick() -> update_load_avg() of the running
    /// fair task and its cfs_rq (v6.12 fair.c task_tick_fair()). Where the trace shows the
    /// ticks, a wake-up reads each CPU's load and util as its last update left them, as
    /// cpu_load() and cpu_util_cfs() do, not brought up to the wake-up.
    pub(crate) fn tick(&mut self, cpu: u32) {
        self.counts.ticks += 1;
        if let Some(p) = self.cpus[cpu as usize].curr.filter(|p| *p != 0) {
            self.cpu_pelt(cpu);
            self.load_touch(cpu, p);
        }
    }

    /// A wake-up's read of `pid` running on `cpu`: brought up to now where the trace does not
    /// show the ticks (one keeps it within a jiffy); as it stands where it does.
    pub(crate) fn load_read_touch(&mut self, cpu: u32, pid: u32) {
        if self.counts.ticks == 0 {
            self.load_touch(cpu, pid);
        }
    }

    /// What wake_affine reads of `cpu` in each era. A CPU that runs a task is brought up to
    /// now (its tick keeps it within a jiffy); an idle one keeps what its last dequeue left.
    pub(crate) fn cpu_loads(&mut self, cpu: u32) -> [u64; ERAS] {
        if let Some(p) = self.cpus[cpu as usize].curr.filter(|p| *p != 0) {
            self.load_read_touch(cpu, p);
        }
        let c = &self.cpus[cpu as usize].load;
        [
            // With --autogroup, the root runqueue of group entities (replay/group44.rs).
            self.group44_root_load(cpu)
                .unwrap_or(c.cfs4[0].runnable_load_avg),
            c.cfs4[1].runnable_load_avg,
            c.avg[0].load_avg,
            c.avg[1].load_avg,
        ]
    }

    /// `p->se.avg.load_avg` in each era, as its last update left it (task_h_load(p) in the
    /// root group).
    pub(crate) fn task_loads(&self, pid: u32) -> [u64; ERAS] {
        self.tasks.get(&pid).map_or([0; ERAS], |t| {
            [
                t.load.se4[0].load_avg,
                t.load.se4[1].load_avg,
                t.load.avg[0].load_avg,
                t.load.avg[1].load_avg,
            ]
        })
    }
}

/// The load check's line under the replay's table (replay/report.rs): load and util within
/// 10% of the kernel's, with the load in 5.7-6.11's form beside 6.12's where both were kept.
pub(super) fn load_check_line(s: &mut String, c: &super::report::RebuildCounts) {
    use crate::text::Text;
    let pct = |k: usize| 100.0 * c.load_read_close[k] as f64 / c.load_read as f64;
    let mean = |k: usize| c.load_read_diff[k] / c.load_read;
    let form = match c.load_read_close[2] + c.load_read_diff[2] {
        0 => String::new(),
        _ => format!(
            " (with 6.12's delayed tasks; in 5.7-6.11's form {:.1}%, apart by {})",
            pct(2),
            mean(2)
        ),
    };
    s.line(format_args!(
        "checked: the cfs_rq load_avg wake_affine_weight() reads and the util_avg SIS_UTIL sums, \
         at {} enqueues from the trace's sis_load kprobe, against the rebuild's at the same \
         update: within 10% of the kernel's {:.1}% / {:.1}%, apart on average by {} / {}{form}",
        c.load_read,
        pct(0),
        pct(1),
        mean(0),
        mean(1)
    ));
}
