// Sweep worker (module). The page starts it with
//   new Worker(new URL('static/sweep-worker.js', document.baseURI), { type: 'module' })
// and posts { js, wasm, points }: the hashed wasm-bindgen glue and wasm URLs the page itself
// loaded (from static/boot.js), and the sweep's points as scenario query strings. The worker
// initialises the same wasm (its start function does nothing without a window), runs each
// point with the exported sweep_point (sis_core::sweep::run_point, RunReport JSON) and posts
// { done, total, report } after each. Cancel = the page terminates the worker.
self.onmessage = async (e) => {
  const { js, wasm, points } = e.data;
  try {
    const bindings = await import(js);
    await bindings.default({ module_or_path: wasm });
    const total = points.length;
    for (let i = 0; i < total; i++) {
      const report = bindings.sweep_point(points[i]);
      self.postMessage({ done: i + 1, total, report });
    }
  } catch (err) {
    self.postMessage({ error: String(err && err.message ? err.message : err) });
  }
};
