//! wake_affine() by era: the waker CPU or prev as select_idle_sibling's target; and
//! record_wakee()/wake_wide(), which decide whether an affine wake-up is wanted at all.

use super::{Wakee, Waker};
use crate::kernel::state::SchedState;

impl SchedState {
    /// linux-6.0 fair.c `wake_affine()`: WA_IDLE then WA_WEIGHT; `this` wins or prev stays.
    pub(super) fn wake_affine(&self, p: &Wakee, w: &Waker) -> u32 {
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
                idle || (self.features.wa_weight && self.wake_affine_weight(p, w).is_some());
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
            target = self.wake_affine_weight(p, w);
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
    /// `wl`; with the replay's autogroup inference (`SchedState::tg44`) it is the group
    /// entity's change of weight ([`Self::effective_load44`]).
    pub(super) fn wake_affine_legacy(&self, p: &Wakee, w: &Waker) -> u32 {
        let (this, prev) = (w.cpu, p.prev);
        let weight = p.load as i64; // p->se.avg.load_avg
        let groups = !self.tg44.is_empty();
        // source_load(prev_cpu, idx) and target_load(this_cpu, idx). With every task in the
        // group, the root runqueue holds only the group's entity.
        let root = |c: u32| {
            if groups {
                self.group_se_load44(c)
            } else {
                self.cpu_load(c)
            }
        };
        let (load, mut this_load) = (root(prev), root(this));
        // `if (this_load > 0)` reads the root runqueue, which the group entity's drift (as
        // a task's, kernel::pelt4) keeps above 0 after its last task leaves: the replay's
        // flat runnable_load_avg stands in for it.
        let mut this_positive = self.cpu_load(this);
        let effective_load = |cpu: u32, wl: i64, wg: i64| {
            if groups {
                self.effective_load44(cpu, wl, wg)
            } else {
                wl
            }
        };
        if w.sync {
            // this_load += effective_load(tg, this_cpu, -weight, -weight), current's weight
            let current = w.load as i64;
            this_load += effective_load(this, -current, -current);
            this_positive -= current;
        }
        let mut this_eff_load: i64 = 100 * 1024; // * capacity_of(prev_cpu)
        let pct = self.imbalance_pct as i64;
        let mut prev_eff_load: i64 = (100 + (pct - 100) / 2) * 1024;
        if this_positive > 0 {
            this_eff_load *= this_load + effective_load(this, weight, weight);
            prev_eff_load *= load + effective_load(prev, 0, weight);
        }
        if this_eff_load <= prev_eff_load {
            this
        } else {
            prev
        }
    }

    /// linux-4.4 fair.c `effective_load(tg, cpu, wl, wg)` for a task group one level under
    /// the root: the new weight of the group's entity on `cpu` (`W = wg + tg->load_avg -
    /// tg_load_avg_contrib + w; w += wl; wl = w * shares / W` when `W > 0 && w < W`, else
    /// the shares; at least MIN_SHARES) less its load now.
    fn effective_load44(&self, cpu: u32, wl: i64, wg: i64) -> i64 {
        const SHARES: i64 = 1024; // tg->shares: an autogroup at nice 0
        const MIN_SHARES: i64 = 2;
        let [avg, contrib, _] = self.tg44[cpu as usize].map(|v| v as i64);
        let tg_load_avg: i64 = self.tg44.iter().map(|c| c[1] as i64).sum();
        let big_w = wg + tg_load_avg - contrib + avg;
        let w = avg + wl;
        let share = if big_w > 0 && w < big_w {
            w * SHARES / big_w
        } else {
            SHARES
        };
        share.max(MIN_SHARES) - self.group_se_load44(cpu)
    }

    /// The group entity's `se->avg.load_avg` on `cpu`, taken as its weight now: linux-4.4
    /// fair.c `calc_cfs_shares()`, `shares * load.weight / (tg->load_avg -
    /// tg_load_avg_contrib + load.weight)` in [MIN_SHARES, shares]; 0 while nothing of the
    /// group is runnable there (its entity is not on the root runqueue).
    fn group_se_load44(&self, cpu: u32) -> i64 {
        let [_, contrib, runnable] = self.tg44[cpu as usize].map(|v| v as i64);
        if runnable == 0 {
            return 0;
        }
        let tg_load_avg: i64 = self.tg44.iter().map(|c| c[1] as i64).sum();
        let tg_weight = tg_load_avg - contrib + runnable;
        let shares = if tg_weight > 0 {
            1024 * runnable / tg_weight
        } else {
            1024 * runnable
        };
        shares.clamp(2, 1024)
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
        if sync && rq(this).nr_running == 1 {
            return Some(this);
        }
        // linux-5.11 fair.c wake_affine_idle: if (available_idle_cpu(prev_cpu)) return prev_cpu;
        if self.features.wa_idle_prev && rq(prev).available_idle() {
            return Some(prev);
        }
        None
    }

    /// linux-6.0 fair.c `wake_affine_weight()` (cpu_load: SchedState::cpu_load).
    pub(super) fn wake_affine_weight(&self, p: &Wakee, w: &Waker) -> Option<u32> {
        let (this, prev) = (w.cpu, p.prev);
        let cpu_load = |c: u32| self.cpu_load(c);
        let mut this_eff_load = cpu_load(this);
        if w.sync {
            let current_load = w.load as i64;
            if current_load > this_eff_load {
                return Some(this);
            }
            this_eff_load -= current_load;
        }
        let task_load = p.load as i64;
        this_eff_load += task_load;
        if self.features.wa_bias {
            this_eff_load *= 100;
        }
        this_eff_load *= 1024; // capacity_of(prev)
        let mut prev_eff_load = cpu_load(prev) - task_load;
        if self.features.wa_bias {
            let pct = self.affine_domain_imbalance_pct(this, prev) as i64;
            prev_eff_load *= 100 + (pct - 100) / 2;
        }
        prev_eff_load *= 1024; // capacity_of(this)
        if self.features.wa_414 {
            // linux-4.14 fair.c wake_affine_weight: `return this_eff_load <= prev_eff_load;`
            return (this_eff_load <= prev_eff_load).then_some(this);
        }
        if w.sync {
            prev_eff_load += 1;
        }
        (this_eff_load < prev_eff_load).then_some(this)
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
