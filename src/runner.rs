//! The Simulation and what the views derive from it, kept outside Yew state (in an
//! `Rc<RefCell<Runner>>`): advancing it every animation frame must not re-render Yew.

use crate::draw::cpus::{CpuSnap, LlcSnap, Throttle};
use crate::draw::curve::{CurveData, OperatingPoint};
use sis_core::kernel::stats::{Counters, Metrics};
use sis_core::kernel::trace::{Decision, WakeupId};
use sis_core::{Scenario, Simulation};
use std::collections::VecDeque;

/// Decisions listed in the log.
pub const LOG_CAP: usize = 30;
const TRAIL: usize = 12;
const SPARKS: usize = 80;

/// One line of the decision log.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub id: WakeupId,
    pub target: u32,
    pub result: u32,
    pub rule: &'static str,
    pub probes: usize,
    pub missed: usize,
}

impl Summary {
    pub fn of(d: &Decision) -> Self {
        Summary {
            id: d.id,
            target: d.target,
            result: d.result,
            rule: d.decided_by.map_or("-", |r| r.name()),
            probes: d.probes(),
            missed: if found_idle(d) {
                0
            } else {
                d.missed_idle.len()
            },
        }
    }
}

pub use crate::verdict::{found_idle, passed_idle, scan_end_text};

/// The metrics of one sparkline window (the counters' change since the previous sample).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SparkSample {
    pub se_eff: f64,
    pub scanned_per_wakeup: f64,
}

/// The LLC's (sum_util, nr_idle_scan) as the last periodic balance left them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BalanceState {
    sum_util: u64,
    nr_idle_scan: u32,
}

/// What Yew renders as text, taken at most ~10 times a second while playing.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Snapshot {
    pub version: u64,
    pub now_ns: u64,
    pub wakeups_total: u64,
    pub counters: Counters,
    pub metrics: Metrics,
    pub nr_idle_scan: u32,
    pub has_idle_cores: bool,
    /// sum_util of LLC 0 now, and at the last balance, as % of capacity.
    pub util_now_pct: f64,
    pub util_balance_pct: f64,
    /// select_idle_cpu's time as a share of all CPU time since counting started, %.
    pub scan_cpu_pct: f64,
    pub decisions: Vec<Summary>,
    /// se_eff and scanned per wake-up over recent windows, oldest first.
    pub sparks: Vec<SparkSample>,
    pub hist: Vec<u64>,
    pub sis_prop_nr: Option<i64>,
    pub sis_util: bool,
    pub sis_prop: bool,
    pub finished: bool,
    pub work_ms: f64,
    pub achieved_speed: f64,
    pub nr_cpus: u32,
    /// Counting starts after the warm-up (ns).
    pub warmup_ns: u64,
    /// Counting has started: the counters cover the simulated time since `counted_from_ns`
    /// and exactly the decisions after `counted_after_seq`.
    pub measuring: bool,
    pub counted_from_ns: u64,
    pub counted_after_seq: u64,
}

/// Where a rebuilt simulation opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At t = 0.
    Cold,
    /// After the scenario's warm-up (`warmup`), so the first step is a decision of that load.
    Warm,
    /// At wake-up `n` (a permalink's `step`).
    Replay(u64),
}

/// Wake-ups replayed between two looks at the clock (~1 ms on the default machine).
const REPLAY_CHUNK: u64 = 2048;

#[derive(Default)]
pub struct Runner {
    /// A replay or warm-up still to run (see [`Self::work`]).
    pub pending: Option<Start>,
    pub sim: Option<Simulation>,
    pub generation: u64,
    /// Per LLC: cores, each its CPU ids (drawing order of the bars).
    pub groups: Vec<Vec<Vec<u32>>>,
    pub curve: Option<CurveData>,
    trail: VecDeque<OperatingPoint>,
    last_balance: Option<BalanceState>,
    sparks: VecDeque<SparkSample>,
    spark_counters: Counters,
    /// Bumped on every change of the simulation.
    pub version: u64,
    /// Real time per animation frame while playing (simulation + canvases), ms, smoothed.
    pub work_ms: f64,
    /// Simulated µs per real ms achieved while playing, smoothed.
    pub achieved_speed: f64,
    sis_prop_nr: Option<i64>,
    rate_ns_per_ms: f64,
    /// While playing: the decision shown (pinned at the ~10 Hz text refresh, so the canvas
    /// and the text agree; the ring turns over within milliseconds on big machines).
    pub pinned: Option<Decision>,
    /// Decisions captured while playing, for a trace longer than the ring (export panel).
    pub rec: Option<crate::export_json::Recording>,
    rec_slice_ns: u64,
}

