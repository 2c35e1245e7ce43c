//! What a decision's verdict says: did it land on an idle CPU, which idle CPUs did its checks
//! see and pass over, how its scan ended (the decision log and the CPU view read these).

use sis_core::kernel::trace::{Decision, ScanEnd};

/// Whether the decision placed the task on a CPU it saw idle (or sched-idle). Only when it did
/// not do the idle CPUs it never probed (`missed_idle`) count as missed.
pub fn found_idle(d: &Decision) -> bool {
    use sis_core::kernel::trace::{Rule, Saw};
    d.steps
        .iter()
        .rev()
        .find(|s| s.cpu == d.result && s.rule != Rule::WakeAffine)
        .is_some_and(|s| matches!(s.saw, Saw::Idle | Saw::SchedIdle))
}

/// Idle CPUs a check saw and did not take (e.g. 4.4's group walk passes over an idle CPU
/// whose core is partly busy), in step order.
pub fn passed_idle(d: &Decision) -> Vec<u32> {
    use sis_core::kernel::trace::{Rule, Saw};
    let mut out = Vec::new();
    for s in &d.steps {
        if s.rule != Rule::WakeAffine
            && s.cpu != d.result
            && matches!(s.saw, Saw::Idle | Saw::SchedIdle)
            && !out.contains(&s.cpu)
        {
            out.push(s.cpu);
        }
    }
    out
}

/// How the decision's LLC search ended. Without a select_idle_cpu scan (`scan_end` None) it
/// names the search that did run, so that the verdict never denies its own checks: 4.4's
/// group walk, or select_idle_core (4.9-5.11) alone.
pub fn scan_end_text(d: &Decision) -> &'static str {
    use sis_core::kernel::trace::Rule;
    match d.scan_end {
        None => match d.search_without_scan() {
            Some(Rule::GroupWalk) => {
                "4.4's group walk searched the LLC for a wholly idle core, then target's idle sibling (select_idle_cpu came in 4.9)"
            }
            Some(_) => "select_idle_core searched the LLC's cores; select_idle_cpu did not run",
            None => "the LLC scan did not run",
        },
        Some(ScanEnd::Found) => "the scan found an idle CPU",
        Some(ScanEnd::Budget) => "the budget nr ran out",
        Some(ScanEnd::Exhausted) => "the scan visited every CPU",
        Some(ScanEnd::NoScan) => "no scan: nr_idle_scan was 0 (or the LLC was overloaded)",
        Some(ScanEnd::AvgCpu) => "no scan: SIS_AVG_CPU (avg_idle < avg_scan_cost)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict of a linux-4.4 group walk that saw CPU 0 idle in a partly busy core and
    /// fell back to target: the idle CPU was seen and passed over, not "none left to find".
    #[test]
    fn an_idle_cpu_a_check_passed_over_is_named() {
        use sis_core::kernel::trace::{Rule, Saw, Step};
        let step = |rule, cpu, saw| Step {
            rule,
            cpu,
            saw,
            nr: None,
        };
        let d = Decision {
            steps: vec![
                step(Rule::WakeAffine, 0, Saw::Idle),
                step(Rule::Target, 2, Saw::Busy),
                step(Rule::GroupWalk, 0, Saw::Idle),
                step(Rule::GroupWalk, 1, Saw::Busy),
                step(Rule::GroupWalk, 0, Saw::Idle),
            ],
            result: 2,
            ..Decision::default()
        };
        assert!(!found_idle(&d));
        assert_eq!(
            passed_idle(&d),
            vec![0],
            "wake_affine's look is no check; 0 once"
        );
        let took = Decision { result: 0, ..d };
        assert!(found_idle(&took));
        assert!(passed_idle(&took).is_empty());
        // Its verdict names the walk that ran, not "the LLC scan did not run".
        assert!(scan_end_text(&took).starts_with("4.4's group walk searched the LLC"));
        let none = Decision {
            steps: vec![step(Rule::Target, 2, Saw::Idle)],
            ..Decision::default()
        };
        assert_eq!(scan_end_text(&none), "the LLC scan did not run");
    }
}
