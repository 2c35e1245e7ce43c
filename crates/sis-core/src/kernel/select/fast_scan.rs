//! Untraced equivalents of select_idle_cpu's LLC walk that read the engine-kept idle mask a
//! word at a time. Each gives the reference walk's outcome (`SchedState::walk_llc`: the CPU,
//! the probes, `nr` left) and, in debug builds, checks it against that walk.

use super::{Ctx, LlcScan, Wakee, Walk, NR_INF};
use crate::kernel::cpumask::CpuMask;
use crate::kernel::state::SchedState;
#[cfg(debug_assertions)]
use crate::kernel::stats::Counters;
use crate::kernel::trace::Recorder;

/// What the reference walk gives from the same start: (end, idle_cpu, nr left, probes).
#[cfg(debug_assertions)]
fn reference_walk(
    st: &SchedState,
    p: &Wakee,
    scan: &LlcScan,
    start: u32,
) -> (Walk, Option<u32>, i64, u32) {
    let mut scan = scan.clone();
    let mut counters = Counters::default();
    let mut ctx = Ctx {
        c: &mut counters,
        rec: &mut (),
        probes: 0,
    };
    let walk = st.walk_llc(p, start, &mut scan, &mut ctx);
    (walk, scan.idle_cpu, scan.nr, ctx.probes)
}

/// The walk without an idle core (`if (!--nr) return -1;` then `__select_idle_cpu()` per CPU)
/// over the idle mask: it probes CPUs in wrap order until an idle one or the budget stops it,
/// so the first idle CPU if fewer than nr-1 CPUs come before it, else every CPU if there are
/// at most nr-1, else nr-1 probes and out.
// `st` and `p` feed the debug-build check only.
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
pub(super) fn idle_cpu_words<R: Recorder>(
    st: &SchedState,
    p: &Wakee,
    idle: &CpuMask,
    start: u32,
    scan: &mut LlcScan,
    ctx: &mut Ctx<'_, R>,
) -> Walk {
    debug_assert!(scan
        .cpus
        .iter()
        .all(|c| idle.test(c) == st.choose_idle_cpu(c)));
    #[cfg(debug_assertions)]
    let reference = reference_walk(st, p, scan, start);
    let LlcScan {
        cpus, idle_cpu, nr, ..
    } = scan;
    let throttled = *nr != NR_INF;
    let max_probes = match throttled {
        false => u32::MAX,
        true => (*nr - 1).clamp(0, u32::MAX as i64) as u32,
    };
    // Found at or past max_probes: the mask is longer than that, so the budget ends it.
    let (probes, walk) = match cpus.wrap_first_common_or_weight(idle, start) {
        Ok((cpu, before)) if before < max_probes => {
            *idle_cpu = Some(cpu);
            (before + 1, Walk::Completed)
        }
        Err(len) if len <= max_probes => (len, Walk::Completed),
        _ => (max_probes, Walk::OutOfBudget),
    };
    // As walk_one: the two-pass era's schedstat counts the iteration that exhausts nr.
    ctx.c.sis_scanned +=
        probes as u64 + u64::from(walk == Walk::OutOfBudget && !st.features.single_pass);
    ctx.probes += probes;
    if throttled {
        *nr -= probes as i64 + i64::from(walk == Walk::OutOfBudget);
    }
    #[cfg(debug_assertions)]
    debug_assert_eq!(
        reference,
        (walk, *idle_cpu, *nr, probes),
        "idle_cpu_words from {start}"
    );
    walk
}