impl Runner {
    /// Builds a fresh Simulation (recording on) and replays to `step` if given, at once.
    pub fn rebuild(
        &mut self,
        scenario: &Scenario,
        generation: u64,
        step: Option<u64>,
    ) -> Result<(), String> {
        let start = step.map_or(Start::Cold, Start::Replay);
        self.rebuild_pending(scenario, generation, start)?;
        self.work(f64::INFINITY, &|| 0.0);
        Ok(())
    }

    /// Builds a fresh Simulation (recording on) at t = 0 and leaves the replay or warm-up
    /// `start` asks for pending: [`Self::work`] does it in slices, so the tab never freezes.
    pub fn rebuild_pending(
        &mut self,
        scenario: &Scenario,
        generation: u64,
        start: Start,
    ) -> Result<(), String> {
        self.generation = generation;
        self.pending = None;
        let mut sim = Simulation::new(scenario).map_err(|e| e.to_string())?;
        sim.set_recording(true);
        self.pending = match start {
            Start::Replay(n) => Some(Start::Replay(n)),
            Start::Warm if !sim.is_measuring() => Some(Start::Warm),
            _ => None,
        };
        let topo = sim.topology();
        self.groups = (0..scenario.llcs)
            .map(|l| {
                let mut cores: Vec<(u32, Vec<u32>)> = Vec::new();
                for cpu in topo.llc_span(l).iter() {
                    let core = topo.core_of(cpu);
                    if !cores.iter().any(|c| c.0 == core) {
                        cores.push((core, topo.smt_siblings(cpu).to_vec()));
                    }
                }
                cores.into_iter().map(|c| c.1).collect()
            })
            .collect();
        self.curve = Some(
            CurveData::new(scenario.llc_weight, scenario.imbalance_pct)
                .with_rule(scenario.nr_expr_rule().as_ref()),
        );
        self.trail.clear();
        self.last_balance = None;
        self.sparks.clear();
        self.spark_counters = *sim.counters();
        self.sim = Some(sim);
        self.sis_prop_nr = None;
        self.pinned = None;
        // A recording belongs to one run: a new run starts a new one if it was on.
        if self.rec.as_ref().is_some_and(|r| r.active) {
            self.rec = Some(crate::export_json::Recording::start(None));
        } else {
            self.rec = None;
        }
        self.after_change();
        Ok(())
    }

    /// Runs up to `sim_ns` of simulated time in slices sized from the measured cost, giving up
    /// after `budget_ms` of real time (`clock` returns ms). Returns the simulated ns run.
    pub fn advance(&mut self, sim_ns: u64, budget_ms: f64, clock: &dyn Fn() -> f64) -> u64 {
        let Some(sim) = self.sim.as_mut() else {
            return 0;
        };
        let t0 = clock();
        let start = sim.now_ns();
        let end = start + sim_ns;
        // Simulated ns per real ms, measured; start cautiously (big LLCs cost ~50 us/sim us).
        let rate = if self.rate_ns_per_ms > 0.0 {
            self.rate_ns_per_ms
        } else {
            20_000.0
        };
        let mut slice = ((rate * budget_ms / 6.0) as u64).clamp(1_000, sim_ns.max(1_000));
        let recording = self.rec.as_ref().is_some_and(|r| r.active);
        while sim.now_ns() < end {
            if recording {
                // Slices short enough that the 256-decision ring never turns over between
                // two captures: adapted to keep 32..128 wake-ups per slice.
                slice = slice.min(self.rec_slice_ns.max(200));
            }
            let t = (sim.now_ns() + slice).min(end);
            sim.step_until(t);
            if let Some(rec) = self.rec.as_mut() {
                let n = rec.capture(sim.decisions().iter());
                if n > 128 {
                    self.rec_slice_ns = (self.rec_slice_ns / 4).max(200);
                } else if n < 32 {
                    self.rec_slice_ns = (self.rec_slice_ns * 2).min(1_000_000);
                }
            }
            if clock() - t0 > budget_ms {
                break;
            }
        }
        let ran = sim.now_ns() - start;
        let el = clock() - t0;
        if el > 0.5 && ran > 0 {
            let r = ran as f64 / el;
            self.rate_ns_per_ms = if self.rate_ns_per_ms > 0.0 {
                self.rate_ns_per_ms * 0.7 + r * 0.3
            } else {
                r
            };
        }
        self.after_change();
        ran
    }

