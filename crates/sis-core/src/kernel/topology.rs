//! Machine topology: LLCs, optional clusters, SMT cores, CPU numbering.

use crate::kernel::cpumask::CpuMask;
use serde::{Deserialize, Serialize};

/// How CPU ids map to SMT threads (changes `for_each_cpu_wrap` order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Numbering {
    /// SMT siblings adjacent: core k of LLC l owns `l*W + k*smt .. +smt`.
    Contiguous,
    /// Sibling of cpu i is i + N/smt (most x86 machines): all first threads, then all second.
    Interleaved,
}

impl Numbering {
    pub fn name(self) -> &'static str {
        match self {
            Numbering::Contiguous => "contiguous",
            Numbering::Interleaved => "interleaved",
        }
    }
}

/// The user-facing description of a topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopologySpec {
    pub llcs: u32,
    pub llc_weight: u32,
    pub smt: u32,
    /// CPUs per cluster (SD_CLUSTER), 0 = no clusters.
    #[serde(default)]
    pub cluster_size: u32,
    pub numbering: Numbering,
    /// NUMA nodes, each an equal run of LLCs (1: one node, the scenarios' machines). Read by
    /// the paths that stop at a node: SIS_NODE's select_idle_node and sched_ext 6.15's NUMA
    /// step; load balance does not model the NUMA levels.
    #[serde(default = "one_node")]
    pub nodes: u32,
}

fn one_node() -> u32 {
    1
}

pub const MAX_LLC_WEIGHT: u32 = 1024;
pub const MAX_LLCS: u32 = 16;
pub const MAX_CPUS: u32 = 4096;

impl TopologySpec {
    /// One LLC of `w` CPUs, no SMT, no clusters, one node.
    pub const fn one_llc(w: u32) -> Self {
        TopologySpec {
            llcs: 1,
            llc_weight: w,
            smt: 1,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            nodes: 1,
        }
    }

    /// Checks the spec; the error names the field and the allowed values.
    pub fn check(&self) -> Result<(), crate::InputError> {
        use crate::InputError as E;
        if !(1..=MAX_LLC_WEIGHT).contains(&self.llc_weight) {
            return Err(E::range(
                "llc_weight",
                self.llc_weight,
                "an integer in 1..=1024",
            ));
        }
        if !(1..=MAX_LLCS).contains(&self.llcs) {
            return Err(E::range("llcs", self.llcs, "an integer in 1..=16"));
        }
        if ![1, 2, 4].contains(&self.smt) {
            return Err(E::range("smt", self.smt, "1, 2 or 4"));
        }
        if !self.llc_weight.is_multiple_of(self.smt) {
            return Err(E::range(
                "smt",
                self.smt,
                &format!("a divisor of llc_weight {} (1, 2 or 4)", self.llc_weight),
            ));
        }
        if self.llcs * self.llc_weight > MAX_CPUS {
            return Err(E::range(
                "llcs",
                self.llcs,
                &format!(
                    "at most {} LLCs of {} CPUs (4096 CPUs in all)",
                    MAX_CPUS / self.llc_weight,
                    self.llc_weight
                ),
            ));
        }
        if self.nodes == 0 || self.nodes > self.llcs || !self.llcs.is_multiple_of(self.nodes) {
            return Err(E::range(
                "nodes",
                self.nodes,
                &format!(
                    "an integer in 1..={} that divides llcs {}",
                    self.llcs, self.llcs
                ),
            ));
        }
        if self.cluster_size != 0
            && (!self.cluster_size.is_multiple_of(self.smt)
                || !self.llc_weight.is_multiple_of(self.cluster_size)
                || self.cluster_size >= self.llc_weight)
        {
            return Err(E::range(
                "cluster_size",
                self.cluster_size,
                &format!(
                    "0 (no clusters) or a multiple of smt {} that divides llc_weight {} and is smaller than it",
                    self.smt, self.llc_weight
                ),
            ));
        }
        Ok(())
    }
}

/// A built topology with per-CPU lookup tables.
#[derive(Clone, Debug)]
pub struct Topology {
    pub spec: TopologySpec,
    nr_cpus: u32,
    llc_of: Vec<u32>,
    core_of: Vec<u32>,
    cluster_of: Vec<u32>,
    /// CPUs of each core (global core id), in ascending CPU id order.
    core_cpus: Vec<Vec<u32>>,
    llc_span: Vec<CpuMask>,
    cluster_span: Vec<CpuMask>,
    core_mask: Vec<CpuMask>,
    /// The LLC-domain groups (SMT cores, or clusters when present), for load balancing.
    llc_groups: FlatGroups,
}

