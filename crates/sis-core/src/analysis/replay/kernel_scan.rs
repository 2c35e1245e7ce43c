//! The kernel's own SIS_UTIL budget, read from a trace with init.sh's `sis_idle` probes
//! (a kprobe and a kretprobe on available_idle_cpu()): the rebuilt `nr_idle_scan` is an
//! inference from run times, and this is the kernel's, to check it against.
//!
//! v6.12 fair.c select_idle_cpu(): `nr = READ_ONCE(sd_share->nr_idle_scan) + 1`, returning at
//! once when that is 1; then, from the target's next CPU in wrap order, `if (--nr <= 0)
//! return -1;` before each __select_idle_cpu() -> available_idle_cpu(). So where its loop
//! asked about k CPUs and was told busy each time, `nr_idle_scan` was k (unless the loop ran
//! out of CPUs, k = the LLC's weight less none). The kretprobe names the call site it returns
//! to; select_idle_sibling() and select_idle_cpu() are inlined into select_task_rq_fair() in
//! Debian's builds, so the loop is a site among the target, prev and recent_used_cpu checks,
//! and the only one that repeats within one wake-up (no SMT: no select_idle_core()). Which
//! offset that is differs per build, so the tally is kept for every site and reported for
//! the one that repeats most often.

use super::rebuild::Rebuild;
use crate::kernel::features::Features;
use crate::kernel::topology::Topology;

/// How long a wake-up waits for the next `sis_lb` reading of an LLC before it is replayed with
/// the rebuilt `nr_idle_scan` there: an LLC's CPUs balance at their domain's interval, tens of
/// ms apart at most while any is idle (v6.12 fair.c sched_balance_domains()).
pub(super) const LB_WAIT_NS: u64 = 100_000_000;

/// `enum cpu_idle_type`'s CPU_NEWLY_IDLE (2 in 6.1's order and in 6.10+'s).
const CPU_NEWLY_IDLE: u32 = 2;

/// A preset whose budget is the kernel's own SIS_UTIL `nr_idle_scan` (not SIS_PROP's, not one
/// of the posted variants' formulas): where a trace shows the kernel's, it reads that.
pub(super) fn reads_kernel_nr_idle_scan(f: &Features) -> bool {
    f.sis_util
        && !f.sis_prop
        && !f.sis_util_rfc
        && !f.sis_util_small_llc
        && !f.sis_util_idle_aware
        && !f.replaces_sis()
}

impl Rebuild {
    /// A `sis_lb` kprobe (init.sh `sis_lb=1`): sched_balance_rq() entered for `cpu`, whose
    /// blocked averages were updated just before. For a domain as wide as the LLC, `nr` is
    /// the LLC's nr_idle_scan now, which every wake-up waiting for it reads; unless the
    /// balance is newly idle (v6.12 update_idle_cpu_scan(): `env->idle == CPU_NEWLY_IDLE`
    /// returns), it then writes a new one, not known until the next entry.
    pub(super) fn lb_reading(&mut self, cpu: u32, idle: u32, span: u32, nr: Option<u32>) {
        // v6.12 sched_balance_softirq() and sched_balance_newidle(): the CPU's blocked load
        // and util are brought up to now (sched_balance_update_blocked_averages(), which
        // takes off what tasks that left it queued in `removed`) before its domains balance.
        if cpu >= self.topo.nr_cpus() {
            return;
        }
        self.cpu_pelt(cpu);
        self.cfs_update(cpu);
        let Some(nr) = nr else {
            return;
        };
        if span != self.topo.llc_weight() {
            return;
        }
        let llc = self.topo.llc_of(cpu) as usize;
        let n = self.topo.spec.llcs as usize;
        let lb = self.lb_nr.get_or_insert_with(|| vec![None; n]);
        for p in self.pending.iter_mut() {
            if p.lb_nr.get(llc) == Some(&u32::MAX) {
                p.lb_nr[llc] = nr;
            }
        }
        lb[llc] = (idle == CPU_NEWLY_IDLE).then_some(nr);
    }
}

/// The kernel's `nr_idle_scan` at one wake-up as its loop at `site` shows it: (the LLC it
/// scanned, the CPUs it asked about), where every one was busy and all were in one LLC with
/// CPUs to spare. None where the loop did not run at `site`, found an idle CPU (a lower bound
/// only), or an answer is missing.
pub(super) fn loop_reading(
    asks: &[(u32, Option<bool>)],
    sites: &[u32],
    site: u32,
    topo: &Topology,
) -> Option<(u32, u32)> {
    let mut llc = None;
    let mut k = 0u32;
    for (i, (cpu, idle)) in asks.iter().enumerate() {
        if sites.get(i) != Some(&site) {
            continue;
        }
        if *idle != Some(false) || *cpu >= topo.nr_cpus() {
            return None;
        }
        let l = topo.llc_of(*cpu);
        if *llc.get_or_insert(l) != l {
            return None;
        }
        k += 1;
    }
    let llc = llc?;
    (k < topo.llc_weight()).then_some((llc, k))
}

