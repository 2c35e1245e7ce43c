// End-to-end test of the user guide served with the app (dist/guide/, built by mdBook): its
// pages open without errors, and the model page's live views (iframes of the app's embed
// mode) each render their view, with a title for screen readers. Prints `guide e2e: N passed,
// M failed` last.
//
//   node tests/e2e/guide.mjs        (after mdbook build and trunk build --release)

import { byId, waitFor, state, runFile, APP_TIMEOUT } from './_lib.mjs';

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

// What each embedded view must show (its data-testid), by the iframe's `view=`.
const SHOWS = { curve: 'scan-curve', cpus: 'cpu-bars', trace: 'decision-log', full: 'cpu-bars' };

check('guide: the model page\'s live views render the app\'s embeds', async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${state.baseUrl}guide/model.html`);
    const title = await page.locator('main h1').first().innerText();
    if (!/model/i.test(title)) throw new Error(`guide/model.html's heading: "${title}"`);
    const frames = page.locator('iframe');
    const n = await frames.count();
    if (n < 3) throw new Error(`the model page has ${n} live views, expected 3`);
    const seen = [];
    for (let i = 0; i < n; i++) {
      const el = frames.nth(i);
      await el.scrollIntoViewIfNeeded();
      const src = await el.getAttribute('src');
      const label = await el.getAttribute('title');
      if (!label) throw new Error(`iframe ${src} has no title`);
      const view = new URL(src, 'http://x/').searchParams.get('view');
      const testid = SHOWS[view];
      if (!testid) throw new Error(`iframe ${src}: unknown view "${view}"`);
      const frame = page.frameLocator('iframe').nth(i);
      await frame.locator(byId(testid)).first().waitFor({ timeout: APP_TIMEOUT });
      if (await frame.locator(byId('error')).count()) {
        throw new Error(`${src}: ${await frame.locator(byId('error')).innerText()}`);
      }
      // A trace view shows its decisions once the replayed `step` has run.
      if (view === 'trace') {
        const d = await waitFor(async () => (await frame.locator(byId('decision')).count()) || null, 60_000);
        if (!d) throw new Error(`${src}: no decision in the trace view`);
      }
      seen.push(`${view}: ${label}`);
    }
    if (errors.length) throw new Error(errors.join(' | '));
    console.log(`      ${seen.join('\n      ')}`);
  } finally {
    await context.close();
  }
});

check('guide: every page of the book opens from the introduction\'s table of contents', async (browser) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${state.baseUrl}guide/index.html`);
    const hrefs = await page.locator('nav#sidebar a[href$=".html"], mdbook-sidebar-scrollbox a[href$=".html"], .sidebar a[href$=".html"]')
      .evaluateAll((as) => [...new Set(as.map((a) => a.href))]);
    if (hrefs.length < 10) throw new Error(`the sidebar lists ${hrefs.length} pages`);
    for (const href of hrefs) {
      const r = await page.goto(href);
      if (!r || r.status() !== 200) throw new Error(`${href}: ${r && r.status()}`);
      if (!(await page.locator('main h1, main h2').count())) throw new Error(`${href}: no heading`);
    }
    if (errors.length) throw new Error(errors.join(' | '));
    console.log(`      ${hrefs.length} pages`);
  } finally {
    await context.close();
  }
});

await runFile('guide e2e', checks);
