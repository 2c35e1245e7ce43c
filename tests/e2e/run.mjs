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

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = path.resolve(process.env.SISVIZ_DIST || path.join(ROOT, 'dist'));
const SHOTS = path.join(ROOT, 'artifacts', 'screenshots');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SUB = '/sub/sisviz/';
const APP_TIMEOUT = 20_000; // wait for [data-testid=cpu-bars]
const UI_TIMEOUT = 5_000; // wait for a UI reaction

const TESTIDS = [
  'llc-weight', 'imbalance-pct', 'load', 'smt', 'preset', 'workload', 'seed', 'speed',
  'play', 'step', 'reset', 'cpu-bars', 'scan-curve', 'scan-hist', 'decision-log', 'metrics',
  'metric-se_eff', 'metric-dom_eff', 'metric-fast_rate', 'metric-success_rate', 'nr-scan',
];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

// ---------------------------------------------------------------- static server

const serverMisses = []; // requests the server answered with 4xx

function startServer() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let pathname;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (pathname === SUB.slice(0, -1)) {
      res.writeHead(301, { Location: SUB + url.search }).end();
      return;
    }
    if (!pathname.startsWith(SUB)) {
      serverMisses.push(`${req.method} ${req.url} (outside ${SUB})`);
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not under ' + SUB);
      return;
    }
    let rel = pathname.slice(SUB.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(DIST, rel);
    if (file !== DIST && !file.startsWith(DIST + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        serverMisses.push(`${req.method} ${req.url}`);
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, {
        'Content-Type': MIME[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': st.size,
        'Cache-Control': 'no-cache',
      });
      if (req.method === 'HEAD') res.end();
      else fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

// ---------------------------------------------------------------- helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const byId = (id) => `[data-testid="${id}"]`;

async function waitFor(fn, timeout = UI_TIMEOUT, interval = 100) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > end) return last;
    await sleep(interval);
  }
}

function firstNumber(text) {
  const m = /-?\d+(?:\.\d+)?(?:e-?\d+)?/i.exec(text ?? '');
  return m ? Number(m[0]) : NaN;
}

/** Opens a fresh context+page, records console errors and failed requests. */
async function openApp(browser, query = '', { colorScheme = 'light', waitApp = true } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
  const page = await context.newPage();
  const problems = { consoleErrors: [], failedRequests: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => problems.consoleErrors.push(`pageerror: ${err.message}`));
  page.on('requestfailed', (req) =>
    problems.failedRequests.push(`${req.url()} (${req.failure()?.errorText ?? 'failed'})`));
  page.on('response', (resp) => {
    if (resp.status() >= 400) problems.failedRequests.push(`${resp.url()} (HTTP ${resp.status()})`);
  });
  await page.goto(`${baseUrl}${query}`, { waitUntil: 'load' });
  if (waitApp) {
    try {
      await page.waitForSelector(byId('cpu-bars'), { state: 'attached', timeout: APP_TIMEOUT });
    } catch {
      const detail = [...problems.consoleErrors, ...problems.failedRequests].slice(0, 5).join(' | ');
      await context.close();
      const err = new Error(`app did not render ${byId('cpu-bars')} within ${APP_TIMEOUT} ms` +
        (detail ? `: ${detail}` : ''));
      err.appMissing = true;
      throw err;
    }
    everRendered = true;
  }
  return { context, page, problems };
}

/** Sets a form control (input number/range/text or select), firing input+change. */
async function setControl(page, testid, value) {
  let loc = page.locator(byId(testid)).first();
  const tag = await loc.evaluate((el) => el.tagName.toLowerCase());
  if (tag !== 'input' && tag !== 'select') {
    loc = loc.locator('input, select').first();
  }
  const kind = await loc.evaluate((el) => (el.tagName.toLowerCase() === 'select' ? 'select' : el.type));
  if (kind === 'select') {
    await loc.selectOption(String(value));
  } else {
    await loc.fill(String(value)); // range/number/text: sets the value and fires input
    await loc.dispatchEvent('change');
    if (kind !== 'range') await loc.press('Enter');
  }
}

const decisionCount = (page) =>
  page.locator(`${byId('decision-log')} ${byId('decision')}`).count();
const textOf = async (page, testid) =>
  (await page.locator(byId(testid)).first().textContent({ timeout: UI_TIMEOUT }))?.trim() ?? '';

/** Clicks `step` n times; each click must add a decision (or change the log when capped). */
async function stepAndCheck(page, n) {
  const before = await decisionCount(page);
  let capped = false;
  for (let i = 0; i < n; i++) {
    const count = await decisionCount(page);
    const log = await page.locator(byId('decision-log')).first().innerText();
    await page.locator(byId('step')).first().click();
    const grew = await waitFor(async () => (await decisionCount(page)) > count);
    if (!grew) {
      const changed = await waitFor(async () =>
        (await page.locator(byId('decision-log')).first().innerText()) !== log);
      if (changed && count > 0) {
        capped = true; // log is at its cap: it rolled instead of growing
      } else {
        throw new Error(`step click ${i + 1}/${n}: decision count stayed ${count}`);
      }
    }
  }
  const after = await decisionCount(page);
  if (!capped && after !== before + n) {
    throw new Error(`expected ${before + n} decisions after ${n} steps, got ${after}`);
  }
  return { before, after, capped };
}

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
    if (se1 !== se0) return;
    if (!Number.isFinite(firstNumber(se1))) {
      throw new Error(`metric-se_eff "${se1}" is not a number and did not change`);
    }
    if (!hasTime) throw new Error(`metric-se_eff stayed "${se1}" and there is no sim-time`);
    if (t1 === t0) throw new Error(`neither metric-se_eff ("${se1}") nor sim-time ("${t1}") changed`);
    // paused: time must not keep moving
    await sleep(500);
    const t2 = await textOf(page, 'sim-time');
    if (t2 !== t1) throw new Error(`sim-time still moving after the second play click (${t1} -> ${t2})`);
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

let baseUrl = '';
let everRendered = false; // the app rendered at least once in this run

async function main() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    console.error(`e2e: ${DIST}/index.html not found; run \`trunk build --release\` first`);
    console.log(`e2e: 0 passed, ${checks.length} failed`);
    process.exit(1);
  }
  const server = await startServer();
  baseUrl = `http://127.0.0.1:${server.address().port}${SUB}`;
  console.log(`e2e: serving ${DIST} at ${baseUrl}`);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // playwright-core gives every launch its own fresh temporary --user-data-dir.
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });

  const only = process.env.E2E_ONLY;
  let passed = 0;
  let failed = 0;
  let appMissing = false;
  try {
    for (const { name, fn } of checks) {
      if (only && !name.includes(only)) continue;
      if (appMissing) {
        failed++;
        console.log(`  FAIL  ${name}\n      not run: the app never rendered`);
        continue;
      }
      const t = Date.now();
      try {
        await fn(browser);
        passed++;
        console.log(`  ok    ${name} (${Date.now() - t} ms)`);
      } catch (e) {
        failed++;
        console.log(`  FAIL  ${name} (${Date.now() - t} ms)\n      ${e.message}`);
        // Fail fast instead of waiting APP_TIMEOUT for every remaining page.
        if (e.appMissing && !everRendered) appMissing = true;
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  console.log('e2e: 0 passed, 1 failed');
  process.exit(1);
});