/// Per call site: how many wake-ups asked there twice or more, and, where the loop there
/// gives the kernel's `nr_idle_scan`, how the rebuilt one compared: [readings, equal, one
/// apart, rebuilt larger by 2+, rebuilt smaller by 2+].
#[derive(Clone, Debug, Default)]
pub(super) struct ScanTally {
    sites: Vec<(u32, u64, [u64; 5])>,
}

impl ScanTally {
    fn entry(&mut self, site: u32) -> &mut (u32, u64, [u64; 5]) {
        let i = match self.sites.iter().position(|e| e.0 == site) {
            Some(i) => i,
            None => {
                self.sites.push((site, 0, [0; 5]));
                self.sites.len() - 1
            }
        };
        &mut self.sites[i]
    }

    /// One wake-up's asks: counts the sites it asked at twice or more.
    pub fn repeats(&mut self, sites: &[u32]) {
        let mut seen: Vec<u32> = Vec::new();
        for (i, s) in sites.iter().enumerate() {
            if sites[..i].contains(s) && !seen.contains(s) {
                seen.push(*s);
                self.entry(*s).1 += 1;
            }
        }
    }

    /// The kernel's `nr_idle_scan` read at `site` against the rebuilt one.
    pub fn compare(&mut self, site: u32, rebuilt: u32, kernel: u32) {
        let t = &mut self.entry(site).2;
        t[0] += 1;
        let d = i64::from(rebuilt) - i64::from(kernel);
        let bucket = match d {
            0 => 1,
            -1 | 1 => 2,
            d if d > 1 => 3,
            _ => 4,
        };
        t[bucket] += 1;
    }

    /// One wake-up's asks and sites against the rebuilt `nr_idle_scan` of each LLC.
    pub fn wakeup(
        &mut self,
        asks: &[(u32, Option<bool>)],
        sites: &[u32],
        topo: &Topology,
        nr_idle_scan: impl Fn(u32) -> u32,
    ) {
        self.repeats(sites);
        for (i, site) in sites.iter().enumerate() {
            if sites[..i].contains(site) {
                continue;
            }
            if let Some((llc, k)) = loop_reading(asks, sites, *site, topo) {
                self.compare(*site, nr_idle_scan(llc), k);
            }
        }
    }

    /// The loop's site (the one most wake-ups asked at twice or more) and its comparison.
    pub fn result(&self) -> Option<(u32, [u64; 5])> {
        self.sites
            .iter()
            .filter(|e| e.1 > 0)
            .max_by_key(|e| (e.1, std::cmp::Reverse(e.0)))
            .map(|e| (e.0, e.2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::topology::TopologySpec;

    fn two_llcs_of_4() -> Topology {
        Topology::new(TopologySpec {
            llcs: 2,
            ..TopologySpec::one_llc(4)
        })
        .unwrap()
    }

    /// The loop's asks, all busy, give `nr_idle_scan`; an idle answer, a missing one, a CPU of
    /// another LLC or a loop that ran through the LLC give none.
    #[test]
    fn the_loops_busy_asks_are_the_kernels_nr_idle_scan() {
        let topo = two_llcs_of_4();
        let b = Some(false);
        // target 5 (another site), then the loop at 0x68b asks 6 and 7.
        let asks = [(5, b), (6, b), (7, b)];
        let sites = [0x34a, 0x68b, 0x68b];
        assert_eq!(loop_reading(&asks, &sites, 0x68b, &topo), Some((1, 2)));
        assert_eq!(loop_reading(&asks, &sites, 0x34a, &topo), Some((1, 1)));
        assert_eq!(loop_reading(&asks, &sites, 0x999, &topo), None);
        let found = [(5, b), (6, b), (7, Some(true))];
        assert_eq!(loop_reading(&found, &sites, 0x68b, &topo), None);
        let unanswered = [(5, b), (6, b), (7, None)];
        assert_eq!(loop_reading(&unanswered, &sites, 0x68b, &topo), None);
        let across = [(5, b), (3, b), (4, b)];
        assert_eq!(loop_reading(&across, &sites, 0x68b, &topo), None);
        let all = [(4, b), (5, b), (6, b), (7, b)];
        assert_eq!(loop_reading(&all, &[1, 1, 1, 1], 1, &topo), None);
    }

    /// The reported site is the one that repeats within wake-ups most often, and the
    /// comparison buckets the rebuilt value's distance from the kernel's.
    #[test]
    fn the_tally_reports_the_repeating_site() {
        let mut t = ScanTally::default();
        t.repeats(&[0x34a, 0x68b, 0x68b, 0x68b]);
        t.repeats(&[0x7c4, 0x807, 0x34a, 0x68b, 0x68b]);
        t.repeats(&[0x34a, 0x12bf]);
        for (rebuilt, kernel) in [(2, 2), (3, 2), (1, 2), (6, 2), (0, 3)] {
            t.compare(0x68b, rebuilt, kernel);
        }
        t.compare(0x34a, 1, 1);
        assert_eq!(t.result(), Some((0x68b, [5, 1, 2, 1, 1])));
        assert_eq!(ScanTally::default().result(), None);
    }
}
