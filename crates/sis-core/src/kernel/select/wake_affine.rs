//! wake_affine() by era: the waker CPU or prev as select_idle_sibling's target; and
//! record_wakee()/wake_wide(), which decide whether an affine wake-up is wanted at all.

use super::{Wakee, Waker};
use crate::kernel::state::SchedState;
use crate::kernel::trace::{AffineWeight, Recorder};

impl SchedState {
    /// linux-6.0 fair.c `wake_affine()`: WA_IDLE then WA_WEIGHT; `this` wins or prev stays.
    pub(super) fn wake_affine<R: Recorder>(&self, p: &Wakee, w: &Waker, rec: &mut R) -> u32 {
        let (this, prev) = (w.cpu, p.prev);
        if self.features.wa_legacy {
            return self.wake_affine_legacy(p, w);
        }
        if self.features.wake_affine_llc {
            // linux-4.13 fair.c wake_affine: if (cpus_share_cache(prev_cpu, this_cpu)) affine =
            // true; else affine = numa_wake_affine(sd, p, this_cpu, prev_cpu, sync);
            let affine = self.topo.share_llc(this, prev) || self.wake_affine_llc(p, w);
            return if affine { this } else { prev };
        }
        if self.features.wa_414 {
            // linux-4.14 fair.c wake_affine(): `affine = wake_affine_idle(..)`, then
            // `if (sched_feat(WA_WEIGHT) && !affine) affine = wake_affine_weight(..)`;
            // wake_affine_idle(): `if (idle_cpu(this_cpu)) return true; if (sync &&
            // cpu_rq(this_cpu)->nr_running == 1) return true;`
            let rq = &self.rqs[this as usize];
            let idle =
                self.features.wa_idle && (rq.available_idle() || (w.sync && rq.nr_running == 1));
            let affine =
                idle || (self.features.wa_weight && self.wake_affine_weight(p, w, rec).is_some());
            return if affine { this } else { prev };
        }
        let mut target = None;
        if self.features.wa_idle {
            target = self.wake_affine_idle(this, prev, w.sync);
            if target.is_none() && self.features.sis_short {
                // SIS_SHORT v6 wake_affine_idle, last: `if (cpu_rq(this_cpu)->nr_running == 1
                // && is_short_task(rcu_dereference(cpu_curr(this_cpu)))) return this_cpu;`
                if self.rqs[this as usize].nr_running == 1 && self.is_short_task(&w.curr) {
                    target = Some(this);
                }
            }
        }
        if self.features.wa_weight && target.is_none() {
            target = self.wake_affine_weight(p, w, rec);
        }
        // SIS_CURRENT v8 wake_affine: `if (target == nr_cpumask_bits && wake_on_current(this_cpu,
        // p)) target = this_cpu;`
        if target.is_none() && self.wake_on_current(this, p, w) {
            target = Some(this);
        }
        if target == Some(this) {
            this
        } else {
            prev
        }
    }

    /// linux-4.4 fair.c `wake_affine()`, wake_idx 0 (`weighted_cpuload()`,
    /// SchedState::cpu_load). In the root task group `effective_load(tg, cpu, wl, wg)` is
    /// `wl`; in a task group (the replay's `--autogroup`, `SchedState::tg44`) it is the change
    /// of the group entity's weight ([`effective_load44`]).
    pub(super) fn wake_affine_legacy(&self, p: &Wakee, w: &Waker) -> u32 {
        let (this, prev) = (w.cpu, p.prev);
        let groups = self.tg44.as_ref();
        let load = self.cpu_load(prev); // source_load(prev_cpu, idx)
        let mut this_load = self.cpu_load(this); // target_load(this_cpu, idx)
        if w.sync {
            // tg = task_group(current); weight = current->se.avg.load_avg;
            // this_load += effective_load(tg, this_cpu, -weight, -weight);
            let current = w.load as i64;
            let tg = groups.and_then(|g| g.waker.as_ref());
            this_load += effective_load44(tg.map(|g| g.this), tg, -current, -current);
        }
        let weight = p.load as i64; // p->se.avg.load_avg
        let tg = groups.and_then(|g| g.wakee.as_ref());
        let mut this_eff_load: i64 = 100 * 1024; // * capacity_of(prev_cpu)
                                                 // sd->imbalance_pct of affine_sd: the lowest SD_WAKE_AFFINE domain spanning prev
                                                 // (SMT 110, MC 117: linux-4.4 core.c sd_init()).
        let pct = self.affine_domain_imbalance_pct(this, prev) as i64;
        let mut prev_eff_load: i64 = (100 + (pct - 100) / 2) * 1024;
        if this_load > 0 {
            this_eff_load *= this_load + effective_load44(tg.map(|g| g.this), tg, weight, weight);
            prev_eff_load *= load + effective_load44(tg.map(|g| g.prev), tg, 0, weight);
        }
        if this_eff_load <= prev_eff_load {
            this
        } else {
            prev
        }
    }

