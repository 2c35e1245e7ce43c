//! Sweeps on every core: a pool of module workers (`static/sweep-worker.js`), each running
//! the sweep workers' wasm's `sweep_point` (`crates/sisviz-sim-worker`) on the points the
//! page deals it, one at a time.
//!
//! Dealing is dynamic (the next point goes to whichever worker finished), so a slow point
//! (a high load) never leaves the other workers idle, and the costliest points go first
//! ([`deal_order`]), so the sweep does not end on one worker finishing a long point while the
//! others wait; each result carries its point's index and lands in that slot, so the rows,
//! and every table and JSON made from them, are the same bytes for any number of workers and
//! equal to `sis sweep`'s.

use crate::worker_api::report_from_wire;
use sis_core::sim::engine::RunReport;
use sis_core::{InputError, Scenario};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The most workers `auto` starts, whatever `navigator.hardwareConcurrency` says: each holds
/// its own wasm instance (a few MB), and a sweep of a few dozen points gains little beyond.
pub const AUTO_CAP: usize = 4;
/// The most workers the `workers` setting may ask for.
pub const MAX_WORKERS: usize = 16;

/// The `workers` setting: `auto` (or empty) = one per core up to [`AUTO_CAP`], else a
/// count in 1..=[`MAX_WORKERS`].
pub fn parse_workers(text: &str) -> Result<Option<usize>, InputError> {
    let t = text.trim();
    if t.is_empty() || t == "auto" {
        return Ok(None);
    }
    t.parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_WORKERS).contains(n))
        .map(Some)
        .ok_or_else(|| {
            InputError::range(
                "workers",
                t,
                &format!("auto or an integer in 1..={MAX_WORKERS}"),
            )
        })
}

/// How many workers a sweep of `points` starts: the setting, else `cores` capped at
/// [`AUTO_CAP`]; never more than there are points, never none.
pub fn pool_size(setting: Option<usize>, cores: usize, points: usize) -> usize {
    setting
        .unwrap_or(cores.clamp(1, AUTO_CAP))
        .min(points)
        .max(1)
}

/// `navigator.hardwareConcurrency` (1 when unknown).
pub fn hardware_concurrency() -> usize {
    web_sys::window()
        .map(|w| w.navigator().hardware_concurrency() as usize)
        .unwrap_or(1)
        .max(1)
}

/// The order to deal `points` in: the costliest first (longest-processing-time-first, which
/// keeps the last point short), ties in point order. A point's cost is taken as its tasks
/// (load x CPUs) times its simulated time: the events a run handles grow with both.
pub fn deal_order(points: &[Scenario]) -> Vec<usize> {
    let cost = |sc: &Scenario| {
        u128::from(sc.load) * u128::from(sc.nr_cpus()) * u128::from(sc.duration_ns())
    };
    let costs: Vec<u128> = points.iter().map(cost).collect();
    // By distinct cost, largest first (a sweep has few: one per load and topology), equal
    // costs in point order; no generic sort (its code would add ~1 KB gzipped to the page).
    let mut order = Vec::with_capacity(points.len());
    let mut last: Option<u128> = None;
    while let Some(c) = costs
        .iter()
        .copied()
        .filter(|&c| last.is_none_or(|l| c < l))
        .max()
    {
        order.extend((0..costs.len()).filter(|&i| costs[i] == c));
        last = Some(c);
    }
    order
}

/// What the pool reports.
#[derive(Clone, Debug, PartialEq)]
pub enum PoolMsg {
    /// Point `index` finished after running `ms` in its worker.
    Done {
        index: usize,
        report: Rc<RunReport>,
        ms: f64,
    },
    /// A worker could not start, a point failed or a worker crashed: every worker has been
    /// terminated.
    Failed(String),
}

/// The workers and the points not yet dealt.
struct Deck {
    workers: Vec<web_sys::Worker>,
    points: Vec<String>,
    /// Point indices in dealing order; `next` indexes it.
    order: Vec<usize>,
    next: usize,
    stopped: bool,
}