    /// Runs the pending replay or warm-up for at most about `budget_ms` of real time (`clock`
    /// returns ms). Returns true when it finished in this call.
    pub fn work(&mut self, budget_ms: f64, clock: &dyn Fn() -> f64) -> bool {
        let (Some(start), Some(sim)) = (self.pending, self.sim.as_mut()) else {
            return false;
        };
        let t0 = clock();
        let done = match start {
            Start::Replay(n) => loop {
                // Chunks of wake-ups end in the same state as one `advance_to_wakeup(n)`: the
                // last call sets the stepped decision, and the ring records the last ones.
                let target = n.min(sim.wakeups_total() + REPLAY_CHUNK);
                if !sim.advance_to_wakeup(target) || target == n {
                    break true;
                }
                if clock() - t0 > budget_ms {
                    break false;
                }
            },
            Start::Warm => {
                // An auto warm-up moves its end out until settled: warm to the end as it
                // stands, then look again.
                let left = sim.warmup_ns().saturating_sub(sim.now_ns()).max(1);
                self.advance(left, budget_ms, clock);
                self.sim
                    .as_ref()
                    .is_none_or(|s| s.is_measuring() || s.finished())
            }
            Start::Cold => true,
        };
        if done {
            self.pending = None;
        }
        self.after_change();
        done
    }

    /// What the pending replay or warm-up has done so far, for the progress line.
    pub fn progress(&self) -> Option<String> {
        let sim = self.sim.as_ref()?;
        match self.pending? {
            Start::Replay(n) => Some(format!(
                "Replaying to wake-up {n}: {} done ({}%)",
                sim.wakeups_total(),
                sim.wakeups_total() * 100 / n.max(1)
            )),
            Start::Warm => {
                let w = sim.warmup_ns().max(1);
                Some(format!(
                    "Warming up: {} of {} simulated ms ({}%)",
                    sim.now_ns() / 1_000_000,
                    w / 1_000_000,
                    sim.now_ns() * 100 / w
                ))
            }
            Start::Cold => None,
        }
    }

    /// Whether the counters are still in the scenario's warm-up (nothing counted yet).
    pub fn in_warmup(&self) -> bool {
        self.sim.as_ref().is_some_and(|s| !s.is_measuring())
    }

    /// The next wake-up decision's seq (None when the run has no more events).
    pub fn step_decision(&mut self) -> Option<u64> {
        let seq = self.sim.as_mut()?.next_wakeup().map(|d| d.id.seq);
        self.after_change();
        seq
    }

    /// One decision step for the UI: the new decision's seq (None when the run has no more
    /// events) and the decision stepped to (the URL's `step`: `advance_to_wakeup` returns to
    /// it, inside a batch of wake-ups made by one event too).
    pub fn step_for_ui(&mut self) -> (Option<u64>, u64) {
        // Stepping during a replay or warm-up stops it there: the user asked for this state.
        self.pending = None;
        let seq = self.step_decision();
        (seq, self.sim.as_ref().map_or(0, |s| s.stepped_seq()))
    }

