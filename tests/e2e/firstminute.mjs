// End-to-end tests of a visitor's first minute (issue 16): hostile permalinks never block the
// main thread for long, the page opens warm (the first Step is a real decision of the load),
// embeds fit their frame, a phone-wide page does not scroll sideways. Prints
// `first-minute e2e: N passed, M failed` last.
//
//   node tests/e2e/firstminute.mjs        (after trunk build --release)

import { byId, waitFor, state, runFile, textOf, APP_TIMEOUT, settled } from './_lib.mjs';

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

check('embed view=cpus in a 700x450 iframe: the whole CPU canvas, no controls, its height posted', async (browser) => {
  const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
  const page = await context.newPage();
  try {
    // A host page on the same server (any page there will do) with one iframe and a listener.
    await page.goto(`${state.baseUrl}embed.html`);
    await page.evaluate((src) => {
      window.__heights = [];
      addEventListener('message', (e) => {
        if (e.data && e.data.type === 'sisviz:height') window.__heights.push(e.data.height);
      });
      document.body.innerHTML = '';
      const f = document.createElement('iframe');
      Object.assign(f, { src, width: 700, height: 450, title: 'sisviz' });
      f.style.border = '0';
      f.dataset.testid = 'frame';
      document.body.append(f);
    }, `${state.baseUrl}?llc_weight=16&load=150&embed=1&view=cpus`);
    const frame = page.frameLocator('iframe');
    await frame.locator(byId('cpu-bars')).waitFor({ state: 'attached', timeout: APP_TIMEOUT });
    const f = page.frames().find((x) => x !== page.mainFrame());
    // The warm-up's progress line takes a line above the view until it is done.
    await waitFor(async () => (await frame.locator(byId('progress')).count()) === 0, 60_000);
    await page.waitForTimeout(200);
    const geo = await waitFor(async () => {
      const g = await f.evaluate(() => {
        const c = document.querySelector('[data-testid="cpu-bars"]').getBoundingClientRect();
        return { top: c.top, bottom: c.bottom, left: c.left, right: c.right, h: c.height,
          innerHeight, innerWidth, scrollH: document.scrollingElement.scrollHeight };
      });
      return g.h > 50 ? g : null;
    });
    if (!geo) throw new Error('the CPU canvas has no height');
    if (geo.top < 0 || geo.bottom > geo.innerHeight || geo.right > geo.innerWidth) {
      throw new Error(`the CPU canvas is cut off: ${JSON.stringify(geo)}`);
    }
    for (const id of ['play', 'step', 'llc-weight']) {
      if (await frame.locator(byId(id)).count()) throw new Error(`the embed shows ${id} without controls=1`);
    }
    const rootH = await f.evaluate(() => Math.ceil(document.querySelector('.sisviz').getBoundingClientRect().height));
    const heights = await waitFor(() => page.evaluate((h) =>
      window.__heights.length && window.__heights[window.__heights.length - 1] === h && window.__heights, rootH));
    if (!heights) throw new Error(`no sisviz:height message of the content's ${rootH} px: ${await page.evaluate(() => window.__heights)}`);
    const last = heights[heights.length - 1];
    if (!(last > geo.bottom && last <= Math.max(geo.scrollH, geo.innerHeight) + 1)) {
      throw new Error(`posted height ${last}, canvas bottom ${geo.bottom}, content ${geo.scrollH}`);
    }
    console.log(`      canvas ${Math.round(geo.top)}..${Math.round(geo.bottom)} px of 450, posted heights ${heights.join(', ')}`);
    // controls=1 brings the controls back.
    await page.evaluate((src) => { document.querySelector('iframe').src = src; },
      `${state.baseUrl}?llc_weight=16&embed=1&view=cpus&controls=1`);
    if (!(await waitFor(async () => (await frame.locator(byId('step')).count()) > 0, APP_TIMEOUT))) {
      throw new Error('controls=1 shows no step button');
    }
  } finally {
    await context.close();
  }
});

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