impl Deck {
    /// Posts the next point to worker `w` (nothing once every point is dealt).
    fn deal(&mut self, w: usize) -> Result<(), String> {
        let Some((index, point)) = self
            .order
            .get(self.next)
            .and_then(|&i| Some((i, self.points.get(i)?)))
            .filter(|_| !self.stopped)
        else {
            return Ok(());
        };
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"index".into(), &(index as f64).into());
        let _ = js_sys::Reflect::set(&msg, &"point".into(), &point.into());
        self.workers[w]
            .post_message(&msg)
            .map_err(|e| format!("cannot talk to sweep worker {}: {e:?}", w + 1))?;
        self.next += 1;
        Ok(())
    }

    fn stop(&mut self) {
        self.stopped = true;
        for w in &self.workers {
            w.terminate();
        }
    }
}

type Handlers = (
    Closure<dyn FnMut(web_sys::MessageEvent)>,
    Closure<dyn FnMut(web_sys::Event)>,
);

/// A running sweep on a pool of workers. Dropping it (or `cancel`) terminates them all.
pub struct SweepPool {
    deck: Rc<RefCell<Deck>>,
    _handlers: Vec<Handlers>,
}

/// A worker's message: `{index, report, ms}` (the report as `sisviz_sim_worker::encode_report` writes it, or `error: ...`) or `{error}`.
fn point_result(d: &JsValue) -> Result<(usize, RunReport, f64), String> {
    let get = |k: &str| js_sys::Reflect::get(d, &JsValue::from_str(k)).ok();
    if let Some(err) = get("error").and_then(|v| v.as_string()) {
        return Err(err);
    }
    let index = get("index")
        .and_then(|v| v.as_f64())
        .ok_or("a sweep worker sent a message without a point index")? as usize;
    let report = get("report")
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    let ms = get("ms").and_then(|v| v.as_f64()).unwrap_or(0.0);
    Ok((index, report_from_wire(&report)?, ms))
}

impl SweepPool {
    /// Starts `workers` workers (at most one per point) on `points` (queries from
    /// `worker_api::point_query`), dealt in `order` (a permutation of the indices, see
    /// [`deal_order`]), and calls `on_msg` as each point finishes.
    pub fn start(
        points: Vec<String>,
        order: Vec<usize>,
        workers: usize,
        on_msg: impl Fn(PoolMsg) + 'static,
    ) -> Result<Self, String> {
        if points.is_empty() {
            return Err("a sweep needs at least one point".into());
        }
        let doc = web_sys::window()
            .and_then(|w| w.document())
            .ok_or("no document")?;
        let base = doc.base_uri().ok().flatten().ok_or("no base URI")?;
        let url = web_sys::Url::new_with_base("static/sweep-worker.js", &base)
            .map_err(|_| "bad worker URL")?
            .href();
        let n = workers.clamp(1, points.len());
        let deck = Rc::new(RefCell::new(Deck {
            workers: Vec::with_capacity(n),
            points,
            order,
            next: 0,
            stopped: false,
        }));
        let pool_of = |handlers| SweepPool {
            deck: deck.clone(),
            _handlers: handlers,
        };
        let on_msg = Rc::new(on_msg);
        let mut handlers = Vec::with_capacity(n);
        for w in 0..n {
            let opts = web_sys::WorkerOptions::new();
            opts.set_type(web_sys::WorkerType::Module);
            let worker = match web_sys::Worker::new_with_options(&url, &opts) {
                Ok(x) => x,
                Err(e) => {
                    // Terminate the ones already started before reporting.
                    drop(pool_of(handlers));
                    return Err(format!("cannot start sweep worker {}: {e:?}", w + 1));
                }
            };
            let (d, cb) = (deck.clone(), on_msg.clone());
            let onmessage = Closure::<dyn FnMut(_)>::new(move |e: web_sys::MessageEvent| {
                // Decide under the borrow, report after it (on_msg may start another sweep).
                let out = {
                    let mut deck = d.borrow_mut();
                    if deck.stopped {
                        return;
                    }
                    match point_result(&e.data()).and_then(|p| deck.deal(w).map(|()| p)) {
                        Ok((index, report, ms)) => PoolMsg::Done {
                            index,
                            report: Rc::new(report),
                            ms,
                        },
                        Err(err) => {
                            deck.stop();
                            PoolMsg::Failed(err)
                        }
                    }
                };
                cb(out);
            });
            let (d, cb) = (deck.clone(), on_msg.clone());
            let onerror = Closure::<dyn FnMut(_)>::new(move |e: web_sys::Event| {
                let msg = js_sys::Reflect::get(&e, &JsValue::from_str("message"))
                    .ok()
                    .and_then(|v| v.as_string())
                    .unwrap_or_else(|| format!("sweep worker {} failed to load", w + 1));
                let was_running = {
                    let mut deck = d.borrow_mut();
                    let was = !deck.stopped;
                    deck.stop();
                    was
                };
                if was_running {
                    cb(PoolMsg::Failed(msg));
                }
            });
            worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
            worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
            handlers.push((onmessage, onerror));
            deck.borrow_mut().workers.push(worker);
        }
        // Each worker queues its first point behind loading its wasm.
        for w in 0..n {
            let dealt = deck.borrow_mut().deal(w);
            if let Err(e) = dealt {
                drop(pool_of(handlers));
                return Err(e);
            }
        }
        Ok(pool_of(handlers))
    }

