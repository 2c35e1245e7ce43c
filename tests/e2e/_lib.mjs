// Shared helpers of the end-to-end tests (tests/e2e/*.mjs): the static server for dist/
// under a sub-path, opening the app in a fresh context, waiting, controls, stepping.
// Files named _*.mjs are helpers; scripts/test.sh runs every other tests/e2e/*.mjs.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.resolve(process.env.SISVIZ_DIST || path.join(ROOT, 'dist'));
export const SHOTS = path.join(ROOT, 'artifacts', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const SUB = '/sub/sisviz/';
export const APP_TIMEOUT = 20_000; // wait for [data-testid=cpu-bars]
export const UI_TIMEOUT = 5_000; // wait for a UI reaction

// The data-testids every full page shows: one list, shared with the browser tests (tests/web.rs).
export const TESTIDS = fs.readFileSync(path.join(ROOT, 'tests', 'testids.txt'), 'utf8')
  .split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

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

export const serverMisses = []; // requests the server answered with 4xx

export function startServer() {
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

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const byId = (id) => `[data-testid="${id}"]`;

export async function waitFor(fn, timeout = UI_TIMEOUT, interval = 100) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > end) return last;
    await sleep(interval);
  }
}

export function firstNumber(text) {
  const m = /-?\d+(?:\.\d+)?(?:e-?\d+)?/i.exec(text ?? '');
  return m ? Number(m[0]) : NaN;
}

/** Opens a fresh context+page, records console errors and failed requests. */
export async function openApp(browser, query = '', { colorScheme = 'light', waitApp = true } = {}) {
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
  await page.goto(`${state.baseUrl}${query}`, { waitUntil: 'load' });
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
    state.everRendered = true;
  }
  return { context, page, problems };
}

/**
 * openApp, then `fn({ page, problems })`; fails if the page logged console errors (a check
 * that expects some clears `problems.consoleErrors`); always closes the context.
 */
export async function withApp(browser, query, fn, opts) {
  const { context, page, problems } = await openApp(browser, query, opts);
  try {
    const out = await fn({ page, problems });
    if (problems.consoleErrors.length) throw new Error(problems.consoleErrors.join('\n      '));
    return out;
  } finally {
    await context.close();
  }
}

/** Sets a form control (input number/range/text or select), firing input+change. */
export async function setControl(page, testid, value) {
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

export const decisionCount = (page) =>
  page.locator(`${byId('decision-log')} ${byId('decision')}`).count();
export const textOf = async (page, testid) =>
  (await page.locator(byId(testid)).first().textContent({ timeout: UI_TIMEOUT }))?.trim() ?? '';

/** Waits until no replay or warm-up is pending (the `progress` line is gone). */
export async function settled(page, timeout = 60_000) {
  const ok = await waitFor(async () => (await page.locator(byId('progress')).count()) === 0,
    timeout, 100);
  if (!ok) throw new Error(`still "${await textOf(page, 'progress')}" after ${timeout} ms`);
}

/** Clicks `step` n times; each click must add a decision (or change the log when capped). */
export async function stepAndCheck(page, n) {
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


/** Mutable run state shared with the test files: the served base URL and whether the app
 * rendered at least once. */
export const state = { baseUrl: '', everRendered: false };

/** Launches headless Chromium the way every e2e file does. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // playwright-core gives every launch its own fresh temporary --user-data-dir.
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
}

/**
 * Runs named checks against one browser, printing `ok`/`FAIL` per check, and returns the
 * counts. E2E_ONLY=<substring> runs only the matching checks. After a check fails because the
 * app never rendered, the rest are marked failed without waiting APP_TIMEOUT for each.
 */
export async function runChecks(browser, checks) {
  const only = process.env.E2E_ONLY;
  let passed = 0;
  let failed = 0;
  let appMissing = false;
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
      if (e.appMissing && !state.everRendered) appMissing = true;
    }
  }
  return { passed, failed };
}

/**
 * The whole of an e2e file's main: checks that dist/ was built, serves it under SUB, runs the
 * checks in one browser and exits 0 only when at least one ran and none failed. `label`
 * prefixes the summary line (`<label>: N passed, M failed`, printed last).
 */
export async function runFile(label, checks) {
  try {
    if (!fs.existsSync(path.join(DIST, 'index.html'))) {
      console.error(`${label}: ${DIST}/index.html not found; run \`trunk build --release\` first`);
      console.log(`${label}: 0 passed, ${checks.length} failed`);
      process.exit(1);
    }
    const server = await startServer();
    state.baseUrl = `http://127.0.0.1:${server.address().port}${SUB}`;
    console.log(`${label}: serving ${DIST} at ${state.baseUrl}`);
    const browser = await launchBrowser();
    let passed = 0;
    let failed = 0;
    try {
      ({ passed, failed } = await runChecks(browser, checks));
    } finally {
      await browser.close();
      server.close();
    }
    console.log(`${label}: ${passed} passed, ${failed} failed`);
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  } catch (e) {
    console.error(e);
    console.log(`${label}: 0 passed, 1 failed`);
    process.exit(1);
  }
}

// ---------------------------------------------------------------- pixels

