// Sweep worker (module), one of a pool (src/sweep_pool.rs). The page starts each with
//   new Worker(new URL('static/sweep-worker.js', document.baseURI), { type: 'module' })
// and posts { js, wasm }: the hashed wasm-bindgen glue and wasm URLs the page itself loaded
// (from static/boot.js); the worker initialises the same wasm (its start function does
// nothing without a window). Then the page posts { index, point } messages, one at a time
// per worker (the next when this one answers): the worker runs the point, a scenario query
// string, with the exported sweep_point (sis_core::sweep::run_point; the RunReport as its
// scenario query and integers, src/worker_api.rs encode_report) and posts
// { index, report, ms } (ms: the run's wall time in this worker, for the pool's efficiency
// figure). Any failure posts { error }. Cancel = the page terminates it.
let ready = null;
self.onmessage = async (e) => {
  const m = e.data;
  try {
    if (m.js) {
      ready = import(m.js).then(async (bindings) => {
        await bindings.default({ module_or_path: m.wasm });
        return bindings;
      });
      await ready;
      return;
    }
    // Points may arrive before the wasm is ready (messages queue behind the init).
    const bindings = await ready;
    const t0 = performance.now();
    const report = bindings.sweep_point(m.point);
    self.postMessage({ index: m.index, report, ms: performance.now() - t0 });
  } catch (err) {
    self.postMessage({ error: String(err && err.message ? err.message : err) });
  }
};
