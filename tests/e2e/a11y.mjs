// Accessibility end-to-end tests: axe-core (npm devDependency) finds no violation on the page
// (light and dark, before and after a Step, an embed), every canvas has a text alternative
// that says what it shows now, and reduced motion is respected. Prints
// `a11y e2e: N passed, M failed` last.
//
//   node tests/e2e/a11y.mjs        (after trunk build --release)

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { byId, waitFor, openApp, runFile, state } from './_lib.mjs';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const checks = [];
const check = (name, fn) => checks.push({ name, fn });

async function settled(page) {
  await waitFor(async () => (await page.locator(byId('progress')).count()) === 0, 60_000);
}

async function axe(page) {
  // Evaluated over the devtools protocol: the page's CSP forbids injected script tags.
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(AXE);
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations.map((v) =>
    `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

for (const [label, query, colorScheme] of [
  ['the page, light', '', 'light'],
  ['the page, dark', '?theme=dark', 'dark'],
  ['an embed of the CPU view', '?embed=1&view=cpus', 'light'],
  // Decisions that miss idle CPUs: the log's "N idle missed" text, on white and selected.
  ['112 CPUs at 200% ("idle missed" in the log), light', '?llc_weight=112&load=200', 'light'],
  ['112 CPUs at 200% ("idle missed" in the log), dark', '?llc_weight=112&load=200&theme=dark', 'dark'],
  // Issue 27: every view of an embed, in both themes.
  ['an embed of the curve, dark', '?embed=1&view=curve&theme=dark', 'dark'],
  ['an embed of the decision log', '?embed=1&view=trace&llc_weight=112&load=200', 'light'],
  ['an embed of the decision log, dark', '?embed=1&view=trace&theme=dark', 'dark'],
  ['an embed of the CPU view with its control panel, dark', '?embed=1&view=cpus&controls=1&theme=dark', 'dark'],
]) {
  check(`axe-core: no violations on ${label}, before and after a Step`, async (browser) => {
    // The curve and the log have no CPU bars: wait for the embed's Step instead.
    const bars = !/view=(curve|trace)/.test(query);
    const { context, page } = await openApp(browser, query, { colorScheme, waitApp: bars });
    try {
      if (!bars) await page.locator(byId('step')).first().waitFor({ timeout: 20_000 });
      await settled(page);
      let v = await axe(page);
      if (v.length) throw new Error(`before: ${v.join(' | ')}`);
      if (await page.locator(byId('step')).count()) {
        await page.locator(byId('step')).first().click();
        await page.waitForTimeout(300);
        v = await axe(page);
        if (v.length) throw new Error(`after a step: ${v.join(' | ')}`);
        // The newest decision selected (the row's highlight behind its text), then three more.
        if (await page.locator(byId('decision')).count()) await page.locator(byId('decision')).first().click();
        for (let i = 0; i < 3; i++) await page.locator(byId('step')).first().click();
        await page.waitForTimeout(300);
        v = await axe(page);
        if (v.length) throw new Error(`with decisions selected on screen: ${v.join(' | ')}`);
      }
    } finally {
      await context.close();
    }
  });
}

// Issue 27: every workbench tab (compare with decisions on screen), and every term explained
// in place, in both themes.
for (const [scheme, theme] of [['light', 'light'], ['dark', 'dark']]) {
  check(`axe-core: no violations on each workbench tab and with every term explained, ${scheme}`, async (browser) => {
    const { context, page } = await openApp(browser, `?llc_weight=16&load=150&theme=${theme}`, { colorScheme: scheme });
    try {
      await settled(page);
      for (const tab of ['compare', 'sweep', 'heatmap', 'replay']) {
        await page.locator(byId(`tab-${tab}`)).click();
        await page.waitForTimeout(300);
        if (tab === 'compare') {
          await page.locator(byId('compare-step')).click();
          await waitFor(async () => /switched/.test(await page.locator(byId('compare-note')).innerText()), 60_000);
          await page.locator(byId('compare-step-10')).click();
          await page.waitForTimeout(300);
        }
        const v = await axe(page);
        if (v.length) throw new Error(`tab ${tab}: ${v.join(' | ')}`);
      }
      await page.locator(byId('patch-menu')).click();
      await page.locator(byId('explain')).click();
      await page.waitForTimeout(200);
      const v = await axe(page);
      if (v.length) throw new Error(`terms explained, patch menu open: ${v.join(' | ')}`);
    } finally {
      await context.close();
    }
  });
}

check('axe-core: no violations on the lessons page, light and dark', async (browser) => {
  for (const colorScheme of ['light', 'dark']) {
    const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${state.baseUrl}static/lessons/`);
      await page.waitForSelector('body[data-ready="1"]');
      const v = await axe(page);
      if (v.length) throw new Error(`${colorScheme}: ${v.join(' | ')}`);
      // Every scene's own page, in its frame, after a Step.
      for (let i = 1; i <= 7; i++) {
        await page.goto(`${state.baseUrl}static/lessons/#${i}`);
        const frame = page.frameLocator(byId('lesson-frame'));
        await frame.locator(byId('step')).waitFor({ timeout: 20_000 });
        await waitFor(async () => (await frame.locator(byId('progress')).count()) === 0, 60_000);
        await frame.locator(byId('step')).click();
        await page.waitForTimeout(200);
        const f = page.frames().find((x) => x !== page.mainFrame() && x.url().includes('embed=1'));
        const fv = await axe(f);
        if (fv.length) throw new Error(`${colorScheme}, scene ${i}: ${fv.join(' | ')}`);
      }
    } finally {
      await context.close();
    }
  }
});