    /// linux-6.0 fair.c `wake_affine_idle()`.
    pub(super) fn wake_affine_idle(&self, this: u32, prev: u32, sync: bool) -> Option<u32> {
        let rq = |c: u32| &self.rqs[c as usize];
        if rq(this).available_idle() && self.topo.share_llc(this, prev) {
            return Some(if rq(prev).available_idle() {
                prev
            } else {
                this
            });
        }
        // 6.12.37+ stable and 6.15 fair.c wake_affine_idle() (aa3ee4f0b754, "sched/fair: Fixup
        // wake_up_sync() vs DELAYED_DEQUEUE"): `(rq->nr_running - cfs_h_nr_delayed(rq)) == 1`.
        // Where nothing is delayed (every other era) it is linux-4.14's `nr_running == 1`.
        if sync && rq(this).nr_running.saturating_sub(rq(this).nr_delayed) == 1 {
            return Some(this);
        }
        // linux-5.11 fair.c wake_affine_idle: if (available_idle_cpu(prev_cpu)) return prev_cpu;
        if self.features.wa_idle_prev && rq(prev).available_idle() {
            return Some(prev);
        }
        None
    }

    /// linux-6.0 fair.c `wake_affine_weight()` (cpu_load: SchedState::cpu_load): this_cpu
    /// if it wins. Recorded when a recorder is on.
    pub(super) fn wake_affine_weight<R: Recorder>(
        &self,
        p: &Wakee,
        w: &Waker,
        rec: &mut R,
    ) -> Option<u32> {
        let a = self.affine_weight(p, w);
        if R::ON {
            rec.affine_weight(a);
        }
        a.this_wins.then_some(w.cpu)
    }

    /// wake_affine_weight()'s comparison, term by term.
    fn affine_weight(&self, p: &Wakee, w: &Waker) -> AffineWeight {
        let (this, prev) = (w.cpu, p.prev);
        let this_load = self.cpu_load(this);
        let prev_load = self.cpu_load(prev);
        let task_load = p.load as i64;
        let current_load = w.sync.then_some(w.load as i64);
        let mut a = AffineWeight {
            this_load,
            prev_load,
            task_load,
            current_load,
            this_pct: 1,
            prev_pct: 1,
            ..AffineWeight::default()
        };
        let mut this_eff_load = this_load;
        if let Some(current_load) = current_load {
            if current_load > this_eff_load {
                a.waker_heavier = true;
                a.this_wins = true;
                return a;
            }
            this_eff_load -= current_load;
        }
        this_eff_load += task_load;
        if self.features.wa_bias {
            a.this_pct = 100;
            let pct = self.affine_domain_imbalance_pct(this, prev) as i64;
            a.prev_pct = 100 + (pct - 100) / 2;
        }
        this_eff_load *= a.this_pct;
        this_eff_load *= 1024; // capacity_of(prev)
        let mut prev_eff_load = (prev_load - task_load) * a.prev_pct;
        prev_eff_load *= 1024; // capacity_of(this)
        if self.features.wa_414 {
            // linux-4.14 fair.c wake_affine_weight: `return this_eff_load <= prev_eff_load;`
            a.this_wins = this_eff_load <= prev_eff_load;
        } else {
            if w.sync {
                prev_eff_load += 1;
            }
            a.this_wins = this_eff_load < prev_eff_load;
        }
        a.this_eff_load = this_eff_load;
        a.prev_eff_load = prev_eff_load;
        a
    }

    /// The imbalance_pct of `sd` in wake_affine(sd, ...): select_task_rq_fair's
    /// for_each_domain stops at the lowest SD_WAKE_AFFINE domain spanning prev_cpu
    /// (linux-6.0 fair.c select_task_rq_fair), so SMT siblings use the SMT domain's 110
    /// (topology.c sd_init: SD_SHARE_CPUCAPACITY), CPUs of one LLC the LLC's, others PKG's.
    pub(super) fn affine_domain_imbalance_pct(&self, this: u32, prev: u32) -> u32 {
        if self.topo.smt() > 1 && self.topo.smt_siblings(this).contains(&prev) {
            110
        } else if self.topo.share_llc(this, prev) {
            self.imbalance_pct
        } else {
            self.pkg_imbalance_pct
        }
    }

