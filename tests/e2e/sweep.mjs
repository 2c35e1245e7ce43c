// End-to-end test of the sweep view: a small sweep on 1 and on 2 Web Workers (progress to
// 100%, the seed-style table, the JSON byte-identical to tests/golden/, `sis sweep --format
// json` run natively), replicates (seeds 1-3: mean (std%), intervals), then a longer sweep
// cancelled midway while the page stays responsive; the compare view and
// the patch scenarios. Prints `sweep e2e: N passed, M failed` last.
//
//   node tests/e2e/sweep.mjs        (after trunk build --release)

import fs from 'node:fs';
import path from 'node:path';
import {
  ROOT, SHOTS, sleep, byId, waitFor, openApp, setControl, decisionCount, textOf, runFile,
  UI_TIMEOUT, decodePng, barLayout, edgeShare, PALETTE, near,
  firstDifference, withApp
} from './_lib.mjs';

const GOLDEN = path.join(ROOT, 'tests', 'golden', 'sweep-llc8-20ms.json');

const progressOf = async (page) => {
  const p = page.locator(byId('sweep-progress')).first();
  return { value: Number(await p.getAttribute('value')), max: Number(await p.getAttribute('max')) };
};

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

check('a small sweep on 1 and on 2 workers reaches 4/4 and prints exactly the CLI\'s JSON (the golden)', async (browser) => {
  await withApp(browser, '?llc_weight=8&duration=20ms', async ({ page }) => {
    await page.locator(byId('tab-sweep')).click();
    await setControl(page, 'sweep-preset-a', 'linux-5.15');
    await setControl(page, 'sweep-preset-b', 'linux-6.0');
    await setControl(page, 'sweep-loads', '50,150');
    // A bad worker count is an error naming the setting, and runs nothing.
    await setControl(page, 'sweep-workers', '0');
    await page.locator(byId('sweep-run')).click();
    const err = await page.locator(`${byId('sweep-view')} [role=alert]`).first().textContent({ timeout: 5_000 });
    if (!err.includes("invalid workers '0': expected auto or an integer in 1..=16")) throw new Error(`workers=0: "${err}"`);
    const golden = fs.readFileSync(GOLDEN, 'utf8');
    for (const workers of ['1', '2']) {
      await setControl(page, 'sweep-workers', workers);
      await page.locator(byId('sweep-run')).click();
      const done = await waitFor(async () => {
        const p = await progressOf(page);
        return p.max === 4 && p.value === 4;
      }, 20_000);
      if (!done) throw new Error(`${workers} workers: progress did not reach 4/4: ${JSON.stringify(await progressOf(page))}`);
      const status = await textOf(page, 'sweep-status');
      if (!status.includes(`on ${workers} worker`)) throw new Error(`status "${status}" does not say ${workers} worker(s)`);
      const table = await textOf(page, 'sweep-table');
      for (const want of ['se_eff%', 'success_rate%', 'linux-5.15', 'linux-6.0', 'compare%', '12 threads']) {
        if (!table.includes(want)) throw new Error(`sweep-table lacks "${want}":\n${table}`);
      }
      // The whole document, byte for byte: `sis sweep --format json` of the same sweep.
      const json = (await page.locator(byId('sweep-json')).first().textContent()) ?? '';
      const d = firstDifference(json, golden);
      if (d) throw new Error(`${workers} workers: the sweep JSON differs from tests/golden (the CLI's): ${d}`);
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator(byId('sweep-view')).screenshot({ path: path.join(SHOTS, 'sweep-view.png') });
    // The plot draws both presets' lines, each in its own colour.
    const plot = decodePng(await page.locator(byId('sweep-plot')).first().screenshot());
    const inColour = (rgb) => {
      let n = 0;
      for (let y = 0; y < plot.height; y++) for (let x = 0; x < plot.width; x++) if (near(plot.at(x, y), rgb, 20)) n++;
      return n;
    };
    const lines = PALETTE.light.series.map(inColour);
    if (lines.some((n) => n < 300)) throw new Error(`sweep-plot pixels in the two series' colours: ${lines}`);

  });
});

check('replicates: seeds 1-3 give mean (std%) tables, error bars and a per-seed JSON', async (browser) => {
  await withApp(browser, '?llc_weight=8&duration=20ms', async ({ page }) => {
    await page.locator(byId('tab-sweep')).click();
    await setControl(page, 'sweep-preset-a', 'linux-5.15');
    await setControl(page, 'sweep-preset-b', 'linux-6.0');
    await setControl(page, 'sweep-loads', '50,150');
    await setControl(page, 'sweep-seeds', '1-3');
    await page.locator(byId('sweep-run')).click();
    const done = await waitFor(async () => {
      const p = await progressOf(page);
      return p.max === 12 && p.value === 12;
    }, 20_000);
    if (!done) throw new Error(`progress did not reach 12/12: ${JSON.stringify(await progressOf(page))}`);
    const doc = JSON.parse((await page.locator(byId('sweep-json')).first().textContent()) ?? '');
    if (doc.rows.length !== 12 || doc.summary.length !== 4) throw new Error(`rows ${doc.rows.length}, summary ${doc.summary.length}`);
    if (JSON.stringify(doc.sweep.seeds) !== '[1,2,3]') throw new Error(`sweep.seeds ${JSON.stringify(doc.sweep.seeds)}`);
    const s0 = doc.summary[0];
    const wakeups = doc.rows.slice(0, 3).map((r) => r.report.wakeups);
    const mean = wakeups.reduce((a, b) => a + b, 0) / 3;
    if (s0.runs !== 3 || s0.quantities.wakeups.mean !== mean || s0.quantities.wakeups.ci95_lo === null) {
      throw new Error(`summary[0]: ${JSON.stringify(s0).slice(0, 300)} (mean of ${wakeups} = ${mean})`);
    }
    // The table's replicate form: mean (std%).
    const table = await textOf(page, 'sweep-table');
    if (!/\d\.\d+ *\( *\d+\.\d+\)/.test(table)) throw new Error(`no "mean (std%)" in the table:\n${table}`);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator(byId('sweep-view')).screenshot({ path: path.join(SHOTS, 'sweep-replicates.png') });
  });
});

check('a heatmap with seeds 1,2 runs every cell twice and reads out mean and std% under the mouse', async (browser) => {
  await withApp(browser, '', async ({ page }) => {
    await page.locator(byId('tab-heatmap')).click();
    await setControl(page, 'heat-seeds', '1,2');
    await page.locator(byId('heat-run')).click();
    const p = page.locator(`${byId('heat-view')} ${byId('sweep-progress')}`).first();
    const done = await waitFor(async () => Number(await p.getAttribute('max')) === 32
      && Number(await p.getAttribute('value')) === 32, 120_000);
    if (!done) throw new Error(`heatmap progress did not reach 32/32: ${await p.getAttribute('value')}/${await p.getAttribute('max')}`);
    // The cell at the top right (load 200%, llc_weight 32): scanning differs between seeds.
    await page.locator(byId('heat-scanned')).scrollIntoViewIfNeeded();
    const box = await page.locator(byId('heat-scanned')).boundingBox();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.3);
    const ok = await waitFor(async () => /\(std [0-9.]+%, 95% CI .* 2 seeds\)/.test(await textOf(page, 'heat-hover')));
    const text = await textOf(page, 'heat-hover');
    if (!ok) throw new Error(`heat-hover: "${text}"`);
    const title = await page.locator(byId('heat-scanned')).getAttribute('title');
    if (title !== text) throw new Error(`the canvas title "${title}" is not the readout "${text}"`);
    console.log(`      ${text}`);
  });
});

