//! A sweep (or heatmap) run on a pool of Web Workers (`sweep_pool::SweepPool`): the points,
//! the reports as they come back (in any order, each into its point's slot), one progress
//! count over all of them, cancel and errors.

use crate::sweep_pool::{deal_order, hardware_concurrency, pool_size, PoolMsg, SweepPool};
use crate::worker_api::point_query;
use sis_core::analysis::sweep::{format_json, SweepRow, SweepSpec};
use sis_core::sim::engine::RunReport;
use sis_core::Scenario;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// One sweep run: its points and what came back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepRun {
    /// Which start this is: messages of an older pool are ignored.
    pub generation: u64,
    pub running: bool,
    pub cancelled: bool,
    /// How many points finished (in any order).
    pub done: usize,
    /// How many workers run it.
    pub workers: usize,
    /// The finished points' run times in their workers, summed (ms): over `workers` x the
    /// wall time, how busy the pool kept its workers.
    pub busy_ms: f64,
    pub points: Rc<Vec<Scenario>>,
    /// The sweep the points come from, when they are one (the sweep panel; a heatmap's grid
    /// is not a `SweepSpec`): its JSON is `sis sweep`'s.
    pub spec: Option<Rc<SweepSpec>>,
    /// The report of each finished point, by point index (shared: the reducer copies this
    /// vector at every message, so a big sweep must not copy the reports with it).
    pub reports: Vec<Option<Rc<RunReport>>>,
    pub error: Option<String>,
    /// Real time the sweep took, ms.
    pub started_ms: f64,
    pub took_ms: Option<f64>,
}

pub enum SweepRunAction {
    Start {
        generation: u64,
        points: Rc<Vec<Scenario>>,
        spec: Option<Rc<SweepSpec>>,
        workers: usize,
        /// `performance.now()` (the reducer stays pure: native tests run it).
        now_ms: f64,
    },
    Msg {
        generation: u64,
        msg: PoolMsg,
        now_ms: f64,
    },
    Cancel,
    Fail(String),
}

impl Reducible for SweepRun {
    type Action = SweepRunAction;
    fn reduce(self: Rc<Self>, a: SweepRunAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            SweepRunAction::Start {
                generation,
                points,
                spec,
                workers,
                now_ms,
            } => {
                s = SweepRun {
                    generation,
                    running: true,
                    workers,
                    reports: vec![None; points.len()],
                    points,
                    spec,
                    started_ms: now_ms,
                    ..SweepRun::default()
                };
            }
            SweepRunAction::Msg { generation, .. } if generation != s.generation || !s.running => {
                return self
            }
            SweepRunAction::Msg { msg, now_ms, .. } => match msg {
                PoolMsg::Done { index, report, ms } => {
                    if let Some(slot) = s.reports.get_mut(index).filter(|r| r.is_none()) {
                        *slot = Some(report);
                        s.done += 1;
                        s.busy_ms += ms;
                        if s.done >= s.reports.len() {
                            s.running = false;
                            s.took_ms = Some(now_ms - s.started_ms);
                        }
                    }
                }
                PoolMsg::Failed(e) => {
                    s.error = Some(e);
                    s.running = false;
                }
            },
            SweepRunAction::Cancel => {
                s.running = false;
                s.cancelled = true;
            }
            SweepRunAction::Fail(e) => {
                s = SweepRun {
                    generation: s.generation,
                    error: Some(e),
                    ..SweepRun::default()
                };
            }
        }
        Rc::new(s)
    }
}

impl SweepRun {
    /// The finished points as sweep rows, in point order (preset-major, as `SweepSpec::points`).
    pub fn rows(&self) -> Vec<SweepRow> {
        self.points
            .iter()
            .zip(&self.reports)
            .enumerate()
            .filter_map(|(i, (sc, r))| {
                // The sweep's entry (a rule runs under its own name); else the preset.
                let entry = self
                    .spec
                    .as_ref()
                    .map_or(sc.preset.as_str(), |s| s.entry_of_point(i));
                Some(SweepRow::new(entry, sc, RunReport::clone(r.as_ref()?)))
            })
            .collect()
    }

    /// Every point finished.
    pub fn complete(&self) -> bool {
        !self.points.is_empty() && self.done == self.points.len()
    }

    /// The finished sweep exactly as `sis sweep --format json` prints it (sis-core's
    /// `format_output(.., "json")`, trailing newline included; `format_json` itself, so the
    /// page does not carry the CSV writer); `None` until every point is done or when the
    /// points are not a sweep.
    pub fn json(&self) -> Option<String> {
        let spec = self.spec.as_ref().filter(|_| self.complete())?;
        Some(format_json(spec, &self.rows()) + "\n")
    }
}

/// The run's state plus the pool that feeds it.
#[derive(Clone)]
pub struct SweepJobHandle {
    pub run: UseReducerHandle<SweepRun>,
    pool: Rc<RefCell<Option<SweepPool>>>,
}