    /// linux-4.13 fair.c `numa_wake_affine()` (CONFIG_NUMA_BALANCING, as x86 distributions
    /// build it): across LLCs, compare the two CPUs' nodes, each `update_numa_stats()`'s sum
    /// of weighted_cpuload and capacity. On one node both sides read the same node, so only a
    /// sync waker's own load can tip it. (The LLC-level wake_affine_llc() of 90001d67be2f was
    /// in 4.14's release candidates only.)
    pub(super) fn wake_affine_llc(&self, p: &Wakee, w: &Waker) -> bool {
        let stats = |cpu: u32| {
            let node = self.topo.node_of_llc(self.topo.llc_of(cpu));
            let (mut load, mut cap) = (0i64, 0i64);
            for c in 0..self.topo.nr_cpus() {
                if self.topo.node_of_llc(self.topo.llc_of(c)) == node {
                    load += self.cpu_load(c);
                    cap += 1024; // capacity_of(cpu)
                }
            }
            (load, cap)
        };
        let (prev_load, prev_cap) = stats(p.prev);
        let (mut this_load, this_cap) = stats(w.cpu);
        if w.sync {
            // if (this_load.load > current_load) this_load.load -= current_load; else 0
            let current_load = w.load as i64;
            this_load = if this_load > current_load {
                this_load - current_load
            } else {
                0
            };
        }
        if this_load > 0 {
            let task_load = p.load as i64;
            let mut this_eff_load = 100 * prev_cap;
            let mut prev_eff_load = (100 + (self.pkg_imbalance_pct as i64 - 100) / 2) * this_cap;
            this_eff_load *= this_load + task_load;
            prev_eff_load *= prev_load - task_load;
            return this_eff_load <= prev_eff_load;
        }
        true
    }
}

/// A task's wake-up flips, the `task_struct` fields record_wakee() keeps: `wakee_flips`,
/// `wakee_flip_decay_ts` (ns here, jiffies in the kernel) and `last_wakee` (a task id).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WakeeFlips {
    pub wakee_flips: u32,
    pub wakee_flip_decay_ts: u64,
    pub last_wakee: u32,
}

/// One second, the kernel's `HZ` jiffies, in ns.
const HZ_NS: u64 = 1_000_000_000;

/// linux-4.4..6.x fair.c record_wakee(), run on the waker (`current`) when it wakes `wakee`:
/// the flips halve once a second, and grow by one each time the waker wakes another task.
pub fn record_wakee(current: &mut WakeeFlips, wakee: u32, now_ns: u64) {
    // if (time_after(jiffies, current->wakee_flip_decay_ts + HZ))
    if now_ns > current.wakee_flip_decay_ts + HZ_NS {
        current.wakee_flips >>= 1;
        current.wakee_flip_decay_ts = now_ns;
    }
    if current.last_wakee != wakee {
        current.last_wakee = wakee;
        current.wakee_flips += 1;
    }
}

/// A task group one level under the root as linux-4.4's effective_load() reads it on the
/// waker's CPU and on prev: each `[cfs_rq->avg.load_avg, cfs_rq->tg_load_avg_contrib,
/// se->avg.load_avg]` (the group's cfs_rq there and its entity on the root runqueue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupLoad44 {
    /// `tg->load_avg`.
    pub tg_load_avg: u64,
    pub this: [u64; 3],
    pub prev: [u64; 3],
}

/// The task groups of a wake-up's wakee and waker (None: the root task group).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskGroups44 {
    pub wakee: Option<GroupLoad44>,
    pub waker: Option<GroupLoad44>,
}

/// linux-4.4 fair.c `effective_load(tg, cpu, wl, wg)`: `wl` in the root group; for a group
/// one level under it, the entity's new weight less its load now: `W = wg + tg->load_avg -
/// tg_load_avg_contrib + w; w += wl; wl = w * tg->shares / W` if `W > 0 && w < W`, else
/// the shares; at least MIN_SHARES; `wl -= se->avg.load_avg`.
fn effective_load44(at: Option<[u64; 3]>, tg: Option<&GroupLoad44>, wl: i64, wg: i64) -> i64 {
    let (Some([avg, contrib, se_load]), Some(tg)) = (at, tg) else {
        return wl;
    };
    const SHARES: i64 = 1024; // an autogroup at nice 0
    const MIN_SHARES: i64 = 2;
    let (avg, contrib) = (avg as i64, contrib as i64);
    let big_w = wg + tg.tg_load_avg as i64 - contrib + avg;
    let w = avg + wl;
    let share = if big_w > 0 && w < big_w {
        w * SHARES / big_w
    } else {
        SHARES
    };
    share.max(MIN_SHARES) - se_load as i64
}