check('a worker that fails stops the whole sweep with its message', async (browser) => {
  const { context, page, problems } = await openApp(browser, '?llc_weight=8&duration=20ms');
  try {
    // Every sweep worker answers its first point with an error.
    await context.route('**/static/sweep-worker.js', (route) => route.fulfill({
      contentType: 'text/javascript',
      body: "self.onmessage = (e) => { if (e.data.point !== undefined) setTimeout(() => self.postMessage({ error: 'test failure at point ' + e.data.index }), 100); };",
    }));
    await page.locator(byId('tab-sweep')).click();
    await setControl(page, 'sweep-loads', '50,100,150');
    await setControl(page, 'sweep-workers', '2');
    await page.locator(byId('sweep-run')).click();
    const failed = await waitFor(async () => /error: test failure at point \d/.test(await textOf(page, 'sweep-status')));
    const status = await textOf(page, 'sweep-status');
    if (!failed) throw new Error(`status: "${status}"`);
    if (await page.locator(byId('sweep-run')).isDisabled()) throw new Error('the sweep still counts as running');
    const p = await progressOf(page);
    await sleep(500);
    const later = await progressOf(page);
    if (p.value !== 0 || later.value !== 0) throw new Error(`progress moved: ${p.value} -> ${later.value}`);
    if ((await textOf(page, 'sweep-json')) !== '') throw new Error('a failed sweep shows JSON');
    console.log(`      ${status}`);
    problems.consoleErrors.length = 0;
  } finally {
    await context.close();
  }
});