    /// Bookkeeping after the simulation moved: operating-point trail, SIS_PROP budget.
    pub fn after_change(&mut self) {
        self.version += 1;
        let Some(sim) = self.sim.as_ref() else {
            return;
        };
        if let Some(rec) = self.rec.as_mut() {
            rec.capture(sim.decisions().iter());
        }
        let llc = sim.llc(0);
        let now = BalanceState {
            sum_util: llc.last_sum_util,
            nr_idle_scan: llc.nr_idle_scan,
        };
        if self.last_balance != Some(now) {
            if let Some(before) = self.last_balance {
                let w = sim.scenario().llc_weight as f64 * 1024.0;
                self.trail.push_back(OperatingPoint {
                    util_pct: before.sum_util as f64 * 100.0 / w,
                    nr_idle_scan: before.nr_idle_scan,
                });
                while self.trail.len() > TRAIL {
                    self.trail.pop_front();
                }
            }
            self.last_balance = Some(now);
        }
        let f = sim.features();
        if f.sis_prop && !f.sis_util {
            if let Some(nr) = sim.decisions().iter().rev().find_map(|d| d.nr_before) {
                self.sis_prop_nr = Some(nr);
            }
        } else {
            self.sis_prop_nr = None;
        }
    }

    /// Starts recording from the next decision (the ring's are already in the trace export).
    pub fn start_recording(&mut self) {
        let last = self
            .sim
            .as_ref()
            .and_then(|s| s.last_decision())
            .map(|d| d.id.seq);
        self.rec = Some(crate::export_json::Recording::start(last));
        self.rec_slice_ns = 20_000;
    }

    /// Samples the windowed se_eff and scanned/wake-up since the last sample.
    pub fn sample_spark(&mut self) {
        let Some(sim) = self.sim.as_ref() else {
            return;
        };
        let now = *sim.counters();
        let p = self.spark_counters;
        if !sim.is_measuring() || now.wakeups < p.wakeups {
            // Counting (re)started: the sparklines cover the counted window only.
            self.sparks.clear();
            self.spark_counters = now;
            return;
        }
        if now.wakeups == p.wakeups {
            return;
        }
        let d = Counters {
            sis_search: now.sis_search - p.sis_search,
            sis_domain_search: now.sis_domain_search - p.sis_domain_search,
            sis_scanned: now.sis_scanned - p.sis_scanned,
            sis_failed: now.sis_failed - p.sis_failed,
            wakeups: now.wakeups - p.wakeups,
            ..Counters::default()
        };
        let m = d.metrics();
        self.sparks.push_back(SparkSample {
            se_eff: m.se_eff,
            scanned_per_wakeup: m.scanned_per_wakeup,
        });
        while self.sparks.len() > SPARKS {
            self.sparks.pop_front();
        }
        self.spark_counters = now;
    }

    /// The sparkline samples, oldest first.
    pub fn sparks(&self) -> Vec<SparkSample> {
        self.sparks.iter().copied().collect()
    }

    pub fn decision(&self, seq: u64) -> Option<&Decision> {
        self.sim
            .as_ref()?
            .decisions()
            .iter()
            .rev()
            .find(|d| d.id.seq == seq)
    }

    /// Pins the newest decision for display while playing.
    pub fn pin_newest(&mut self) {
        let newest = self.newest().cloned();
        if newest.is_some() {
            self.pinned = newest;
        }
    }

    /// The decision to show: the selected one, else (playing) the pinned one, else the newest.
    pub fn shown(&self, selected: Option<u64>, playing: bool) -> Option<&Decision> {
        match selected {
            Some(s) => self.decision(s),
            None if playing => self.pinned.as_ref().or_else(|| self.newest()),
            None => self.newest(),
        }
    }

    pub fn newest(&self) -> Option<&Decision> {
        self.sim.as_ref()?.last_decision()
    }

    pub fn cpu_snaps(&self, out: &mut Vec<CpuSnap>) {
        out.clear();
        if let Some(sim) = self.sim.as_ref() {
            for cpu in 0..sim.topology().nr_cpus() {
                let v = sim.cpu_view(cpu);
                out.push(CpuSnap {
                    state: v.state,
                    util_avg: v.util_avg,
                    nr_running: v.nr_running,
                    scanning: v.scanning,
                    lock_wait: v.lock_wait,
                    idle_exit: v.idle_exit,
                });
            }
        }
    }