/// linux-4.4..6.x fair.c wake_wide(): true (no affine wake-up) when both the waker and the
/// wakee switch partners often: `slave >= factor && master >= slave * factor`, with factor
/// = sd_llc_size, master the larger of the two flip counts.
pub fn wake_wide(waker_flips: u32, wakee_flips: u32, sd_llc_size: u32) -> bool {
    let (master, slave) = (waker_flips.max(wakee_flips), waker_flips.min(wakee_flips));
    // if (slave < factor || master < slave * factor) return 0;
    slave >= sd_llc_size && master as u64 >= slave as u64 * sd_llc_size as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_load44_is_the_group_entitys_change_of_weight() {
        let tg = GroupLoad44 {
            tg_load_avg: 3000,
            this: [1000, 1000, 300],
            prev: [1500, 1400, 500],
        };
        // W = 500 + 3000 - 1000 + 1000 = 3500, w = 1500: 1500 * 1024 / 3500 = 438, less 300.
        assert_eq!(effective_load44(Some(tg.this), Some(&tg), 500, 500), 138);
        // Only wg: W = 500 + 3000 - 1400 + 1500 = 3600, w = 1500: 426, less 500.
        assert_eq!(effective_load44(Some(tg.prev), Some(&tg), 0, 500), -74);
        // w >= W: the whole shares; the root group: wl itself.
        assert_eq!(
            effective_load44(Some(tg.this), Some(&tg), 5000, 0),
            1024 - 300
        );
        assert_eq!(effective_load44(None, None, 500, 500), 500);
        // At least MIN_SHARES (2).
        let empty = GroupLoad44 {
            tg_load_avg: 100_000,
            this: [0, 0, 0],
            prev: [0, 0, 0],
        };
        assert_eq!(effective_load44(Some(empty.this), Some(&empty), 1, 1), 2);
    }

    #[test]
    fn wake_wide_is_wide_from_both_bounds_inclusive() {
        // factor 4: slave must reach 4 and master 4 * slave; each bound is `<` in the kernel's
        // early return, so equality is wide.
        assert!(wake_wide(16, 4, 4));
        assert!(wake_wide(4, 16, 4), "symmetric in waker and wakee");
        assert!(!wake_wide(15, 4, 4), "master one short of slave * factor");
        assert!(!wake_wide(16, 3, 4), "slave one short of factor");
        assert!(
            wake_wide(u32::MAX, u32::MAX / 8, 8),
            "no overflow in slave * factor"
        );
    }

    #[test]
    fn record_wakee_counts_partner_changes_and_halves_each_second() {
        let mut w = WakeeFlips {
            last_wakee: 1,
            ..Default::default()
        };
        record_wakee(&mut w, 1, 10);
        assert_eq!(w.wakee_flips, 0, "the same wakee again is no flip");
        record_wakee(&mut w, 2, 20);
        record_wakee(&mut w, 3, 30);
        assert_eq!((w.wakee_flips, w.last_wakee), (2, 3));
        // Exactly HZ after the decay stamp is not yet after it (time_after is strict).
        record_wakee(&mut w, 3, HZ_NS);
        assert_eq!(w.wakee_flips, 2);
        record_wakee(&mut w, 4, HZ_NS + 1);
        assert_eq!(
            (w.wakee_flips, w.wakee_flip_decay_ts),
            (2, HZ_NS + 1),
            "halved, then +1"
        );
    }
}

#[cfg(test)]
mod delayed_tests {
    use crate::kernel::features::preset;
    use crate::kernel::state::SchedState;
    use crate::kernel::topology::{Topology, TopologySpec};

    /// 6.12.37+ / 6.15 wake_affine_idle() (aa3ee4f0b754): a sync waker's CPU is taken when it
    /// runs only the waker once the tasks left queued `sched_delayed` are not counted; with one
    /// real task more it is not.
    #[test]
    fn a_sync_wakeup_takes_the_wakers_cpu_past_its_delayed_tasks() {
        let topo = Topology::new(TopologySpec::one_llc(4)).unwrap();
        let mut st = SchedState::new(topo, preset("linux-6.12").unwrap().features, 117, 0);
        for c in 0..4 {
            st.rqs[c].nr_running = 1;
        }
        // CPU0 runs the waker and holds two delayed tasks (rq->nr_running 3).
        st.rqs[0].nr_running = 3;
        st.rqs[0].nr_delayed = 2;
        assert_eq!(st.wake_affine_idle(0, 1, true), Some(0));
        assert_eq!(st.wake_affine_idle(0, 1, false), None);
        st.rqs[0].nr_delayed = 1;
        assert_eq!(st.wake_affine_idle(0, 1, true), None);
    }
}
