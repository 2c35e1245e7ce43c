// End-to-end tests of what leaves the page and what embeds it: every export button downloads a
// file with the right content, a saved scenario loads back, the examples page mounts two
// script embeds and an iframe and destroy() removes only its own, and the heatmap paints both
// canvases from the worker. Prints `export e2e: N passed, M failed` last.
//
//   node tests/e2e/export.mjs        (after trunk build --release)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  sleep, byId, waitFor, openApp, withApp, state, stepAndCheck, runFile, setControl, textOf,
  firstNumber
} from './_lib.mjs';

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

/** Clicks `testid` and returns the downloaded file's name and bytes. */
async function download(page, testid) {
  const [dl] = await Promise.all([
    page.waitForEvent('download', { timeout: 5_000 }),
    page.locator(byId(testid)).first().click(),
  ]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
}

check('export buttons download the metrics, the trace, PNGs and the scenario; a saved scenario loads back', async (browser) => {
  await withApp(browser, '?llc_weight=16&load=150&seed=7', async ({ page }) => {
    await stepAndCheck(page, 5);
    await page.locator(`${byId('export')} summary`).click();

    const txt = await download(page, 'export-text');
    const t = txt.bytes.toString('utf8');
    for (const want of ['se_eff%', 'success_rate%', 'sis_scanned']) {
      if (!t.includes(want)) throw new Error(`${txt.name} lacks "${want}":\n${t.slice(0, 400)}`);
    }

    const csv = await download(page, 'export-csv');
    const [head, row] = csv.bytes.toString('utf8').trim().split('\n');
    const cols = head.split(',');
    if (!cols.includes('se_eff') || !row || row.split(',').length !== cols.length) {
      throw new Error(`${csv.name}: header ${head} / row ${row}`);
    }

    const json = JSON.parse((await download(page, 'export-json')).bytes.toString('utf8'));
    if (json.scenario?.llc_weight !== 16 || typeof json.counters?.sis_scanned !== 'number' ||
        json.per_cpu?.length !== 16) {
      throw new Error(`export JSON: scenario ${JSON.stringify(json.scenario)}, per_cpu ${json.per_cpu?.length}`);
    }

    // The trace holds the decisions the log shows: one track per CPU, and for each decision
    // of the log one wake-up event on the CPU the log says it chose.
    const trace = JSON.parse((await download(page, 'export-trace')).bytes.toString('utf8'));
    const events = trace.traceEvents;
    if (!Array.isArray(events)) throw new Error(`trace has no traceEvents array: ${JSON.stringify(trace).slice(0, 200)}`);
    const tracks = events.filter((e) => e.name === 'thread_name').map((e) => e.tid);
    if (tracks.join() !== [...Array(16).keys()].join()) throw new Error(`trace tracks: ${tracks}`);
    const bad = events.find((e) => e.ph === 'X' && !(e.dur > 0 && e.ts >= 0 && e.tid >= 0 && e.tid < 16));
    if (bad) throw new Error(`trace slice out of range: ${JSON.stringify(bad)}`);
    const logged = await page.locator(`${byId('decision-log')} ${byId('decision')}`).evaluateAll((lis) =>
      lis.map((li) => [li.querySelector('.seq')?.textContent, li.querySelector('.res')?.textContent]));
    if (logged.length < 5) throw new Error(`decision log shows ${logged.length} decisions`);
    for (const [seqText, res] of logged) {
      const [seq, cpu] = [Number(/\d+/.exec(seqText)?.[0]), Number(/CPU (\d+)/.exec(res)?.[1])];
      const wakes = events.filter((e) => e.cat === 'wakeup' && e.args?.seq === seq);
      if (wakes.length !== 1 || wakes[0].tid !== cpu) {
        throw new Error(`decision ${seqText} ${res}: trace wake-up events ${JSON.stringify(wakes)}`);
      }
    }

    const pngs = await page.locator(`${byId('export')} [data-testid^="export-png-"]`).all();
    if (pngs.length === 0) throw new Error('no PNG export buttons');
    for (const b of pngs) {
      const id = await b.getAttribute('data-testid');
      const png = await download(page, id);
      if (png.bytes.length < 200 || png.bytes.subarray(1, 4).toString('latin1') !== 'PNG') {
        throw new Error(`${id}: ${png.bytes.length} bytes, not a PNG`);
      }
    }

    const saved = await download(page, 'save-scenario');
    const sc = JSON.parse(saved.bytes.toString('utf8'));
    if (sc.llc_weight !== 16 || sc.seed !== 7) throw new Error(`saved scenario: ${JSON.stringify(sc)}`);
    // Load it back with a change: the URL (the app's state) follows the file.
    sc.llc_weight = 24;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sisviz-')), 'scenario.json');
    fs.writeFileSync(file, JSON.stringify(sc));
    await page.locator(byId('load-scenario')).setInputFiles(file);
    const loaded = await waitFor(async () => new URL(page.url()).searchParams.get('llc_weight') === '24');
    if (!loaded) throw new Error(`URL after loading the scenario file: ${page.url()}`);

  });
});

check('a scenario file with a bad field shows an error naming it', async (browser) => {
  const { context, page } = await openApp(browser);
  try {
    await page.locator(`${byId('export')} summary`).click();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sisviz-')), 'bad.json');
    fs.writeFileSync(file, JSON.stringify({ llc_weight: 5000 }));
    await page.locator(byId('load-scenario')).setInputFiles(file);
    const shown = await waitFor(async () => {
      const t = await page.locator('[role="alert"]').allTextContents();
      return t.find((s) => s.includes('llc_weight') && s.includes('5000'));
    });
    if (!shown) throw new Error('no error naming llc_weight and 5000');
  } finally {
    await context.close();
  }
});

check('runqueue=cfs: the select switches the page to CFS, whose wakees preempt; with linux-6.7 it is an error naming runqueue', async (browser) => {
  // hackbench at 400% on 16 CPUs: under fifo no run is preempted (its runs end within the
  // slice); under cfs a wakee far enough behind in vruntime preempts (check_preempt_wakeup).
  await withApp(browser, '?llc_weight=16&workload=hackbench&load=400&preset=linux-5.19', async ({ page }) => {
    await setControl(page, 'runqueue', 'cfs');
    const inUrl = await waitFor(async () => page.url().includes('runqueue=cfs'));
    if (!inUrl) throw new Error(`URL does not carry runqueue=cfs: ${page.url()}`);
    await stepAndCheck(page, 3);
    await page.locator(byId('play')).first().click();
    await waitFor(async () => firstNumber(await textOf(page, 'wakeups')) > 3000, 30_000);
    await page.locator(byId('play')).first().click();
    await page.locator(`${byId('export')} summary`).click();
    const json = JSON.parse((await download(page, 'export-json')).bytes.toString('utf8'));
    if (json.scenario?.runqueue !== 'cfs' || !(json.counters?.involuntary_switches > 0)) {
      throw new Error(`export: runqueue ${json.scenario?.runqueue}, involuntary ${json.counters?.involuntary_switches}`);
    }
    await setControl(page, 'preset', 'linux-6.7');
    const shown = await waitFor(async () => {
      const t = await page.locator('[role="alert"]').allTextContents();
      return t.find((s) => s.includes('runqueue') && s.includes('EEVDF'));
    });
    if (!shown) throw new Error('no error naming runqueue for linux-6.7');
  });
});

check('examples page: two script embeds and an iframe; destroy() removes only its own', async (browser) => {
  await withApp(browser, 'static/examples/index.html', async ({ page }) => {
    const canvases = (id) => page.locator(`${byId(id)} canvas`).count();
    const both = await waitFor(async () => (await canvases('mount-a')) > 0 && (await canvases('mount-b')) > 0, 20_000);
    if (!both) throw new Error(`mounts did not render: status "${await page.locator(byId('api-status')).textContent()}"`);
    const frame = page.frameLocator(byId('iframe'));
    const inFrame = await waitFor(async () => (await frame.locator(byId('decision-log')).count()) > 0, 20_000);
    if (!inFrame) throw new Error('the iframe did not render the decision trace');
    await page.locator(byId('destroy-a')).click();
    const gone = await waitFor(async () => (await page.locator(`${byId('mount-a')} *`).count()) === 0);
    if (!gone) throw new Error('destroy() left content in mount-a');
    await sleep(300);
    if ((await canvases('mount-b')) === 0) throw new Error("destroying A removed B's canvases");
  }, { waitApp: false });
});

check('heatmap: 16 cells in the worker paint both canvases', async (browser) => {
  await withApp(browser, '?workload=netperf', async ({ page }) => {
    await page.locator(byId('tab-heatmap')).click();
    await page.locator(byId('heat-run')).click();
    const done = await waitFor(async () => {
      const p = page.locator(`${byId('heat-view')} ${byId('sweep-progress')}`).first();
      return (await p.getAttribute('value')) === '16' && (await p.getAttribute('max')) === '16';
    }, 60_000, 250);
    if (!done) throw new Error('the heatmap did not reach 16/16 cells');
    await sleep(300);
    for (const id of ['heat-scanned', 'heat-success']) {
      // Colours that each fill at least 1% of the canvas: cell fills, not anti-aliased text.
      // A painted 4x4 heatmap of varying values has several; a blank canvas has one.
      const fills = await page.locator(byId(id)).evaluate((c) => {
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const count = new Map();
        for (let i = 0; i < d.length; i += 4) {
          const k = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
          count.set(k, (count.get(k) ?? 0) + 1);
        }
        const px = d.length / 4;
        return [...count.values()].filter((n) => n >= px / 100).length;
      });
      console.log(`      ${id}: ${fills} fill colours`);
      if (fills < 4) throw new Error(`${id}: ${fills} colours fill >= 1% of the canvas, not painted`);
    }
  });
});

runFile('export e2e', checks);