/** The palette of src/draw/mod.rs (Palette::LIGHT / DARK): the colours the pixel checks look for. */
export const PALETTE = {
  light: {
    idle: [34, 150, 90], sched_idle: [214, 150, 0], busy: [205, 70, 62],
    chosen: [20, 20, 20], missed: [34, 150, 90], trackAlpha: 0.16,
    series: [[36, 99, 214], [214, 120, 0]], // draw::sweep::series_colour 0 and 1 (accent, prop)
  },
  dark: {
    idle: [72, 200, 130], sched_idle: [240, 190, 60], busy: [240, 100, 90],
    chosen: [255, 255, 255], missed: [72, 200, 130], trackAlpha: 0.22,
    series: [[110, 165, 255], [255, 170, 60]],
  },
};

/** Decodes a PNG buffer (as playwright's screenshot returns it) into RGBA rows. */
export function decodePng(buf) {
  const png = PNG.sync.read(buf);
  const { width, height, data } = png;
  return {
    width,
    height,
    /** [r, g, b] at integer pixel (x, y); null outside the image. */
    at(x, y) {
      const [xi, yi] = [Math.floor(x), Math.floor(y)];
      if (xi < 0 || yi < 0 || xi >= width || yi >= height) return null;
      const i = (yi * width + xi) * 4;
      return [data[i], data[i + 1], data[i + 2]];
    },
  };
}

/** Whether two colours are within `tol` on every channel. */
export const near = (a, b, tol) => !!a && !!b && a.every((v, i) => Math.abs(v - b[i]) <= tol);

/**
 * Whether `px` lies (within `tol`) on the segment from colour `a` to colour `b`: a pixel
 * partly covered by a fill of `a` over `b` (anti-aliasing at a fill's fractional edge).
 */
export function between(px, a, b, tol) {
  if (!px) return false;
  const k = [0, 1, 2].reduce((m, i) => (Math.abs(a[i] - b[i]) > Math.abs(a[m] - b[m]) ? i : m), 0);
  const span = a[k] - b[k];
  const t = span === 0 ? 0 : Math.min(1, Math.max(0, (px[k] - b[k]) / span));
  return px.every((v, i) => Math.abs(v - (b[i] + t * (a[i] - b[i]))) <= tol);
}

/** `fg` drawn with `alpha` over `bg` (what a translucent canvas fill composites to). */
export const blend = (fg, bg, alpha) => fg.map((v, i) => Math.round(v * alpha + bg[i] * (1 - alpha)));

/** Rec. 601 luma, 0..255. */
export const luma = ([r, g, b]) => 0.299 * r + 0.587 * g + 0.114 * b;

/** Share of the image's pixels (every 4th row and column) whose luma is below / above 128. */
export function darkShare(img) {
  let dark = 0;
  let n = 0;
  for (let y = 0; y < img.height; y += 4) {
    for (let x = 0; x < img.width; x += 4) {
      n++;
      if (luma(img.at(x, y)) < 128) dark++;
    }
  }
  return dark / n;
}

/**
 * A CPU canvas's bar layout, from the data-bars / data-bar-w / data-bar-h attributes that
 * src/cpu_canvas.rs sets when it lays the canvas out (CSS px from the canvas's top-left
 * corner; the pages run at devicePixelRatio 1, so CSS px = screenshot px).
 */
export async function barLayout(page, testid) {
  const a = await page.locator(byId(testid)).first().evaluate((el) => ({
    bars: el.getAttribute('data-bars'), bw: el.getAttribute('data-bar-w'),
    bh: el.getAttribute('data-bar-h'), dpr: window.devicePixelRatio,
    border: [el.clientLeft, el.clientTop],
  }));
  if (!a.bars) throw new Error(`${testid} has no data-bars (not laid out yet?)`);
  if (a.dpr !== 1 || a.border[0] || a.border[1]) {
    throw new Error(`${testid}: pixel checks assume dpr 1 and no border, got ${JSON.stringify(a)}`);
  }
  return {
    bw: Number(a.bw),
    barH: Number(a.bh),
    pos: a.bars.split(' ').map((p) => p.split(',').map(Number)),
  };
}

/**
 * Share of the pixels on the left side of the chosen-CPU outline of `cpu` (draw::cpus draws it
 * as a 3 px stroke centred 2.5 px left of the bar) that have colour `rgb`, over the lower part
 * of the bar (70%..95% of its height: below the `→ CPU n` label box at half height and the
 * queue ticks at the top).
 */
export function edgeShare(img, lay, cpu, rgb, { dx = -2.5, tol = 10 } = {}) {
  const [x, y] = lay.pos[cpu];
  let hit = 0;
  let n = 0;
  for (let yy = Math.ceil(y + lay.barH * 0.7); yy < y + lay.barH * 0.95; yy++) {
    n++;
    if (near(img.at(x + dx, yy), rgb, tol)) hit++;
  }
  return n ? hit / n : 0;
}

/** Where two texts first differ, with a little context; null when equal. */
export function firstDifference(got, want) {
  if (got === want) return null;
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const line = want.slice(0, i).split('\n').length;
  return `byte ${i} (line ${line}): got ${JSON.stringify(got.slice(i, i + 60))}, want ${JSON.stringify(want.slice(i, i + 60))} (lengths ${got.length}, ${want.length})`;
}
