// End-to-end tests for the built app (dist/, from `trunk build --release`).
//
//   node tests/e2e/run.mjs
//
// Serves dist/ itself under a sub-path (/sub/sisviz/) to prove the build only
// uses relative URLs, drives Debian's /usr/bin/chromium through playwright-core
// (never `npx playwright install`), and prints `e2e: N passed, M failed`.
// Screenshots go to artifacts/screenshots/.
//
// Env: SISVIZ_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium),
//      E2E_ONLY=substring to run only the matching checks.

import fs from 'node:fs';
import path from 'node:path';
import {
  SHOTS, TESTIDS, serverMisses, sleep, byId, waitFor, firstNumber, openApp, setControl, textOf,
  stepAndCheck, state, UI_TIMEOUT, runFile
} from './_lib.mjs';

// ---------------------------------------------------------------- checks

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

check('page loads without console errors or failed requests', async (browser) => {
  const { context, page, problems } = await openApp(browser);
  await sleep(1000); // let late requests (favicon, fonts) settle
  // favicon must be declared and fetchable from the sub-path
  const icon = await page.evaluate(() => document.querySelector('link[rel~="icon"]')?.href ?? null);
  if (!icon) problems.failedRequests.push('no <link rel="icon"> in the page');
  else {
    const r = await page.request.get(icon);
    if (!r.ok()) problems.failedRequests.push(`${icon} (HTTP ${r.status()})`);
  }
  await context.close();
  const misses = serverMisses.splice(0);
  const all = [
    ...problems.consoleErrors.map((e) => `console: ${e}`),
    ...problems.failedRequests.map((e) => `request: ${e}`),
    ...misses.map((e) => `server 404: ${e}`),
  ];
  if (all.length) throw new Error(all.join('\n      '));
});

check('every data-testid exists', async (browser) => {
  const { context, page } = await openApp(browser);
  const missing = [];
  for (const id of TESTIDS) {
    if ((await page.locator(byId(id)).count()) === 0) missing.push(id);
  }
  await context.close();
  if (missing.length) throw new Error(`missing: ${missing.join(', ')}`);
});

check('llc-weight=16 bounds nr-scan to 0..=16 and is reflected in the URL', async (browser) => {
  const { context, page } = await openApp(browser);
  try {
    await setControl(page, 'llc-weight', 16);
    let nr = '';
    const okNr = await waitFor(async () => {
      nr = await textOf(page, 'nr-scan');
      const m = /(-?\d+)(\.\d+)?/.exec(nr);
      if (!m || m[2]) return false; // must be an integer, not 3.5
      const v = Number(m[1]);
      return v >= 0 && v <= 16;
    });
    if (!okNr) throw new Error(`nr-scan text "${nr}" is not an integer in 0..=16`);
    const okUrl = await waitFor(async () => new URL(page.url()).searchParams.get('llc_weight') === '16');
    if (!okUrl) throw new Error(`URL query lacks llc_weight=16: ${page.url()}`);
  } finally {
    await context.close();
  }
});

check('step adds one decision per click', async (browser) => {
  const { context, page } = await openApp(browser);
  try {
    await stepAndCheck(page, 3);
  } finally {
    await context.close();
  }
});

check('play runs the simulation, play again pauses it', async (browser) => {
  const { context, page } = await openApp(browser);
  try {
    const hasTime = (await page.locator(byId('sim-time')).count()) > 0;
    const se0 = await textOf(page, 'metric-se_eff');
    const t0 = hasTime ? await textOf(page, 'sim-time') : null;
    await page.locator(byId('play')).first().click();
    await sleep(1500);
    await page.locator(byId('play')).first().click();
    await sleep(200);
    const se1 = await textOf(page, 'metric-se_eff');
    const t1 = hasTime ? await textOf(page, 'sim-time') : null;
    // Playing moved the simulation: its time, or at least a metric.
    if (se1 === se0 && (!hasTime || t1 === t0)) {
      throw new Error(`neither metric-se_eff ("${se1}") nor sim-time ("${t1}") changed while playing`);
    }
    // Paused: nothing moves any more (checked whichever of the two moved).
    await sleep(500);
    const se2 = await textOf(page, 'metric-se_eff');
    const t2 = hasTime ? await textOf(page, 'sim-time') : null;
    if (t2 !== t1 || se2 !== se1) {
      throw new Error(`still moving after the second play click (sim-time ${t1} -> ${t2}, se_eff ${se1} -> ${se2})`);
    }
  } finally {
    await context.close();
  }
});

check('?llc_weight=0 shows an error naming llc_weight and stays usable', async (browser) => {
  const { context, page } = await openApp(browser, '?llc_weight=0');
  try {
    const err = page.locator(byId('error')).first();
    await err.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const text = (await err.textContent()) ?? '';
    if (!text.includes('llc_weight')) throw new Error(`error text does not mention llc_weight: "${text}"`);
    await stepAndCheck(page, 1);
  } finally {
    await context.close();
  }
});

check('hovering the curve and the histogram reads their values', async (browser) => {
  const { context, page } = await openApp(browser, '?llc_weight=16');
  try {
    await sleep(400); // the frame loop draws the charts (and their mappings)
    await page.locator(byId('scan-curve')).first().hover(); // scrolls it into view, then the centre
    const text = await waitFor(async () => {
      const t = await textOf(page, 'curve-hover');
      return /nr_idle_scan = \d+/.test(t) && t;
    });
    if (!text) throw new Error(`curve-hover after hovering the curve: "${await textOf(page, 'curve-hover')}"`);
    const pct = firstNumber(text);
    if (!(pct > 20 && pct < 80)) throw new Error(`the middle of the curve read ${pct}%: "${text}"`);
    await page.locator(byId('scan-hist')).first().hover();
    const ht = await waitFor(async () => /calls/.test(await textOf(page, 'hist-hover')));
    if (!ht) throw new Error(`hist-hover: "${await textOf(page, 'hist-hover')}"`);
  } finally {
    await context.close();
  }
});

check('screenshots at llc_weight 4/16/112/256, light and dark', async (browser) => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const failures = [];
  for (const theme of ['light', 'dark']) {
    for (const w of [4, 16, 112, 256]) {
      const q = `?llc_weight=${w}${theme === 'dark' ? '&theme=dark' : ''}`;
      const file = path.join(SHOTS, `llc${w}-${theme}.png`);
      try {
        const { context, page } = await openApp(browser, q, { colorScheme: theme });
        await sleep(600); // let canvases draw
        await page.screenshot({ path: file, fullPage: true });
        await context.close();
      } catch (e) {
        failures.push(`${q}: ${e.message.split('\n')[0]}`);
      }
    }
  }
  if (failures.length) throw new Error(failures.join('\n      '));
});

// ---------------------------------------------------------------- main


runFile('e2e', checks);