    pub fn llc_snaps(&self) -> Vec<LlcSnap> {
        let Some(sim) = self.sim.as_ref() else {
            return Vec::new();
        };
        let w = sim.scenario().llc_weight as u64 * 1024;
        let f = sim.features();
        let rule = !sim.scenario().nr_expr.is_empty();
        let topo = sim.topology();
        (0..sim.scenario().llcs)
            .map(|l| {
                let s = sim.llc(l);
                // The budget of the newest decision in this LLC (SIS_PROP's is the waker's).
                let last_nr = || {
                    sim.decisions()
                        .iter()
                        .rev()
                        .filter(|d| topo.llc_of(d.target) == l)
                        .find_map(|d| d.nr_before)
                };
                let throttle = if f.replaces_sis() {
                    Throttle::OwnPath
                } else if rule {
                    Throttle::Rule(last_nr())
                } else if f.sis_util {
                    Throttle::NrIdleScan(s.nr_idle_scan)
                } else if f.sis_prop {
                    Throttle::SisProp(last_nr())
                } else {
                    Throttle::Unthrottled
                };
                LlcSnap {
                    throttle,
                    has_idle_cores: s.has_idle_cores,
                    sum_util_pct: (s.last_sum_util * 100 / w.max(1)) as u32,
                }
            })
            .collect()
    }

    /// The curve with the live operating point.
    pub fn curve_data(&self) -> Option<CurveData> {
        let sim = self.sim.as_ref()?;
        let mut c = self.curve.clone()?;
        let w = sim.scenario().llc_weight as f64 * 1024.0;
        let llc = sim.llc(0);
        c.live = Some(OperatingPoint {
            util_pct: llc.last_sum_util as f64 * 100.0 / w,
            nr_idle_scan: llc.nr_idle_scan,
        });
        c.trail = self.trail.iter().copied().collect();
        c.util_now = Some(sim.llc_sum_util_now(0) as f64 * 100.0 / w);
        c.sis_prop_nr = self.sis_prop_nr;
        c.sis_util_on = sim.features().sis_util;
        Some(c)
    }