impl Topology {
    pub fn new(spec: TopologySpec) -> Result<Self, crate::InputError> {
        spec.check()?;
        let nr_cpus = spec.llcs * spec.llc_weight;
        let cores_per_llc = spec.llc_weight / spec.smt;
        let total_cores = nr_cpus / spec.smt;
        let mut llc_of = vec![0; nr_cpus as usize];
        let mut core_of = vec![0; nr_cpus as usize];
        let mut cluster_of = vec![0; nr_cpus as usize];
        let mut core_cpus = vec![Vec::new(); total_cores as usize];
        for llc in 0..spec.llcs {
            for core in 0..cores_per_llc {
                let gcore = llc * cores_per_llc + core;
                for thread in 0..spec.smt {
                    let cpu = match spec.numbering {
                        Numbering::Contiguous => llc * spec.llc_weight + core * spec.smt + thread,
                        Numbering::Interleaved => thread * total_cores + gcore,
                    };
                    llc_of[cpu as usize] = llc;
                    core_of[cpu as usize] = gcore;
                    let cores_per_cluster = if spec.cluster_size == 0 {
                        cores_per_llc
                    } else {
                        spec.cluster_size / spec.smt
                    };
                    cluster_of[cpu as usize] =
                        llc * (cores_per_llc / cores_per_cluster) + core / cores_per_cluster;
                    core_cpus[gcore as usize].push(cpu);
                }
            }
        }
        for c in &mut core_cpus {
            c.sort_unstable();
        }
        let nr_clusters = cluster_of.iter().copied().max().unwrap_or(0) + 1;
        let mut llc_span = vec![CpuMask::new(nr_cpus); spec.llcs as usize];
        let mut cluster_span = vec![CpuMask::new(nr_cpus); nr_clusters as usize];
        let mut core_mask = vec![CpuMask::new(nr_cpus); total_cores as usize];
        for cpu in 0..nr_cpus {
            llc_span[llc_of[cpu as usize] as usize].set(cpu);
            cluster_span[cluster_of[cpu as usize] as usize].set(cpu);
            core_mask[core_of[cpu as usize] as usize].set(cpu);
        }
        let mut llc_groups = Vec::new();
        for llc in 0..spec.llcs {
            let mut groups: Vec<Vec<u32>> = Vec::new();
            let mut seen = Vec::new();
            for cpu in llc_span[llc as usize].iter() {
                let key = if spec.cluster_size != 0 {
                    cluster_of[cpu as usize]
                } else {
                    core_of[cpu as usize]
                };
                match seen.iter().position(|k| *k == key) {
                    Some(i) => groups[i].push(cpu),
                    None => {
                        seen.push(key);
                        groups.push(vec![cpu]);
                    }
                }
            }
            llc_groups.push(groups);
        }
        Ok(Topology {
            spec,
            nr_cpus,
            llc_of,
            core_of,
            cluster_of,
            core_cpus,
            llc_span,
            cluster_span,
            core_mask,
            llc_groups: llc_groups.into_iter().flatten_groups(),
        })
    }

    pub fn nr_cpus(&self) -> u32 {
        self.nr_cpus
    }
    pub fn llc_weight(&self) -> u32 {
        self.spec.llc_weight
    }
    pub fn smt(&self) -> u32 {
        self.spec.smt
    }
    pub fn has_clusters(&self) -> bool {
        self.spec.cluster_size != 0
    }
    pub fn llc_of(&self, cpu: u32) -> u32 {
        self.llc_of[cpu as usize]
    }
    pub fn core_of(&self, cpu: u32) -> u32 {
        self.core_of[cpu as usize]
    }
    pub fn cluster_of(&self, cpu: u32) -> u32 {
        self.cluster_of[cpu as usize]
    }
    /// LLCs per NUMA node.
    pub fn llcs_per_node(&self) -> u32 {
        self.spec.llcs / self.spec.nodes.max(1)
    }
    /// The NUMA node of an LLC (`cpu_to_node` of its CPUs).
    pub fn node_of_llc(&self, llc: u32) -> u32 {
        llc / self.llcs_per_node().max(1)
    }
    /// `cpus_share_cache`.
    pub fn share_llc(&self, a: u32, b: u32) -> bool {
        self.llc_of(a) == self.llc_of(b)
    }
    /// `cpus_share_resources`: same cluster when clusters exist, else same LLC.
    pub fn share_resources(&self, a: u32, b: u32) -> bool {
        self.cluster_of(a) == self.cluster_of(b)
    }
    /// `cpu_smt_mask(cpu)` as a list, ascending.
    pub fn smt_siblings(&self, cpu: u32) -> &[u32] {
        &self.core_cpus[self.core_of(cpu) as usize]
    }
    pub fn smt_mask(&self, cpu: u32) -> &CpuMask {
        &self.core_mask[self.core_of(cpu) as usize]
    }
    /// `sched_domain_span(sd_llc)` of the LLC `llc`.
    pub fn llc_span(&self, llc: u32) -> &CpuMask {
        &self.llc_span[llc as usize]
    }
    pub fn cluster_span_of(&self, cpu: u32) -> &CpuMask {
        &self.cluster_span[self.cluster_of(cpu) as usize]
    }
    /// Groups of the LLC domain of `llc` (cores, or clusters).
    pub fn llc_groups(&self, llc: u32) -> &[Vec<u32>] {
        &self.llc_groups.groups
            [self.llc_groups.start[llc as usize]..self.llc_groups.start[llc as usize + 1]]
    }
    pub fn cores_per_llc(&self) -> u32 {
        self.spec.llc_weight / self.spec.smt
    }
}

