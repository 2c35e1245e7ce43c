// Replay worker (module), started by the Replay tab (src/replay_api.rs ReplayJob) with
//   new Worker(new URL('static/replay-worker.js', document.baseURI), { type: 'module' })
// { op: 'start', query, file }: loads the replay's own wasm (crates/sisviz-replay-worker, built
// by trunk beside the page's as sisviz-replay-worker.js + _bg.wasm; the page's wasm has no
// replay code), starts a replay on the topology query, reads the File in
// chunks from its stream (gzip through the browser's DecompressionStream; memory stays
// bounded whatever the file's size), feeds each chunk to replay_feed and posts
// { progress, total, memory } at most every 100 ms, then { summary, ms, memory } or { error }
// (memory: the replay wasm's linear memory, bytes, which never shrinks: the peak so far).
// { op: 'get', pos, step, preset, only }: posts { record } (one kept wake-up, replay_get).
// The Replay and its kept wake-ups stay here; cancel = the page terminates the worker.
let bindings = null;

async function replay(m) {
  bindings = await import(new URL('../sisviz-replay-worker.js', import.meta.url).href);
  const wasm = await bindings.default();
  const opened = bindings.replay_open(m.query);
  if (opened) throw new Error(opened.replace(/^error: /, ''));
  const file = m.file;
  const head = new Uint8Array(await file.slice(0, 6).arrayBuffer());
  const xz = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00].every((b, i) => head[i] === b);
  if (xz) {
    throw new Error(`${file.name} is xz-compressed, which the browser cannot decompress: ` +
      'decompress it first (xz -d), gzip it, or give it to `sis replay --trace` (the CLI reads .xz)');
  }
  const gz = head[0] === 0x1f && head[1] === 0x8b;
  let read = 0;
  const counted = file.stream().pipeThrough(new TransformStream({
    transform(chunk, out) {
      read += chunk.byteLength;
      out.enqueue(chunk);
    },
  }));
  const reader = (gz ? counted.pipeThrough(new DecompressionStream('gzip')) : counted).getReader();
  const t0 = performance.now();
  let last = 0;
  for (;;) {
    let r;
    try {
      r = await reader.read();
    } catch (e) {
      throw new Error(`${file.name}: not a readable gzip file (${e && e.message ? e.message : e})`);
    }
    if (r.done) break;
    const err = bindings.replay_feed(r.value);
    if (err) throw new Error(err.replace(/^error: /, ''));
    const now = performance.now();
    if (now - last > 100) {
      last = now;
      self.postMessage({ progress: read, total: file.size, memory: wasm.memory.buffer.byteLength });
    }
  }
  const summary = bindings.replay_end();
  if (summary.startsWith('error: ')) throw new Error(summary.slice(7));
  self.postMessage({ progress: file.size, total: file.size });
  // The wasm's linear memory never shrinks: its size now is the most the replay held.
  self.postMessage({ summary, ms: performance.now() - t0, memory: wasm.memory.buffer.byteLength });
}

self.onmessage = async (e) => {
  const m = e.data;
  try {
    if (m.op === 'start') await replay(m);
    else if (m.op === 'get' && bindings) {
      self.postMessage({ record: bindings.replay_get(m.pos, m.step, m.preset, m.only) });
    }
  } catch (err) {
    self.postMessage({ error: String(err && err.message ? err.message : err) });
  }
};