impl SweepJobHandle {
    /// Starts a pool on `points` (cancelling the one running): `workers` of them, or one per
    /// core up to `sweep_pool::AUTO_CAP` when `None`. `spec`, when the points are its
    /// `points()`, makes the run's JSON.
    pub fn start(&self, points: Vec<Scenario>, spec: Option<SweepSpec>, workers: Option<usize>) {
        if let Some(p) = self.pool.borrow_mut().take() {
            p.cancel();
        }
        let generation = self.run.generation + 1;
        let queries: Vec<String> = points.iter().map(point_query).collect();
        let order = deal_order(&points);
        let workers = pool_size(workers, hardware_concurrency(), points.len());
        self.run.dispatch(SweepRunAction::Start {
            generation,
            points: Rc::new(points),
            spec: spec.map(Rc::new),
            workers,
            now_ms: crate::canvas::now_ms(),
        });
        let d = self.run.dispatcher();
        let on_msg = move |msg| {
            d.dispatch(SweepRunAction::Msg {
                generation,
                msg,
                now_ms: crate::canvas::now_ms(),
            })
        };
        match SweepPool::start(queries, order, workers, on_msg) {
            Ok(p) => *self.pool.borrow_mut() = Some(p),
            Err(e) => self.run.dispatch(SweepRunAction::Fail(e)),
        }
    }

    pub fn cancel(&self) {
        if let Some(p) = self.pool.borrow_mut().take() {
            p.cancel();
        }
        self.run.dispatch(SweepRunAction::Cancel);
    }
}

/// A sweep run on a pool of Web Workers; they are terminated when the component unmounts.
#[hook]
pub fn use_sweep_job() -> SweepJobHandle {
    let run = use_reducer(SweepRun::default);
    let pool = use_mut_ref(|| None::<SweepPool>);
    {
        let pool = pool.clone();
        use_effect_with((), move |_| move || drop(pool.borrow_mut().take()));
    }
    SweepJobHandle { run, pool }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sis_core::analysis::sweep::{format_output, run_point};

    fn reduce(s: Rc<SweepRun>, a: SweepRunAction) -> Rc<SweepRun> {
        s.reduce(a)
    }

    /// Results arriving in any order (as from several workers) land by point index: the
    /// rows and the JSON are those of the points run in order.
    #[test]
    fn out_of_order_results_give_the_in_order_json() {
        let base = Scenario::from_pairs([("llc_weight", "8"), ("duration", "5ms")]).unwrap();
        let spec = SweepSpec::new(base, vec!["linux-6.0".into()], vec![50, 150])
            .unwrap()
            .with_seeds(vec![1, 2])
            .unwrap();
        let points = spec.points();
        let reports: Vec<RunReport> = points.iter().map(|p| run_point(p).unwrap()).collect();
        let rows: Vec<SweepRow> = points
            .iter()
            .zip(&reports)
            .enumerate()
            .map(|(i, (p, r))| SweepRow::new(spec.entry_of_point(i), p, r.clone()))
            .collect();
        let want = format_output(&spec, &rows, "json");
        let mut s = reduce(
            Rc::new(SweepRun::default()),
            SweepRunAction::Start {
                generation: 1,
                points: Rc::new(points.clone()),
                spec: Some(Rc::new(spec.clone())),
                workers: 2,
                now_ms: 0.0,
            },
        );
        for (n, i) in [3usize, 0, 2, 1].into_iter().enumerate() {
            assert!(s.running && s.json().is_none(), "after {n} results");
            let msg = PoolMsg::Done {
                index: i,
                report: Rc::new(reports[i].clone()),
                ms: 2.5,
            };
            // A stale pool's message changes nothing.
            s = reduce(
                s,
                SweepRunAction::Msg {
                    generation: 0,
                    msg: msg.clone(),
                    now_ms: 1.0,
                },
            );
            assert_eq!(s.done, n);
            s = reduce(
                s,
                SweepRunAction::Msg {
                    generation: 1,
                    msg,
                    now_ms: 10.0 * (n + 1) as f64,
                },
            );
            assert_eq!(s.done, n + 1);
        }
        assert!(!s.running && s.complete());
        assert_eq!(s.took_ms, Some(40.0));
        assert_eq!(s.busy_ms, 10.0);
        assert_eq!(s.json().unwrap(), want);
    }

    #[test]
    fn a_failure_stops_the_run_with_its_message() {
        let points = vec![Scenario::default(); 3];
        let s = reduce(
            Rc::new(SweepRun::default()),
            SweepRunAction::Start {
                generation: 1,
                points: Rc::new(points),
                spec: None,
                workers: 3,
                now_ms: 0.0,
            },
        );
        let s = reduce(
            s,
            SweepRunAction::Msg {
                generation: 1,
                msg: PoolMsg::Failed("invalid load '0': expected ...".into()),
                now_ms: 1.0,
            },
        );
        assert!(!s.running);
        assert_eq!(s.error.as_deref(), Some("invalid load '0': expected ..."));
        assert_eq!(s.json(), None);
    }
}