check('every canvas has a text alternative that follows the decision and the operating point', async (browser) => {
  const { context, page } = await openApp(browser, '?llc_weight=16&load=150');
  try {
    await settled(page);
    const labels = () => page.evaluate(() => [...document.querySelectorAll('canvas')].map((c) =>
      [c.dataset.testid, c.getAttribute('aria-label') || c.textContent.trim()]));
    const before = Object.fromEntries(await labels());
    for (const [id, text] of Object.entries(before)) {
      if (!text) throw new Error(`canvas ${id} has no text alternative`);
    }
    if (!/nr_idle_scan \d+/.test(before['scan-curve'])) {
      throw new Error(`scan-curve's label lacks the operating point: ${before['scan-curve']}`);
    }
    await page.locator(byId('step')).click();
    const after = await waitFor(async () => {
      const l = Object.fromEntries(await labels());
      return /CPU \d+/.test(l['cpu-bars']) && l['cpu-bars'] !== before['cpu-bars'] ? l : null;
    });
    if (!after) throw new Error(`cpu-bars' label did not tell the decision: ${before['cpu-bars']}`);
  } finally {
    await context.close();
  }
});

check('keyboard focus is visible; reduced motion is respected', async (browser) => {
  const context = await browser.newContext({ reducedMotion: 'reduce' });
  const page = await context.newPage();
  try {
    const { state } = await import('./_lib.mjs');
    await page.goto(state.baseUrl);
    await page.waitForSelector(byId('step'));
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement);
      return { tag: document.activeElement.tagName, style: s.outlineStyle, width: s.outlineWidth };
    });
    if (outline.style === 'none' || parseFloat(outline.width) < 2) {
      throw new Error(`focused ${outline.tag} shows no outline: ${JSON.stringify(outline)}`);
    }
    const motion = await page.evaluate(() => {
      const el = document.querySelector('.sisviz');
      return [getComputedStyle(el).scrollBehavior,
        [...document.querySelectorAll('.sisviz *')].filter((e) =>
          parseFloat(getComputedStyle(e).transitionDuration) > 0.011 ||
          getComputedStyle(e).animationName !== 'none').length];
    });
    if (motion[1] > 0) throw new Error(`${motion[1]} elements still animate under reduced motion`);
  } finally {
    await context.close();
  }
});

await runFile('a11y e2e', checks);
