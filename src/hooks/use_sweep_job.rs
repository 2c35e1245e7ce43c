//! A sweep (or heatmap) run point by point in a Web Worker (`worker_api::SweepJob`): the
//! points, the reports as they come back, progress, cancel and errors.

use crate::worker_api::{point_query, report_from_json, JobMsg, SweepJob};
use sis_core::engine::RunReport;
use sis_core::sweep::SweepRow;
use sis_core::Scenario;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// One sweep run: its points and what came back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepRun {
    /// Which start this is: messages of an older worker are ignored.
    pub generation: u64,
    pub running: bool,
    pub cancelled: bool,
    pub done: usize,
    pub points: Rc<Vec<Scenario>>,
    /// The report of each finished point.
    pub reports: Vec<Option<RunReport>>,
    pub error: Option<String>,
    /// Real time the sweep took, ms.
    pub started_ms: f64,
    pub took_ms: Option<f64>,
}

pub enum SweepRunAction {
    Start {
        generation: u64,
        points: Rc<Vec<Scenario>>,
    },
    Msg {
        generation: u64,
        msg: JobMsg,
    },
    Cancel,
    Fail(String),
}

impl Reducible for SweepRun {
    type Action = SweepRunAction;
    fn reduce(self: Rc<Self>, a: SweepRunAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            SweepRunAction::Start { generation, points } => {
                s = SweepRun {
                    generation,
                    running: true,
                    reports: vec![None; points.len()],
                    points,
                    started_ms: crate::canvas::now_ms(),
                    ..SweepRun::default()
                };
            }
            SweepRunAction::Msg { generation, .. } if generation != s.generation || !s.running => {
                return self
            }
            SweepRunAction::Msg { msg, .. } => match msg {
                JobMsg::Progress { done, report, .. } => match report_from_json(&report) {
                    Err(e) => {
                        s.error = Some(e);
                        s.running = false;
                    }
                    Ok(report) => {
                        if let Some(slot) = done.checked_sub(1).and_then(|i| s.reports.get_mut(i)) {
                            *slot = Some(report);
                            s.done = done;
                            if done >= s.reports.len() {
                                s.running = false;
                                s.took_ms = Some(crate::canvas::now_ms() - s.started_ms);
                            }
                        }
                    }
                },
                JobMsg::Failed(e) => {
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
            .filter_map(|(sc, r)| Some(SweepRow::new(sc, r.clone()?)))
            .collect()
    }

    /// The finished points as `sis sweep --format json` writes them (compact):
    /// `[{preset, load, report}]`.
    pub fn json(&self) -> String {
        serde_json::to_string(&self.rows()).unwrap_or_default()
    }
}

/// The run's state plus the worker that feeds it.
#[derive(Clone)]
pub struct SweepJobHandle {
    pub run: UseReducerHandle<SweepRun>,
    worker: Rc<RefCell<Option<SweepJob>>>,
}

impl SweepJobHandle {
    /// Starts a worker on `points` (cancelling the one running).
    pub fn start(&self, points: Vec<Scenario>) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.cancel();
        }
        let generation = self.run.generation + 1;
        let queries: Vec<String> = points.iter().map(point_query).collect();
        self.run.dispatch(SweepRunAction::Start {
            generation,
            points: Rc::new(points),
        });
        let d = self.run.dispatcher();
        let on_msg = move |msg| d.dispatch(SweepRunAction::Msg { generation, msg });
        match SweepJob::start(&queries, on_msg) {
            Ok(w) => *self.worker.borrow_mut() = Some(w),
            Err(e) => self.run.dispatch(SweepRunAction::Fail(e)),
        }
    }

    pub fn cancel(&self) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.cancel();
        }
        self.run.dispatch(SweepRunAction::Cancel);
    }
}

/// A sweep run in a Web Worker; the worker is terminated when the component unmounts.
#[hook]
pub fn use_sweep_job() -> SweepJobHandle {
    let run = use_reducer(SweepRun::default);
    let worker = use_mut_ref(|| None::<SweepJob>);
    {
        let worker = worker.clone();
        use_effect_with((), move |_| move || drop(worker.borrow_mut().take()));
    }
    SweepJobHandle { run, worker }
}