    pub fn snapshot(&self) -> Snapshot {
        let Some(sim) = self.sim.as_ref() else {
            return Snapshot::default();
        };
        let w = sim.scenario().llc_weight as f64 * 1024.0;
        let llc = sim.llc(0);
        Snapshot {
            version: self.version,
            now_ns: sim.now_ns(),
            wakeups_total: sim.wakeups_total(),
            counters: *sim.counters(),
            metrics: sim.metrics(),
            nr_idle_scan: llc.nr_idle_scan,
            has_idle_cores: llc.has_idle_cores,
            util_now_pct: sim.llc_sum_util_now(0) as f64 * 100.0 / w,
            util_balance_pct: llc.last_sum_util as f64 * 100.0 / w,
            scan_cpu_pct: sim.scan_cpu_pct(),
            decisions: sim
                .decisions()
                .iter()
                .rev()
                .take(LOG_CAP)
                .map(Summary::of)
                .collect(),
            sparks: self.sparks.iter().copied().collect(),
            hist: sim.histogram().buckets.clone(),
            sis_prop_nr: self.sis_prop_nr,
            sis_util: sim.features().sis_util,
            sis_prop: sim.features().sis_prop,
            finished: sim.finished(),
            work_ms: self.work_ms,
            achieved_speed: self.achieved_speed,
            nr_cpus: sim.topology().nr_cpus(),
            warmup_ns: sim.warmup_ns(),
            measuring: sim.is_measuring(),
            counted_from_ns: sim.counting_since().0,
            counted_after_seq: sim.counting_since().1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebuild_step_and_snapshot() {
        let mut r = Runner::default();
        let s = Scenario::from_pairs([("llc_weight", "8")]).unwrap();
        r.rebuild(&s, 1, None).unwrap();
        assert_eq!(r.groups.len(), 1);
        assert_eq!(r.groups[0].len(), 4);
        let a = r.step_decision().unwrap();
        let b = r.step_decision().unwrap();
        assert_eq!(b, a + 1);
        let snap = r.snapshot();
        assert_eq!(snap.decisions[0].id.seq, b);
        assert_eq!(snap.wakeups_total, b);
        // A permalink's step reproduces the same state.
        let mut r2 = Runner::default();
        r2.rebuild(&s, 2, Some(b)).unwrap();
        assert_eq!(r2.snapshot().now_ns, snap.now_ns);
        assert_eq!(r2.decision(b), r.decision(b));
        let ran = r.advance(1_000_000, 1e9, &|| 0.0);
        assert_eq!(ran, 1_000_000);
        r.sample_spark();
    }

    #[test]
    fn a_replay_in_slices_ends_where_one_replay_ends() {
        let s = Scenario::from_pairs([("llc_weight", "16"), ("load", "150")]).unwrap();
        let n = 3 * REPLAY_CHUNK + 77;
        let mut once = Runner::default();
        once.rebuild(&s, 1, Some(n)).unwrap();
        let mut sliced = Runner::default();
        sliced.rebuild_pending(&s, 1, Start::Replay(n)).unwrap();
        // A clock that says every look took 1 ms: one chunk per call of a 0.5 ms budget.
        let mut calls = 0;
        while !sliced.work(0.5, &{
            let t = std::cell::Cell::new(0.0);
            move || {
                t.set(t.get() + 1.0);
                t.get()
            }
        }) {
            calls += 1;
            assert!(sliced.progress().unwrap().contains(&format!("wake-up {n}")));
        }
        assert_eq!(calls, 3);
        assert!(sliced.pending.is_none() && sliced.progress().is_none());
        let (a, b) = (once.sim.as_ref().unwrap(), sliced.sim.as_ref().unwrap());
        assert_eq!(a.now_ns(), b.now_ns());
        assert_eq!(a.stepped_seq(), b.stepped_seq());
        assert_eq!(a.decisions(), b.decisions());
        assert_eq!(once.step_decision(), sliced.step_decision());
    }

    fn sim_warmup(r: &Runner) -> u64 {
        r.sim.as_ref().unwrap().warmup_ns()
    }

    #[test]
    fn a_warm_start_opens_after_the_warm_up() {
        let s = Scenario::from_pairs([("llc_weight", "16"), ("load", "150")]).unwrap();
        let mut r = Runner::default();
        r.rebuild_pending(&s, 1, Start::Warm).unwrap();
        assert_eq!(r.snapshot().now_ns, 0);
        while !r.work(f64::INFINITY, &|| 0.0) {}
        // Counting starts at the first event at or after the (auto) warm-up's end.
        let sim = r.sim.as_ref().unwrap();
        assert!(sim.is_measuring());
        assert!(r.snapshot().now_ns >= sim.warmup_ns());
        assert!(r.snapshot().now_ns < sim.warmup_ns() + 1_000_000);
        assert!(sim.warmup_ns() >= s.warmup_ns());
        assert!(r.snapshot().wakeups_total > 0);
        // Issue 27: the metrics and the log agree at every moment: the counted wake-ups are
        // exactly the logged decisions after counted_after_seq.
        for _ in 0..3 {
            let snap = r.snapshot();
            assert!(snap.measuring && snap.counted_from_ns >= sim_warmup(&r));
            let after = snap.counted_after_seq;
            assert_eq!(snap.counters.wakeups, snap.wakeups_total - after);
            let counted_in_log = snap.decisions.iter().filter(|d| d.id.seq > after).count() as u64;
            assert_eq!(counted_in_log, snap.counters.wakeups.min(LOG_CAP as u64));
            r.step_decision();
        }
        let mut cold = Runner::default();
        cold.rebuild_pending(&s, 1, Start::Cold).unwrap();
        assert!(cold.pending.is_none());
        assert_eq!(cold.snapshot().now_ns, 0);
    }
}
