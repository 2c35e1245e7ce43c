// Browser benchmark (issue 9): reports, without asserting on time,
//  - the wasm wake-up rate in Chromium beside the native rate of the same scenario, measured
//    in the same run (the native `sis run` in release, the wasm `sweep_point` export);
//  - the first render time of the page from a local server;
//  - frame times while playing at 256 CPUs.
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, openApp, byId, sleep, state, ROOT } from './_lib.mjs';

const query = 'llc_weight=112&smt=2&load=200&preset=linux-6.0&duration=400ms&warmup=0ms&seed=1';
const flags = ['--llc-weight', '112', '--smt', '2', '--load', '200', '--preset', 'linux-6.0',
  '--duration', '400ms', '--warmup', '0ms', '--seed', '1', '--format', 'json'];

execFileSync('cargo', ['build', '--release', '-q', '-p', 'sis-cli'], { cwd: ROOT, stdio: 'inherit' });
const sis = `${ROOT}/target/release/sis`;
let nativeBest = Infinity;
let native;
for (let i = 0; i < 3; i++) {
  const t0 = process.hrtime.bigint();
  native = JSON.parse(execFileSync(sis, ['run', ...flags], { encoding: 'utf8' }));
  nativeBest = Math.min(nativeBest, Number(process.hrtime.bigint() - t0) / 1e6);
}

const server = await startServer();
state.baseUrl = `http://127.0.0.1:${server.address().port}/sub/sisviz/`;
const browser = await launchBrowser();
let failed = 0;
try {
  const t0 = Date.now();
  const { context, page } = await openApp(browser, '?llc_weight=256&smt=2&load=100');
  const firstRender = Date.now() - t0;
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    return n ? Math.round(n.loadEventEnd - n.startTime) : -1;
  });
  const wasm = await page.evaluate((q) => {
    let best = Infinity;
    let report;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      report = JSON.parse(window.wasmBindings.sweep_point(q));
      best = Math.min(best, performance.now() - t);
    }
    return { best, wakeups: report.wakeups, scanned: report.counters.sis_scanned };
  }, query);
  if (wasm.wakeups !== native.wakeups || wasm.scanned !== native.counters.sis_scanned) {
    console.log(`bench: MISMATCH wasm ${wasm.wakeups}/${wasm.scanned} vs native ${native.wakeups}/${native.counters.sis_scanned}`);
    failed++;
  }
  const nativeRate = native.wakeups / (nativeBest / 1000);
  const wasmRate = wasm.wakeups / (wasm.best / 1000);
  console.log(`bench: ${native.wakeups} wake-ups (112 CPUs, 200% netperf, linux-6.0, 400 ms simulated)`);
  console.log(`bench: native ${(nativeRate / 1e6).toFixed(2)} M wake-ups/s (incl. process start), wasm in Chromium ${(wasmRate / 1e6).toFixed(2)} M wake-ups/s, wasm/native = ${(wasmRate / nativeRate).toFixed(2)}`);
  console.log(`bench: first render ${firstRender} ms (page load event ${nav} ms) from a local server`);

  // The page opens after the scenario's warm-up (sliced over frames): frame times while
  // playing are measured after it.
  const w0 = Date.now();
  while ((await page.locator(byId('progress')).count()) > 0 && Date.now() - w0 < 120_000) await sleep(100);
  console.log(`bench: the warm-up at 256 CPUs finished ${Date.now() - t0} ms after navigation`);
  await page.click(byId('play'));
  await sleep(500);
  const frames = await page.evaluate(() => new Promise((resolve) => {
    const times = [];
    let last = performance.now();
    const tick = (t) => {
      times.push(t - last);
      last = t;
      if (times.length < 180) requestAnimationFrame(tick); else resolve(times);
    };
    requestAnimationFrame(tick);
  }));
  await page.click(byId('play'));
  frames.sort((a, b) => a - b);
  const q = (p) => frames[Math.min(frames.length - 1, Math.floor(p * frames.length))].toFixed(1);
  console.log(`bench: frame interval while playing at 256 CPUs: median ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${q(1)} ms`);
  await context.close();
} catch (e) {
  console.log(`bench: failed: ${e.message}`);
  failed++;
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
