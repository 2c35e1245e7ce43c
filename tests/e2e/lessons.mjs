// End-to-end tests of the lessons page (static/lessons/): every scene opens the app without an
// error and a Step makes a decision there; PageDown / PageUp move between scenes; large type
// zooms the scene. Prints `lessons e2e: N passed, M failed` last.
//
//   node tests/e2e/lessons.mjs        (after trunk build --release)

import { byId, waitFor, state, runFile, APP_TIMEOUT } from './_lib.mjs';

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

check('lessons: seven scenes by PageDown / PageUp, each a working app; large type', async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${state.baseUrl}static/lessons/`);
    await page.waitForSelector('body[data-ready="1"]');
    const frame = page.frameLocator(byId('lesson-frame'));
    const seen = [];
    for (let i = 1; i <= 7; i++) {
      const want = `scene ${i} of 7`;
      const count = await waitFor(async () => {
        const c = await page.locator(byId('lesson-count')).innerText();
        return c === want ? c : null;
      }) || await page.locator(byId('lesson-count')).innerText();
      if (count !== want) throw new Error(`expected scene ${i}, page says "${count}"`);
      await frame.locator(byId('step')).waitFor({ timeout: APP_TIMEOUT });
      if (await frame.locator(byId('error')).count()) {
        throw new Error(`scene ${i}: ${await frame.locator(byId('error')).innerText()}`);
      }
      await waitFor(async () => (await frame.locator(byId('progress')).count()) === 0, 60_000);
      await frame.locator(byId('step')).click();
      const detail = await waitFor(async () => {
        const t = await frame.locator(byId('decision-detail')).innerText();
        return /CPU \d+/.test(t) ? t : null;
      });
      if (!detail) throw new Error(`scene ${i}: no decision after a Step`);
      seen.push(`${i}: ${detail.split('\n').filter((l) => /did not run|scan found|budget nr|visited every|no scan|rule|select_idle/i.test(l)).join(' / ').slice(0, 220)}`);
      // The focus stays in the scene (the Step click): the clicker's PageDown still moves on.
      if (i < 7) await page.keyboard.press('PageDown');
    }
    await page.keyboard.press('PageUp');
    await waitFor(async () => page.url().endsWith('#6'));
    await frame.locator(byId('step')).waitFor({ timeout: APP_TIMEOUT });
    if (!page.url().endsWith('#6')) throw new Error(`PageUp left ${page.url()}`);
    await page.keyboard.press('l');
    // The scene may still be loading after PageUp: large type applies when it has.
    const zoomOf = async () => {
      try {
        return await page.frames()[1].evaluate(() => document.documentElement.style.zoom);
      } catch {
        return '';
      }
    };
    const zoom = (await waitFor(async () => ((await zoomOf()) === '1.4' ? '1.4' : null), 10_000)) ?? await zoomOf();
    if (zoom !== '1.4') throw new Error(`large type: the scene's zoom is "${zoom}"`);
    if (errors.length) throw new Error(errors.join(' | '));
    console.log(`      ${seen.join('\n      ')}`);
  } finally {
    await context.close();
  }
});

await runFile('lessons e2e', checks);
