//! wake_affine() by era: the waker CPU or prev as select_idle_sibling's target.

use super::{Wakee, Waker};
use crate::state::SchedState;

impl SchedState {
    /// linux-6.0 fair.c `wake_affine()`: WA_IDLE then WA_WEIGHT; `this` wins or prev stays.
    pub(super) fn wake_affine(&self, p: &Wakee, w: &Waker) -> u32 {
        let (this, prev) = (w.cpu, p.prev);
        if self.features.wa_legacy {
            return self.wake_affine_legacy(p, w);
        }
        if self.features.wake_affine_llc {
            // linux-4.13 fair.c wake_affine: if (cpus_share_cache(prev_cpu, this_cpu)) affine = true;
            let affine = self.topo.share_llc(this, prev) || self.wake_affine_llc(p, w);
            return if affine { this } else { prev };
        }
        let mut target = None;
        if self.features.wa_idle {
            target = self.wake_affine_idle(this, prev, w.sync);
        }
        if self.features.wa_weight && target.is_none() {
            target = self.wake_affine_weight(p, w);
        }
        if target == Some(this) {
            this
        } else {
            prev
        }
    }

    /// linux-4.4 fair.c `wake_affine()` with no task groups (`effective_load(tg, cpu, wl, wg)`
    /// is `wl` for the root group) and wake_idx 0; cpu_load is the CPU's util_avg here.
    pub(super) fn wake_affine_legacy(&self, p: &Wakee, w: &Waker) -> u32 {
        let (this, prev) = (w.cpu, p.prev);
        let cpu_load = |c: u32| self.rqs[c as usize].util_avg() as i64;
        let load = cpu_load(prev); // source_load(prev_cpu, idx)
        let mut this_load = cpu_load(this); // target_load(this_cpu, idx)
        if w.sync {
            // this_load += effective_load(tg, this_cpu, -weight, -weight)
            this_load -= w.load as i64;
        }
        let weight = p.load as i64;
        let mut this_eff_load: i64 = 100 * 1024; // * capacity_of(prev_cpu)
        let mut prev_eff_load: i64 = (100 + (self.imbalance_pct as i64 - 100) / 2) * 1024;
        if this_load > 0 {
            this_eff_load *= this_load + weight;
            prev_eff_load *= load; // load + effective_load(tg, prev_cpu, 0, weight)
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
        if sync && rq(this).nr_running == 1 {
            return Some(this);
        }
        // linux-5.11 fair.c wake_affine_idle: if (available_idle_cpu(prev_cpu)) return prev_cpu;
        if self.features.wa_idle_prev && rq(prev).available_idle() {
            return Some(prev);
        }
        None
    }

    /// linux-6.0 fair.c `wake_affine_weight()`; cpu_load is the CPU's util_avg in this model.
    pub(super) fn wake_affine_weight(&self, p: &Wakee, w: &Waker) -> Option<u32> {
        let (this, prev) = (w.cpu, p.prev);
        let cpu_load = |c: u32| self.rqs[c as usize].util_avg() as i64;
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

    /// linux-4.13 fair.c `wake_affine_llc()`: across LLCs, move the wakee to the waker's LLC
    /// only if that does not unbalance the two. The kernel reads the LLCs' nr_running, load
    /// and capacity from sd_llc_shared as the last balance left them; the model sums them live
    /// (cpu_load is util_avg here, as in wake_affine_weight).
    pub(super) fn wake_affine_llc(&self, p: &Wakee, w: &Waker) -> bool {
        let stats = |cpu: u32| {
            let span = self.topo.llc_span(self.topo.llc_of(cpu));
            let (mut nr, mut load) = (0i64, 0i64);
            for c in span.iter() {
                nr += self.rqs[c as usize].nr_running as i64;
                load += self.rqs[c as usize].util_avg() as i64;
            }
            let size = span.weight() as i64;
            (nr, load, size * 1024, nr < size) // get_llc_stats: has_capacity = nr_running < sd_llc_size
        };
        let (prev_nr, prev_load, prev_cap, prev_has_cap) = stats(p.prev);
        let (this_nr, mut this_load, this_cap, this_has_cap) = stats(w.cpu);
        if w.sync {
            let current_load = w.load as i64;
            if current_load > this_load {
                return true;
            }
            this_load -= current_load;
        }
        if prev_has_cap && prev_nr < this_nr + 1 {
            return false;
        }
        if this_has_cap && this_nr + 1 < prev_nr {
            return true;
        }
        let task_load = p.load as i64;
        let mut this_eff_load = 100 * prev_cap;
        let mut prev_eff_load = (100 + (self.pkg_imbalance_pct as i64 - 100) / 2) * this_cap;
        this_eff_load *= this_load + task_load;
        prev_eff_load *= prev_load - task_load;
        this_eff_load <= prev_eff_load
    }
}
