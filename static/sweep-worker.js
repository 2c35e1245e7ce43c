// Sweep worker (module), one of a pool (src/sweep_pool.rs). The page starts each with
//   new Worker(new URL('static/sweep-worker.js', document.baseURI), { type: 'module' })
// and the worker loads the sweep workers' own wasm (crates/sisviz-sim-worker, built by trunk
// beside the page's as sisviz-sim-worker.js + _bg.wasm, at opt-level 3 where the page's is
// built for size). Then the page posts { index, point } messages, one at a time per worker
// (the next when this one answers): the worker runs the point, a scenario query string, with
// the exported sweep_point (sis_core::analysis::sweep::run_point; the RunReport as its
// scenario query and integers, encode_report) and posts { index, report, ms } (ms: the run's
// wall time in this worker, for the pool's efficiency figure). Any failure posts { error }.
// Cancel = the page terminates it.
const ready = import(new URL('../sisviz-sim-worker.js', import.meta.url).href)
  .then(async (bindings) => {
    await bindings.default();
    return bindings;
  });
// A load failure is answered on the first point (the page listens for messages, not for this
// promise).
ready.catch(() => {});

self.onmessage = async (e) => {
  const m = e.data;
  try {
    // Points may arrive before the wasm is ready (messages queue behind the load).
    const bindings = await ready;
    const t0 = performance.now();
    const report = bindings.sweep_point(m.point);
    self.postMessage({ index: m.index, report, ms: performance.now() - t0 });
  } catch (err) {
    self.postMessage({ error: String(err && err.message ? err.message : err) });
  }
};