check('a long sweep is cancelled midway; the page stays responsive meanwhile', async (browser) => {
  // 16 points of 300 ms at 112 CPUs: many seconds of work in the worker.
  const { context, page, problems } = await openApp(browser, '?llc_weight=112&duration=300ms');
  try {
    await page.locator(byId('tab-sweep')).click();
    await setControl(page, 'sweep-preset-a', 'linux-5.15');
    await setControl(page, 'sweep-preset-b', 'linux-6.0');
    await page.locator(byId('sweep-run')).click();
    const started = await waitFor(async () => (await progressOf(page)).max === 16, 5_000);
    if (!started) throw new Error('the long sweep did not start (max != 16)');
    // The newest decision changes (the page opens warm: the log is already at its cap).
    const top = async () => ((await decisionCount(page))
      ? page.locator(byId('decision')).first().innerText() : '');
    const before = await top();
    const t0 = Date.now();
    await page.locator(byId('step')).first().click();
    const stepped = await waitFor(async () => (await top()) !== before, 1_000, 20);
    const dt = Date.now() - t0;
    if (!stepped) throw new Error(`step did not add a decision within 1 s while the sweep ran (${dt} ms)`);
    const mid = await progressOf(page);
    await page.locator(byId('sweep-cancel')).click();
    await sleep(300);
    const after = await progressOf(page);
    const status = await page.locator('.sweep-progress .status').first().textContent();
    if (!/cancelled/.test(status ?? '')) throw new Error(`status after cancel: "${status}"`);
    if (after.value >= 16) throw new Error(`sweep finished before cancel (${after.value}/16)`);
    await sleep(1500);
    const later = await progressOf(page);
    if (later.value !== after.value) throw new Error(`progress moved after cancel: ${after.value} -> ${later.value}`);
    console.log(`      step answered in ${dt} ms while the worker ran; cancelled at ${mid.value}/16`);
    if (problems.consoleErrors.length) throw new Error(problems.consoleErrors.join('\n      '));
  } finally {
    await context.close();
  }
});

check('compare view steps both kernels and tables compare%', async (browser) => {
  const { context, page } = await openApp(browser, '?llc_weight=8&smt=1&workload=pinned&load=100');
  try {
    await page.locator(byId('tab-compare')).click();
    await setControl(page, 'compare-preset-a', 'linux-6.0');
    await setControl(page, 'compare-preset-b', 'sis-util-idle-aware');
    // The first click starts the warm-up (both runs under A's kernel, on animation frames);
    // steps count only once it is over, which the note says. A step clicked before is a no-op.
    await page.locator(byId('compare-run')).click();
    const warm = await waitFor(async () => /switched to its kernel at/.test(await textOf(page, 'compare-note')), 60_000);
    if (!warm) throw new Error(`compare did not warm up: "${await textOf(page, 'compare-note')}"`);
    await page.locator(byId('compare-step-10')).click();
    const n = await waitFor(async () => (await page.locator(byId('compare-pair')).count()) >= 10);
    if (!n) throw new Error('compare log did not fill');
    const t = await textOf(page, 'compare-table');
    for (const want of ['baseline', 'compare%', 'sis_scanned', 'success_rate%']) {
      if (!t.includes(want)) throw new Error(`compare-table lacks "${want}"`);
    }
    // A run with no counted wake-up has no values: "–" there and in compare%, never a
    // percentage (issue 27); a percentage only beside two values.
    const rows = await page.locator(`${byId('compare-table')} tbody tr`).evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())));
    for (const [name, a, pct, b] of rows) {
      const dash = a === '–' || b === '–';
      if (dash && pct !== '–') throw new Error(`${name}: ${a} / ${b} but compare% "${pct}"`);
      if (!dash && !/^[+-]\d+\.\d%$|^–$/.test(pct)) throw new Error(`${name}: compare% "${pct}"`);
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator(byId('workbench')).screenshot({ path: path.join(SHOTS, 'compare-view.png') });
  } finally {
    await context.close();
  }
});