/// The walk with an idle core (`select_idle_core()` per core) for SMT-2 cores numbered
/// contiguously, over the idle mask.
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
pub(super) fn core_scan_smt2<R: Recorder>(
    st: &SchedState,
    p: &Wakee,
    idle: &CpuMask,
    start: u32,
    scan: &mut LlcScan,
    ctx: &mut Ctx<'_, R>,
) -> Walk {
    #[cfg(debug_assertions)]
    let reference = reference_walk(st, p, scan, start);
    let (probes, found) = core_words_smt2(p, idle, &mut scan.cpus, start, &mut scan.idle_cpu);
    ctx.c.sis_scanned += probes as u64;
    ctx.probes += probes;
    let walk = found.map_or(Walk::Completed, Walk::Returned);
    #[cfg(debug_assertions)]
    debug_assert_eq!(
        reference,
        (walk, scan.idle_cpu, scan.nr, probes),
        "core scan from {start}"
    );
    walk
}

/// The untraced single-pass core scan (the `for_each_cpu_wrap` walk calling
/// `select_idle_core()` on each CPU left in `cpus`) for SMT-2 cores numbered contiguously
/// (core k of an LLC is CPUs 2k and 2k+1, so a core never straddles a mask word), reading the
/// engine-kept idle mask (no SCHED_IDLE tasks): the probes it makes and the CPU it returns.
/// Core by core until `idle_cpu` is set (the first allowed idle sibling), then a word at a
/// time: a busy core then costs 1 probe if its first sibling is busy, else 2.
fn core_words_smt2(
    p: &Wakee,
    idle: &CpuMask,
    cpus: &mut CpuMask,
    start: u32,
    idle_cpu: &mut Option<u32>,
) -> (u32, Option<u32>) {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let mut probes = 0u32;
    let start = if start >= cpus.nr_cpus() { 0 } else { start };
    let (ws, bs) = ((start / 64) as usize, start % 64);
    let nw = cpus.words().len();
    let lo = !0u64 << bs;
    // From start to the end, then from 0 up to start; a word is re-read after each core it
    // clears, as the cursor re-reads the mask.
    for (from, to, first) in [(ws, nw, lo), (0, ws + 1, !lo)] {
        for wi in from..to {
            let iw = idle.words()[wi];
            loop {
                let mut w = cpus.words()[wi];
                if wi == ws {
                    w &= first;
                }
                if w == 0 {
                    break;
                }
                if idle_cpu.is_some() {
                    // Every core with a CPU left in w, in order; the first fully idle one is
                    // the answer (visited at its lowest CPU left in w).
                    let visited = (w | (w >> 1)) & EVEN;
                    let full = iw & (iw >> 1) & EVEN;
                    let hit = visited & full;
                    let before = if hit == 0 {
                        !0
                    } else {
                        (1u64 << hit.trailing_zeros()) - 1
                    };
                    let busy = visited & !full & before;
                    probes += busy.count_ones() + (busy & iw).count_ones();
                    if hit != 0 {
                        let a = hit.trailing_zeros();
                        let at = if w & (1u64 << a) != 0 { a } else { a + 1 };
                        return (probes + 2, Some(wi as u32 * 64 + at));
                    }
                    cpus.words_mut()[wi] &= !(visited | (visited << 1));
                    break;
                }
                // select_idle_core() on the core of the next CPU, siblings a < b.
                let cpu = w.trailing_zeros();
                let a = cpu & !1;
                let (a_idle, b_idle) = (iw >> a & 1 != 0, iw >> (a + 1) & 1 != 0);
                let base = wi as u32 * 64;
                probes += 1;
                if a_idle {
                    if idle_cpu.is_none() && p.allowed.test(base + a) {
                        *idle_cpu = Some(base + a);
                    }
                } else if idle_cpu.is_some() {
                    cpus.words_mut()[wi] &= !(3u64 << a);
                    continue;
                }
                probes += 1;
                if b_idle {
                    if idle_cpu.is_none() && p.allowed.test(base + a + 1) {
                        *idle_cpu = Some(base + a + 1);
                    }
                    if a_idle {
                        return (probes, Some(base + cpu));
                    }
                }
                cpus.words_mut()[wi] &= !(3u64 << a);
            }
        }
    }
    (probes, None)
}