    /// How many workers the pool started.
    pub fn workers(&self) -> usize {
        self.deck.borrow().workers.len()
    }

    /// Stops every worker at once (mid-point); a new sweep starts new workers.
    pub fn cancel(&self) {
        self.deck.borrow_mut().stop();
    }
}

impl Drop for SweepPool {
    fn drop(&mut self) {
        let mut deck = self.deck.borrow_mut();
        for w in &deck.workers {
            w.set_onmessage(None);
            w.set_onerror(None);
        }
        deck.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workers_setting_is_auto_or_a_bounded_count() {
        assert_eq!(parse_workers("auto").unwrap(), None);
        assert_eq!(parse_workers(" ").unwrap(), None);
        assert_eq!(parse_workers("2").unwrap(), Some(2));
        assert_eq!(parse_workers("16").unwrap(), Some(16));
        for bad in ["0", "17", "-1", "two", "1.5"] {
            let e = parse_workers(bad).unwrap_err();
            assert_eq!(e.field, "workers", "{bad}");
            assert_eq!(
                e.to_string(),
                format!("invalid workers '{bad}': expected auto or an integer in 1..=16")
            );
        }
    }

    #[test]
    fn the_costliest_points_are_dealt_first() {
        let sc = |load: &str, llc: &str, dur: &str| {
            Scenario::from_pairs([("load", load), ("llc_weight", llc), ("duration", dur)]).unwrap()
        };
        let points = [
            sc("50", "8", "1s"),
            sc("200", "8", "1s"),
            sc("100", "8", "1s"),
            sc("200", "8", "1s"),
            sc("50", "32", "1s"),
            sc("200", "8", "100ms"),
        ];
        // 50 x 32 CPUs = 200 x 8 CPUs: equal costs keep point order.
        assert_eq!(deal_order(&points), [1, 3, 4, 2, 0, 5]);
        assert!(deal_order(&[]).is_empty());
    }

    #[test]
    fn the_pool_has_one_worker_per_core_up_to_the_cap_and_the_points() {
        assert_eq!(pool_size(None, 2, 16), 2);
        assert_eq!(pool_size(None, 64, 16), AUTO_CAP);
        assert_eq!(pool_size(None, 0, 16), 1);
        assert_eq!(pool_size(None, 8, 3), 3);
        assert_eq!(pool_size(Some(1), 8, 16), 1);
        assert_eq!(pool_size(Some(12), 2, 16), 12);
        assert_eq!(pool_size(Some(12), 2, 5), 5);
        assert_eq!(pool_size(Some(3), 2, 0), 1);
    }
}
