//! The older LLC searches: 4.4's group walk (select_idle_sibling before 4.9) and the
//! three-pass era's select_idle_core (4.13-5.11).

use super::{Ctx, Wakee, NR_INF};
use crate::kernel::cpumask::CpuMask;
use crate::kernel::state::SchedState;
use crate::kernel::trace::{Recorder, Rule};

impl SchedState {
    /// linux-4.4 fair.c `select_idle_sibling()` after target and prev: `for_each_lower_domain`
    /// from sd_llc(target), each domain's groups from target's own (the circular list in order
    /// of their first CPU): the first group that meets p's mask and whose CPUs are all idle and
    /// not target gives `cpumask_first_and(group, allowed)`. The LLC domain's groups are the
    /// cores (single CPUs without SMT); the SMT domain's are target's siblings.
    pub(super) fn select_idle_sibling_group_walk<R: Recorder>(
        &self,
        p: &Wakee,
        target: u32,
        ctx: &mut Ctx<'_, R>,
    ) -> Option<(u32, Rule)> {
        let llc = self.topo.llc_of(target);
        let span = self.topo.llc_span(llc);
        let smt = self.topo.smt() > 1;
        // The LLC domain's groups by first CPU; target's first, then on, wrapping.
        let mut firsts: Vec<u32> = span
            .iter()
            .filter(|c| !smt || self.topo.smt_siblings(*c)[0] == *c)
            .collect();
        let own = if smt {
            self.topo.smt_siblings(target)[0]
        } else {
            target
        };
        let at = firsts.iter().position(|c| *c == own).unwrap_or(0);
        firsts.rotate_left(at);
        'groups: for first in firsts.iter().copied() {
            let one = [first];
            let group: &[u32] = if smt {
                self.topo.smt_siblings(first)
            } else {
                &one
            };
            if !group.iter().any(|c| p.allowed.test(*c)) {
                continue;
            }
            for &i in group {
                if i == target {
                    if R::ON {
                        ctx.rec
                            .step(Rule::GroupWalk, i, self.rqs[i as usize].saw(), None);
                    }
                    continue 'groups;
                }
                if !ctx.probe(self, Rule::GroupWalk, i, NR_INF) {
                    continue 'groups;
                }
            }
            if let Some(c) = group.iter().copied().find(|c| p.allowed.test(*c)) {
                return Some((c, Rule::GroupWalk));
            }
        }
        if smt {
            // The SMT domain of target: one group per sibling, from target's, wrapping.
            let sib = self.topo.smt_siblings(target);
            let k = sib.iter().position(|c| *c == target).unwrap_or(0);
            for j in 1..sib.len() {
                let i = sib[(k + j) % sib.len()];
                if !p.allowed.test(i) {
                    continue;
                }
                if ctx.probe(self, Rule::GroupWalk, i, NR_INF) {
                    return Some((i, Rule::GroupWalk));
                }
            }
        }
        None
    }

    /// Legacy `select_idle_core()` (4.13-5.11): scan the whole LLC core by core from target;
    /// clear has_idle_cores when no core is fully idle.
    pub(super) fn select_idle_core_legacy<R: Recorder>(
        &mut self,
        p: &Wakee,
        target: u32,
        ctx: &mut Ctx<'_, R>,
    ) -> Option<u32> {
        let llc = self.topo.llc_of(target);
        ctx.c.sis_core_search += 1;
        let mut cpus = std::mem::replace(&mut self.scratch, CpuMask::new(0));
        cpus.assign_and(self.topo.llc_span(llc), p.allowed);
        let mut cur = cpus.wrap_cursor(target);
        let mut found = None;
        while let Some(core) = cur.next(&cpus) {
            let mut idle = true;
            for &s in self.topo.smt_siblings(core) {
                if !ctx.probe(self, Rule::SelectIdleCore, s, NR_INF)
                    || !self.rqs[s as usize].available_idle()
                {
                    idle = false;
                    if self.features.core_break {
                        break; // linux-5.6 fair.c select_idle_core: stop at the first busy sibling
                    }
                }
            }
            cpus.and_not(self.topo.smt_mask(core));
            if idle {
                found = Some(core);
                break;
            }
        }
        self.scratch = cpus;
        if found.is_none() {
            self.llcs[llc as usize].has_idle_cores = false;
            ctx.c.sis_core_miss += 1;
        }
        found
    }
}
