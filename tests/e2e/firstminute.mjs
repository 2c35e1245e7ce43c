// End-to-end tests of a visitor's first minute (issue 16): hostile permalinks never block the
// main thread for long, the page opens warm (the first Step is a real decision of the load),
// embeds fit their frame, a phone-wide page does not scroll sideways. Prints
// `first-minute e2e: N passed, M failed` last.
//
//   node tests/e2e/firstminute.mjs        (after trunk build --release)

import path from 'node:path';
import { byId, waitFor, state, runFile, textOf, APP_TIMEOUT, settled, SHOTS } from './_lib.mjs';

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

/** Records every long task (> 50 ms on the main thread) from the first byte on. */
const LONGTASKS = () => {
  window.__longtasks = [];
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__longtasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  } catch { /* no longtask support: the gap probe below still measures */ }
  // Event-loop gaps: a 20 ms timer that comes late measures how long the thread was busy.
  window.__maxGap = 0;
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    window.__maxGap = Math.max(window.__maxGap, now - last - 20);
    last = now;
  }, 20);
};

async function open(browser, query, viewport = { width: 1280, height: 900 }) {
  // Phone-sized pages get a touch screen (taps, not clicks).
  const context = await browser.newContext({ viewport, hasTouch: viewport.width < 600 });
  await context.addInitScript(LONGTASKS);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${state.baseUrl}${query}`, { waitUntil: 'load' });
  await page.waitForSelector('.sisviz', { state: 'attached', timeout: APP_TIMEOUT });
  return { context, page, errors };
}

async function blocking(page) {
  return page.evaluate(() => ({
    longest: Math.max(0, ...window.__longtasks),
    count: window.__longtasks.length,
    gap: Math.round(window.__maxGap),
  }));
}

check('?step=999999999 is refused naming step and its range; the page stays usable', async (browser) => {
  const { context, page, errors } = await open(browser, '?step=999999999');
  try {
    const err = await textOf(page, 'error');
    if (!/step/.test(err) || !err.includes('0..=10000000')) throw new Error(`error says "${err}"`);
    await settled(page);
    const top = async () => (await page.locator(byId('decision')).count())
      ? page.locator(byId('decision')).first().innerText() : '';
    const before = await top();
    await page.locator(byId('step')).click();
    if (!(await waitFor(async () => (await top()) !== before))) {
      throw new Error('step did nothing after the refused permalink');
    }
    const b = await blocking(page);
    if (b.longest > 1000 || b.gap > 1000) throw new Error(`main thread blocked: ${JSON.stringify(b)}`);
    if (errors.length) throw new Error(errors.join(' | '));
    console.log(`      longest task ${b.longest} ms (${b.count} over 50 ms), longest event-loop gap ${b.gap} ms`);
  } finally {
    await context.close();
  }
});

check('?step=5000000 replays in slices with progress: no task over 1 s, the page answers meanwhile', async (browser) => {
  const { context, page, errors } = await open(browser, '?step=5000000');
  try {
    const p = await waitFor(async () => (await page.locator(byId('progress')).count()) > 0, 5_000, 20);
    if (!p) throw new Error('no progress line while replaying');
    // The page answers while the replay runs: a click on the theme/feature control is handled.
    const t0 = Date.now();
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    const answered = Date.now() - t0;
    await settled(page, 120_000);
    const wake = await textOf(page, 'wakeups');
    const url = new URL(page.url());
    if (url.searchParams.get('step') !== '5000000') throw new Error(`URL step is ${url.searchParams.get('step')}`);
    const b = await blocking(page);
    if (b.longest > 1000 || b.gap > 1000) throw new Error(`main thread blocked: ${JSON.stringify(b)}`);
    if (errors.length) throw new Error(errors.join(' | '));
    console.log(`      answered in ${answered} ms mid-replay; longest task ${b.longest} ms (${b.count} over 50 ms), longest gap ${b.gap} ms; wake-ups counted ${wake}`);
  } finally {
    await context.close();
  }
});

const scanned = (detail) =>
  /the scan found an idle CPU|the budget nr ran out|the scan visited every CPU|no scan: nr_idle_scan was 0/i.test(detail);

check('warm start: at llc_weight=112&load=200 the first Step (no Play) is an LLC-scan decision; cold=1 is not', async (browser) => {
  for (const [query, warm] of [['?llc_weight=112&load=200', true], ['?llc_weight=112&load=200&cold=1', false]]) {
    const { context, page, errors } = await open(browser, query);
    try {
      await settled(page);
      const t = await textOf(page, 'sim-time');
      await page.locator(byId('step')).click();
      await waitFor(async () => (await page.locator(byId('decision')).count()) > 0);
      const detail = await textOf(page, 'decision-detail');
      if (scanned(detail) !== warm) {
        throw new Error(`${query}: sim-time ${t}, first decision: ${detail.slice(0, 300)}`);
      }
      if (errors.length) throw new Error(errors.join(' | '));
      if (warm) {
        const b = await blocking(page);
        console.log(`      warm-up to ${t}: longest task ${b.longest} ms, longest gap ${b.gap} ms`);
        if (b.longest > 1000) throw new Error(`warm-up blocked the thread ${b.longest} ms`);
      }
    } finally {
      await context.close();
    }
  }
});

// Issue 27: an embed fits the frame it is given (600x450 included) with no scrolling, shows
// play / step and an "open in sisviz" link unless controls=0, and posts its height.
for (const [view, w, h] of [['cpus', 600, 450], ['curve', 600, 450], ['trace', 600, 450], ['cpus', 1000, 600]]) {
  check(`embed view=${view} in a ${w}x${h} iframe at 112 CPUs: fits without scrolling, play/step/open link, height posted`, async (browser) => {
    const context = await browser.newContext({ viewport: { width: w + 200, height: h + 250 } });
    const page = await context.newPage();
    try {
      // A host page on the same server (any page there will do) with one iframe and a listener.
      await page.goto(`${state.baseUrl}embed.html`);
      await page.evaluate(({ src, w, h }) => {
        window.__heights = [];
        addEventListener('message', (e) => {
          if (e.data && e.data.type === 'sisviz:height') window.__heights.push(e.data.height);
        });
        document.body.innerHTML = '';
        const f = document.createElement('iframe');
        Object.assign(f, { src, width: w, height: h, title: 'sisviz' });
        f.style.border = '0';
        document.body.append(f);
      }, { src: `${state.baseUrl}?llc_weight=112&load=200&embed=1&view=${view}`, w, h });
      const frame = page.frameLocator('iframe');
      await frame.locator(byId('step')).waitFor({ timeout: APP_TIMEOUT });
      const f = page.frames().find((x) => x !== page.mainFrame());
      await waitFor(async () => (await frame.locator(byId('progress')).count()) === 0, 60_000);
      await frame.locator(byId('step')).click();
      await page.waitForTimeout(400);
      const main = { cpus: 'cpu-bars', curve: 'scan-curve', trace: 'decision-detail' }[view];
      const geo = await f.evaluate((id) => {
        const c = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
        return { top: c.top, bottom: c.bottom, right: c.right, h: c.height, innerHeight, innerWidth,
          scrollH: document.scrollingElement.scrollHeight, scrollW: document.scrollingElement.scrollWidth };
      }, main);
      if (geo.h < 60 || geo.top < 0 || geo.bottom > geo.innerHeight + 0.5 || geo.right > geo.innerWidth + 0.5) {
        throw new Error(`${main} does not fit the ${w}x${h} frame: ${JSON.stringify(geo)}`);
      }
      if (geo.scrollH > geo.innerHeight + 1 || geo.scrollW > geo.innerWidth + 1) {
        throw new Error(`the frame scrolls: content ${geo.scrollW}x${geo.scrollH}`);
      }
      const href = await frame.locator(byId('open-app')).getAttribute('href');
      if (!/llc_weight=112/.test(href) || /embed=|view=/.test(href)) throw new Error(`open link ${href}`);
      if (await frame.locator(byId('llc-weight')).count()) throw new Error('the panel shows without controls=1');
      const rootH = await f.evaluate(() => Math.ceil(document.querySelector('.sisviz').getBoundingClientRect().height));
      const heights = await waitFor(() => page.evaluate((rh) =>
        window.__heights.length && window.__heights[window.__heights.length - 1] === rh && window.__heights, rootH));
      if (!heights) throw new Error(`no sisviz:height message of the content's ${rootH} px: ${await page.evaluate(() => window.__heights)}`);
      await page.screenshot({ path: path.join(SHOTS, `embed-${view}-${w}x${h}.png`) });
      console.log(`      ${main} ${Math.round(geo.top)}..${Math.round(geo.bottom)} px of ${h}, posted ${heights.join(', ')}`);
      // controls=0: the view alone; controls=1: the panel.
      await page.evaluate((src) => { document.querySelector('iframe').src = src; },
        `${state.baseUrl}?llc_weight=16&embed=1&view=${view}&controls=0`);
      await frame.locator(byId(main)).waitFor({ state: 'attached', timeout: APP_TIMEOUT });
      if (await frame.locator(byId('embed-bar')).count()) throw new Error('controls=0 still shows the bar');
      await page.evaluate((src) => { document.querySelector('iframe').src = src; },
        `${state.baseUrl}?llc_weight=16&embed=1&view=${view}&controls=1`);
      if (!(await waitFor(async () => (await frame.locator(byId('llc-weight')).count()) > 0, APP_TIMEOUT))) {
        throw new Error('controls=1 shows no panel');
      }
    } finally {
      await context.close();
    }
  });
}