check('patch scenarios: one entry each; the corner case: linux-6.0 misses idle CPU7, the idle-aware RFC takes it', async (browser) => {
  const { context, page } = await openApp(browser);
  try {
    const n = await page.locator(`${byId('patch-scenarios')} ${byId('patch-scenario')}`).count();
    if (n < 7) throw new Error(`expected >= 7 patch scenarios, got ${n}`);
    await page.locator(byId('patch-menu')).click();
    await page.locator('[data-patch="corner-case"] button').click();
    const ok = await waitFor(async () => {
      const u = new URL(page.url()).searchParams;
      return u.get('workload') === 'pinned' && u.get('llc_weight') === '8' && u.get('smt') === '1';
    });
    if (!ok) throw new Error(`URL after the corner-case patch scenario: ${page.url()}`);
    const tabOn = await page.locator(`${byId('tab-compare')}[aria-selected="true"]`).count();
    if (!tabOn) throw new Error('the corner-case patch scenario did not open the compare tab');
    // The seed's corner case is a first wake-up: the scenario starts compare cold (t = 0).
    if (!(await page.locator(byId('compare-cold')).isChecked())) throw new Error('the corner case did not start compare cold');
    const presets = [
      await page.locator(`${byId('compare-preset-a')}`).first().inputValue(),
      await page.locator(`${byId('compare-preset-b')}`).first().inputValue(),
    ];
    if (presets.join() !== 'linux-6.0,sis-util-idle-aware') throw new Error(`compare presets: ${presets}`);

    // The first wake-up, in both runs: seven hogs on CPU0..6 at util_avg 1024, CPU7 idle, the
    // wakee's prev and target a hog's CPU (busy).
    await page.locator(byId('compare-step')).click();
    const row = page.locator(byId('compare-pair')).first();
    await row.waitFor({ timeout: UI_TIMEOUT });
    const r = await row.evaluate((el) => Object.fromEntries(
      Object.entries(el.dataset).map(([k, v]) => [k, v])));
    const fail = (what) => { throw new Error(`first compare pair ${JSON.stringify(r)}: ${what}`); };
    if (r.seq !== '1' || r.same !== 'true') fail('not the same first wake-up in both runs');
    if (r.aCpu === r.bCpu) fail(`both kernels chose CPU ${r.aCpu}`);
    // linux-6.0 (SIS_UTIL): 7 of 8 CPUs at 1024 is over the 85% cut-off, nr_idle_scan 0, so
    // nr = 1 and `if (nr == 1) return -1`: no scan, one probe (the target), CPU7 missed.
    if (r.aCpu === '7') fail('linux-6.0 found CPU7');
    if (r.aBy !== 'fallback' || r.aProbes !== '1' || r.aNrBefore !== '1' || r.aNrAfter !== '1') {
      fail('linux-6.0 should fall back to the busy target without scanning (nr 1 -> 1, 1 probe)');
    }
    if (!r.aMissed.split(',').includes('7')) fail('linux-6.0 does not list CPU7 as missed idle');
    // The idle-aware sum leaves out the idle CPUs' capacity: at t = 0 the hogs have not run,
    // nr_idle_scan = llc_weight = 8, nr = 9; the scan's wrap starts at target + 1 = CPU7 and
    // finds it at the first probe (nr 9 -> 8; probes: the target, then CPU7).
    if (r.bCpu !== '7' || r.bBy !== 'select_idle_cpu') fail('sis-util-idle-aware did not find CPU7 by select_idle_cpu');
    if (r.bNrBefore !== '9' || r.bNrAfter !== '8' || r.bProbes !== '2' || r.bMissed !== '') {
      fail('sis-util-idle-aware should find CPU7 at its first scan probe (nr 9 -> 8, 2 probes, none missed)');
    }

    // The two CPU panels show it: A's outline on its CPU and CPU7 dashed as missed, B's on CPU7.
    await sleep(200);
    const shot = async (id) => decodePng(await page.locator(byId(id)).first().screenshot());
    const [imgA, imgB] = [await shot('compare-cpus-a'), await shot('compare-cpus-b')];
    const [layA, layB] = [await barLayout(page, 'compare-cpus-a'), await barLayout(page, 'compare-cpus-b')];
    const dark = await page.evaluate(() => !!document.querySelector('.theme-dark'));
    const pal = PALETTE[dark ? 'dark' : 'light'];
    const a = Number(r.aCpu);
    const pct = (x) => `${(x * 100).toFixed(0)}%`;
    const shares = {
      aAtA: edgeShare(imgA, layA, a, pal.chosen), aAt7: edgeShare(imgA, layA, 7, pal.chosen),
      bAt7: edgeShare(imgB, layB, 7, pal.chosen), bAtA: edgeShare(imgB, layB, a, pal.chosen),
      // The dashed missed outline: a 2 px stroke 1.5 px left of the bar, 4 on, 3 off.
      missedA: edgeShare(imgA, layA, 7, pal.missed, { dx: -1.5 }),
      missedB: edgeShare(imgB, layB, 7, pal.missed, { dx: -1.5 }),
    };
    const got = Object.entries(shares).map(([k, v]) => `${k} ${pct(v)}`).join(', ');
    if (!(shares.aAtA >= 0.9 && shares.aAt7 <= 0.2)) throw new Error(`panel A is not outlined at CPU ${a} only: ${got}`);
    if (!(shares.bAt7 >= 0.9 && shares.bAtA <= 0.2)) throw new Error(`panel B is not outlined at CPU7 only: ${got}`);
    if (!(shares.missedA >= 0.3 && shares.missedB <= 0.1)) throw new Error(`CPU7 is not dashed as missed in A only: ${got}`);
    console.log(`      corner case: A -> CPU ${a} (CPU7 missed), B -> CPU7; ${got}`);
  } finally {
    await context.close();
  }
});

runFile('sweep e2e', checks);