/// Groups of every LLC flattened into one vector with start offsets.
#[derive(Clone, Debug, Default)]
struct FlatGroups {
    groups: Vec<Vec<u32>>,
    start: Vec<usize>,
}

trait FlattenGroups {
    fn flatten_groups(self) -> FlatGroups;
}

impl<I: Iterator<Item = Vec<Vec<u32>>>> FlattenGroups for I {
    fn flatten_groups(self) -> FlatGroups {
        let mut f = FlatGroups {
            groups: Vec::new(),
            start: vec![0],
        };
        for g in self {
            f.groups.extend(g);
            f.start.push(f.groups.len());
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(llcs: u32, w: u32, smt: u32, numbering: Numbering) -> Topology {
        Topology::new(TopologySpec {
            llcs,
            llc_weight: w,
            smt,
            cluster_size: 0,
            numbering,
            nodes: 1,
        })
        .unwrap()
    }

    /// Nodes are equal runs of LLCs: an LLC's node, and a count that does not divide the
    /// LLCs named with its range.
    #[test]
    fn nodes_are_equal_runs_of_llcs() {
        let spec = TopologySpec {
            llcs: 4,
            llc_weight: 4,
            smt: 1,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            nodes: 2,
        };
        let t = Topology::new(spec).unwrap();
        assert_eq!(t.llcs_per_node(), 2);
        let nodes: Vec<u32> = (0..4).map(|l| t.node_of_llc(l)).collect();
        assert_eq!(nodes, [0, 0, 1, 1]);
        for bad in [0, 3, 5] {
            let e = Topology::new(TopologySpec { nodes: bad, ..spec }).unwrap_err();
            assert_eq!(e.field, "nodes");
            assert!(e.to_string().contains("divides llcs 4"), "{e}");
        }
    }

    #[test]
    fn contiguous_siblings_are_adjacent() {
        let t = topo(2, 8, 2, Numbering::Contiguous);
        assert_eq!(t.smt_siblings(5), &[4, 5]);
        assert_eq!(
            t.llc_span(1).iter().collect::<Vec<_>>(),
            (8..16).collect::<Vec<_>>()
        );
    }

    #[test]
    fn interleaved_sibling_is_i_plus_half() {
        let t = topo(1, 8, 2, Numbering::Interleaved);
        assert_eq!(t.smt_siblings(1), &[1, 5]);
        assert_eq!(t.smt_siblings(6), &[2, 6]);
        // Two LLCs interleaved: LLC 0 holds 0..4 and 8..12.
        let t = topo(2, 8, 2, Numbering::Interleaved);
        assert_eq!(
            t.llc_span(0).iter().collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 8, 9, 10, 11]
        );
        assert_eq!(t.smt_siblings(9), &[1, 9]);
    }

    #[test]
    fn llc_groups_are_cores_or_clusters() {
        let t = topo(1, 8, 2, Numbering::Contiguous);
        assert_eq!(t.llc_groups(0).len(), 4);
        let t = Topology::new(TopologySpec {
            llcs: 1,
            llc_weight: 8,
            smt: 1,
            cluster_size: 4,
            numbering: Numbering::Contiguous,
            nodes: 1,
        })
        .unwrap();
        assert_eq!(t.llc_groups(0), &[vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert!(t.share_resources(1, 3));
        assert!(!t.share_resources(3, 4));
    }

    #[test]
    fn bad_specs_name_the_field() {
        let bad = TopologySpec {
            llcs: 1,
            llc_weight: 0,
            smt: 1,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            nodes: 1,
        };
        assert!(Topology::new(bad)
            .unwrap_err()
            .to_string()
            .contains("llc_weight"));
        let bad = TopologySpec {
            llcs: 1,
            llc_weight: 6,
            smt: 4,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            nodes: 1,
        };
        assert!(Topology::new(bad).unwrap_err().to_string().contains("smt"));
        let bad = TopologySpec {
            llcs: 1,
            llc_weight: 2,
            smt: 4,
            cluster_size: 0,
            numbering: Numbering::Contiguous,
            nodes: 1,
        };
        assert!(Topology::new(bad).unwrap_err().to_string().contains("smt"));
    }
}