for (const query of ['', '?llc_weight=112&load=200', '?llc_weight=16&embed=1&view=curve']) {
  check(`390 px wide${query ? ` (${query})` : ''}: no sideways scroll (workbench tabs too), canvases within the width; taps step and select`, async (browser) => {
    const { context, page } = await open(browser, query, { width: 390, height: 844 });
    try {
      await settled(page);
      await page.waitForTimeout(300);
      await overflow(page, query);
      if (!query) {
        // Touch: a tap steps, a tap on an older decision selects it.
        const top = () => page.locator(byId('decision')).first().innerText();
        const before = await top();
        await page.locator(byId('step')).tap();
        if (!(await waitFor(async () => (await top()) !== before))) throw new Error('a tap on step did nothing');
        await page.locator(byId('decision')).nth(2).locator('button').tap();
        if (!(await waitFor(async () => (await page.locator(`${byId('decision')}.selected`).count()) === 1 &&
          (await page.locator(byId('decision')).nth(2).getAttribute('class'))?.includes('selected')))) {
          throw new Error('a tap on a decision did not select it');
        }
      }
      // The workbench's tabs too (the full page only).
      for (const tab of query.includes('embed') ? [] : ['sweep', 'heatmap', 'compare']) {
        await page.locator(byId(`tab-${tab}`)).click();
        await page.waitForTimeout(300);
        await overflow(page, `${query} tab ${tab}`);
      }
    } finally {
      await context.close();
    }
  });
}

/** Fails when the page scrolls sideways, naming the widest elements. */
async function overflow(page, what) {
  const g = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement.scrollWidth,
    innerWidth,
    wide: [...document.querySelectorAll('canvas, .sisviz *')]
      .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
      .slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.className || ''}[${e.dataset.testid || ''}] ${Math.round(e.getBoundingClientRect().right)}`),
  }));
  if (g.scrollWidth > g.innerWidth) {
    throw new Error(`${what}: scrollWidth ${g.scrollWidth} > ${g.innerWidth}: ${g.wide.join('; ')}`);
  }
}

await runFile('first-minute e2e', checks);
