// End-to-end tests of issue 27 (the workbench, large machines, keyboard and history) at the
// sizes the issue tried: the first view's window agrees with its log, compare counts from a
// warm start, CPU numbers and markers at 112 CPUs, the LLC header's throttle, the workbench's
// tables and heatmap scale, terms without tab stops, llc_weight's arrows, Back. Screenshots go
// to artifacts/screenshots/ (views-*.png). Prints `views e2e: N passed, M failed` last.
//
//   node tests/e2e/views.mjs        (after trunk build --release)

import path from 'node:path';
import {
  byId, waitFor, openApp, runFile, settled, textOf, firstNumber, setControl, SHOTS,
} from './_lib.mjs';

const checks = [];
const check = (name, fn) => checks.push({ name, fn });
const shot = (page, name) => page.screenshot({ path: path.join(SHOTS, `views-${name}.png`) });

async function sized(browser, query, w, h) {
  const { context, page, problems } = await openApp(browser, query);
  await page.setViewportSize({ width: w, height: h });
  await settled(page);
  return { context, page, problems };
}

check('first view at 1280x720: the metrics state their window and agree with the log', async (browser) => {
  const { context, page } = await sized(browser, '?llc_weight=112&load=200', 1280, 720);
  try {
    // Right after the warm start: nothing counted, and the metrics say so instead of 100%.
    const win0 = await textOf(page, 'metrics-window');
    const after = firstNumber(/after #(\d+)/.exec(win0)?.[1]);
    if (!/Counted since/.test(win0) || !Number.isFinite(after)) throw new Error(`window: ${win0}`);
    if ((await textOf(page, 'metric-se_eff')) !== '–') throw new Error(`se_eff with nothing counted: ${await textOf(page, 'metric-se_eff')}`);
    for (let i = 0; i < 5; i++) await page.locator(byId('step')).first().click();
    await page.waitForTimeout(300);
    const wakeups = firstNumber(await textOf(page, 'wakeups'));
    const seqs = await page.locator(byId('decision')).evaluateAll((els) =>
      els.map((e) => [Number(/#(\d+)/.exec(e.innerText)[1]), e.classList.contains('warm')]));
    const counted = seqs.filter(([s]) => s > after);
    if (counted.some(([, warm]) => warm) || seqs.filter(([s]) => s <= after).some(([, warm]) => !warm)) {
      throw new Error(`warm-up tags disagree with the window after #${after}: ${JSON.stringify(seqs.slice(0, 8))}`);
    }
    if (wakeups !== Math.max(...seqs.map(([s]) => s)) - after) {
      throw new Error(`wake-ups ${wakeups}, newest #${Math.max(...seqs.map(([s]) => s))}, counted after #${after}`);
    }
    await shot(page, 'first-view-1280x720');
  } finally {
    await context.close();
  }
});

check('the preset picker links a proposal to its posting, and a release to nothing', async (browser) => {
  const { context, page } = await sized(browser, '?preset=sis-filter', 1280, 720);
  try {
    const href = await page.locator(byId('preset-posting')).getAttribute('href');
    if (!/lore\.kernel\.org\/lkml\/20220505122331/.test(href)) throw new Error(`sis-filter posting: ${href}`);
    const options = await page.locator(`${byId('preset')} option`).allTextContents();
    for (const p of ['sis-filter', 'sis-node', 'sis-short']) {
      if (!options.includes(p)) throw new Error(`${p} not in the picker: ${options.join(', ')}`);
    }
    await setControl(page, 'preset', 'linux-6.0');
    await page.waitForTimeout(200);
    if (await page.locator(byId('preset-posting')).count() !== 0) throw new Error('linux-6.0 links a posting');
  } finally {
    await context.close();
  }
});

check('the nr_expr editor: errors inline as you type, a valid rule applied on Enter and drawn', async (browser) => {
  const { context, page, problems } = await sized(browser, '?llc_weight=16&load=150', 1280, 720);
  try {
    const input = page.locator(byId('nr-expr'));
    await input.fill('sum_util +');
    const bad = await textOf(page, 'nr-expr-status');
    if (!/Not applied: at character \d+/.test(bad)) throw new Error(`malformed rule: ${bad}`);
    await input.press('Enter');
    await page.waitForTimeout(300);
    if (new URL(page.url()).searchParams.get('nr_expr')) throw new Error(`a malformed rule reached the URL: ${page.url()}`);
    await input.fill('llc_weight / 2');
    if (!/LLC-wide/.test(await textOf(page, 'nr-expr-status'))) throw new Error(`valid rule: ${await textOf(page, 'nr-expr-status')}`);
    await input.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('nr_expr') === 'llc_weight / 2', null, { timeout: 5000 });
    await input.fill('avg_idle / 1000');
    if (!/per-wake-up/.test(await textOf(page, 'nr-expr-status'))) throw new Error(`per-wake-up rule: ${await textOf(page, 'nr-expr-status')}`);
    if (problems.consoleErrors.length) throw new Error(`page errors: ${problems.consoleErrors.join('; ')}`);
    await shot(page, 'nr-expr-1280x720');
    // One click: the applied rule against linux-6.0 on seed 000's netperf sweep (issue 30).
    await input.fill('min(llc_weight, 4)');
    await input.press('Enter');
    await page.locator(byId('nr-expr-sweep')).click();
    await waitFor(async () => (await page.locator(byId('sweep-preset-b')).count()) > 0);
    const a = await page.locator(byId('sweep-preset-a')).inputValue();
    const b = await page.locator(byId('sweep-preset-b')).inputValue();
    const bText = await page.locator(`${byId('sweep-preset-b')} option:checked`).textContent();
    if (a !== 'linux-6.0' || b !== 'your-rule' || !bText.includes('min(llc_weight, 4)')) {
      throw new Error(`sweep presets: A ${a}, B ${b} (${bText})`);
    }
    const q = new URL(page.url()).searchParams;
    if (q.get('llc_weight') !== '112' || q.get('preset') !== 'linux-6.0' || q.get('nr_expr') !== 'min(llc_weight, 4)') {
      throw new Error(`the scenario is not seed 000's netperf with the rule: ${page.url()}`);
    }
    // The rule's own rows arrive in the table under its entry's name; then cancel.
    await waitFor(async () => (await textOf(page, 'sweep-table')).includes('compare nr_expr=min(llc_weight, 4)'), 90_000, 500);
    await shot(page, 'nr-expr-sweep-1280x720');
    await page.locator(byId('sweep-cancel')).click();
  } finally {
    await context.close();
  }
});

check('112 CPUs: numbers on the axis with the decision\'s CPUs always labelled; the LLC header names the throttle', async (browser) => {
  for (const [w, h] of [[1440, 900], [1024, 768], [390, 844]]) {
    const { context, page } = await sized(browser, '?llc_weight=112&load=200&preset=linux-5.19', w, h);
    try {
      await page.locator(byId('step')).first().click();
      await page.waitForTimeout(300);
      const ids = (await page.locator(byId('cpu-bars')).getAttribute('data-ids')).split(' ').map(Number);
      const cap = await textOf(page, 'cpu-caption');
      const m = /CPU (\d+) \(.*prev CPU (\d+), target CPU (\d+) → CPU (\d+)/.exec(cap)
        || /woken by CPU (\d+).*prev CPU (\d+), target CPU (\d+) → CPU (\d+)/.exec(cap);
      if (!m) throw new Error(`caption: ${cap}`);
      for (const c of m.slice(1).map(Number)) {
        if (!ids.includes(c)) throw new Error(`${w}x${h}: CPU ${c} of "${cap}" has no number (${ids.join(' ')})`);
      }
      if (ids.length < 8) throw new Error(`${w}x${h}: only ${ids.length} CPU numbers`);
      await shot(page, `cpus-112-${w}x${h}`);
    } finally {
      await context.close();
    }
  }
});

check('compare from a warm start: both runs count the same window; +100 steps fill the pairs table', async (browser) => {
  const { context, page } = await sized(browser, '?llc_weight=16&load=150', 1280, 720);
  try {
    // The warm start waits for the first Step (nothing runs for an unseen tab).
    if (!/Press Step both/.test(await textOf(page, 'compare-note'))) throw new Error(`before a step: ${await textOf(page, 'compare-note')}`);
    await page.locator(byId('compare-step')).click();
    const note = await waitFor(async () => {
      const t = await textOf(page, 'compare-note');
      return /switched to its kernel at/.test(t) ? t : null;
    }, 60_000);
    if (!note) throw new Error(`compare never warmed: ${await textOf(page, 'compare-note')}`);
    await page.locator(byId('compare-step-100')).click();
    await page.waitForTimeout(300);
    const cells = await page.locator(`${byId('compare-row-wakeups')} td`).allInnerTexts();
    if (!(firstNumber(cells[1]) >= 100 && firstNumber(cells[3]) >= 100)) throw new Error(`wakeups row: ${cells}`);
    const pairs = await page.locator(byId('compare-pair')).count();
    if (pairs < 12) throw new Error(`${pairs} pairs after +100 steps`);
    await page.locator(byId('compare-run')).click();
    await page.waitForTimeout(300);
    const cap = await page.locator(`${byId('compare-table')} caption`).innerText();
    const m = /switch at ([\d.]+) ms: A to ([\d.]+) ms, B to ([\d.]+) ms/.exec(cap);
    if (!m || Math.abs(Number(m[2]) - Number(m[3])) > 1) throw new Error(`window: ${cap}`);
    // The table scrolls inside its box, never clipped by the panel.
    const clip = await page.locator(byId('compare-log')).evaluate((t) => {
      const r = t.getBoundingClientRect();
      const p = t.closest('.workbench').getBoundingClientRect();
      return r.right <= p.right + 1 && getComputedStyle(t).overflowX === 'auto';
    });
    if (!clip) throw new Error('the pairs table is cut off by the panel');
    await shot(page, 'compare-1280x720');
  } finally {
    await context.close();
  }
});

check('workbench: the patch scenarios are a menu, inputs at body size, the heatmap has a colour scale', async (browser) => {
  const { context, page } = await sized(browser, '?llc_weight=16', 1280, 720);
  try {
    if (await page.locator(byId('patch-scenario')).first().isVisible()) throw new Error('the patch list is open above every tab');
    await page.locator(byId('patch-menu')).click();
    if (!(await page.locator(byId('patch-scenario')).first().isVisible())) throw new Error('the patch menu does not open');
    await page.locator(byId('patch-menu')).click();
    const sizes = await page.locator(`${byId('workbench')} select, ${byId('workbench')} input`).evaluateAll((els) =>
      els.filter((e) => e.offsetParent).map((e) => parseFloat(getComputedStyle(e).fontSize)));
    if (sizes.some((s) => s < 15.5)) throw new Error(`workbench inputs at ${sizes.join(', ')} px`);
    await page.locator(byId('tab-heatmap')).click();
    await page.locator(byId('heat-run')).click();
    const scale = await waitFor(async () => (await page.locator(byId('heat-scanned-scale')).count()) > 0, 120_000);
    if (!scale) throw new Error('no colour scale after the heatmap ran');
    const ends = await page.locator(`${byId('heat-scanned-scale')} span`).allInnerTexts();
    if (!(firstNumber(ends[0]) <= firstNumber(ends[2]))) throw new Error(`scale ends ${ends}`);
    await shot(page, 'heatmap-1280x720');
  } finally {
    await context.close();
  }
});

check('keyboard: terms are no tab stops, a focused control explains its term, ? explains all; llc_weight steps by smt', async (browser) => {
  const { context, page } = await sized(browser, '?llc_weight=16&smt=2', 1280, 720);
  try {
    const termStops = await page.locator('abbr.term[tabindex]').count();
    if (termStops) throw new Error(`${termStops} terms are tab stops`);
    // Tab from the first control to the metrics region: few stops on the way.
    await page.locator(byId('play')).first().focus();
    let presses = 0;
    for (; presses < 60; presses++) {
      const inMetrics = await page.evaluate(() => !!document.activeElement?.closest('[data-testid="metrics"], [data-testid="decision-log"]'));
      if (inMetrics) break;
      await page.keyboard.press('Tab');
    }
    if (presses >= 40) throw new Error(`${presses} Tab presses from Play to the metrics`);
    await page.locator(byId('llc-weight')).focus();
    const help = await textOf(page, 'focus-help');
    if (!/^llc_weight: CPUs that share/.test(help)) throw new Error(`focus help: ${help}`);
    await page.keyboard.press('ArrowUp');
    const ok = await waitFor(async () => new URL(page.url()).searchParams.get('llc_weight') === '18');
    if (!ok) throw new Error(`ArrowUp from 16 with smt 2: ${await page.locator(byId('llc-weight')).inputValue()}, URL ${page.url()}`);
    await page.locator(byId('metrics')).click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('?');
    const shown = await waitFor(() => page.evaluate(() => {
      const t = document.querySelector('.sisviz.explain abbr.term');
      return t && getComputedStyle(t, '::after').content.length > 20;
    }));
    if (!shown) throw new Error('? did not explain the terms in place');
    await shot(page, 'explain-1280x720');
  } finally {
    await context.close();
  }
});

check('history: each settled scenario change is an entry; Back and Forward restore them', async (browser) => {
  const { context, page } = await sized(browser, '?llc_weight=16&load=100', 1280, 720);
  try {
    const q = () => new URL(page.url()).searchParams;
    // A change more than 800 ms after the last one is a new entry (closer ones replace it):
    // wait past that, then for the entry itself, so a loaded machine cannot send Back past
    // the app.
    const entries = () => page.evaluate(() => history.length);
    const start = await entries();
    await page.waitForTimeout(1000);
    await setControl(page, 'llc-weight', '32');
    if (!(await waitFor(async () => q().get('llc_weight') === '32' && (await entries()) === start + 1))) {
      throw new Error(`llc_weight 32 made no history entry (${await entries()} from ${start})`);
    }
    await page.waitForTimeout(1000);
    await setControl(page, 'load', '150');
    if (!(await waitFor(async () => q().get('load') === '150' && (await entries()) === start + 2))) {
      throw new Error(`load 150 made no history entry (${await entries()} from ${start})`);
    }
    await page.goBack();
    const back1 = await waitFor(async () =>
      q().get('load') === '100' && (await page.locator(byId('load')).inputValue()) === '100');
    if (!back1 || q().get('llc_weight') !== '32') throw new Error(`Back: ${page.url()}`);
    await page.goBack();
    const back2 = await waitFor(async () => (await page.locator(byId('llc-weight')).inputValue()) === '16');
    if (!back2) throw new Error(`second Back: ${page.url()} llc_weight ${await page.locator(byId('llc-weight')).inputValue()}`);
    await page.goForward();
    const fwd = await waitFor(async () => (await page.locator(byId('llc-weight')).inputValue()) === '32');
    if (!fwd) throw new Error(`Forward: ${page.url()}`);
    // The restored scenario runs: a Step makes a decision on 32 CPUs.
    await settled(page);
    await page.locator(byId('step')).first().click();
    const bars = await waitFor(async () =>
      ((await page.locator(byId('cpu-bars')).getAttribute('data-bars')) || '').split(' ').length === 32);
    if (!bars) throw new Error('the restored scenario did not rebuild the CPU view');
  } finally {
    await context.close();
  }
});

await runFile('views e2e', checks);
