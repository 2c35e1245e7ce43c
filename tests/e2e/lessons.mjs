// End-to-end tests of the lessons page (static/lessons/): every scene opens the app without an
// error and a Step makes a decision there; PageDown / PageUp move between scenes; large type
// zooms the scene. Prints `lessons e2e: N passed, M failed` last.
//
//   node tests/e2e/lessons.mjs        (after trunk build --release)

import path from 'node:path';
import { byId, waitFor, state, runFile, APP_TIMEOUT, SHOTS } from './_lib.mjs';

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
      // A Step made a decision: the scene's own URL holds it (step=N), whatever its view.
      const stepped = await waitFor(async () => {
        const f = page.frames().find((x) => x !== page.mainFrame() && x.url().includes('embed=1'));
        const m = f && /[?&]step=(\d+)/.exec(f.url());
        return m ? `${new URL(f.url()).searchParams.get('view')} #${m[1]}` : null;
      });
      if (!stepped) throw new Error(`scene ${i}: no decision after a Step`);
      seen.push(`${i}: ${stepped}`);
      // The focus stays in the scene (the Step click): the clicker's PageDown still moves on.
      if (i < 7) await page.keyboard.press('PageDown');
    }
    await page.keyboard.press('PageUp');
    await waitFor(async () => page.url().endsWith('#6'));
    await frame.locator(byId('step')).waitFor({ timeout: APP_TIMEOUT });
    if (!page.url().endsWith('#6')) throw new Error(`PageUp left ${page.url()}`);
    // lessons.js hears keys pressed in the scene once its frame's 'load' handler has added
    // its listener, which runs just after the scene's own load event: wait for that handler
    // (it marks the scene in data-keys), or on a loaded machine the key reaches only the
    // scene (CI runs lost it so twice).
    await waitFor(async () => page.locator(byId('lesson-frame'))
      .evaluate((f) => f.dataset.keys !== undefined && f.dataset.keys === f.dataset.src));
    await page.keyboard.press('l');
    // Large type scales the scene (a transform of the frame), and the scene still fits.
    const scale = await waitFor(async () => {
      const t = await page.locator(byId('lesson-frame')).evaluate((f) => getComputedStyle(f).transform);
      return t.startsWith('matrix(1.4') ? t : null;
    }, 5_000);
    if (!scale) throw new Error('large type does not scale the scene');
    if (errors.length) throw new Error(errors.join(' | '));
    console.log(`      ${seen.join('\n      ')}`);
  } finally {
    await context.close();
  }
});

// Issue 27: each scene shows its one view, whole, on a projector's screen: no scrolling in the
// frame, the view's chart or list inside it, at 1024x768 and 1280x720, large type too.
for (const [w, h, large] of [[1024, 768, false], [1280, 720, true], [1440, 900, false]]) {
  check(`lessons at ${w}x${h}${large ? ' with large type' : ''}: every scene's view fits its frame`, async (browser) => {
    const context = await browser.newContext({ viewport: { width: w, height: h } });
    const page = await context.newPage();
    try {
      await page.goto(`${state.baseUrl}static/lessons/${large ? '?large' : ''}#1`);
      await page.waitForSelector('body[data-ready="1"]');
      const fits = [];
      for (let i = 1; i <= 7; i++) {
        if (i > 1) await page.keyboard.press('PageDown');
        await waitFor(async () => page.url().endsWith(`#${i}`));
        const frame = page.frameLocator(byId('lesson-frame'));
        await frame.locator(byId('step')).waitFor({ timeout: APP_TIMEOUT });
        await waitFor(async () => (await frame.locator(byId('progress')).count()) === 0, 60_000);
        await frame.locator(byId('step')).click();
        await page.waitForTimeout(300);
        const f = page.frames().find((x) => x !== page.mainFrame() && x.url().includes('embed=1'));
        const view = new URL(f.url()).searchParams.get('view');
        const main = { cpus: 'cpu-bars', curve: 'scan-curve', trace: 'decision-detail' }[view];
        if (!main) throw new Error(`scene ${i} shows view=${view}, not one view`);
        const g = await f.evaluate((id) => {
          const r = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, h: r.height, ih: innerHeight,
            sh: document.scrollingElement.scrollHeight, panel: !!document.querySelector('[data-testid="llc-weight"]') };
        }, main);
        if (g.panel) throw new Error(`scene ${i}: the whole control panel is shown`);
        if (g.h < 80 || g.bottom > g.ih + 0.5 || g.sh > g.ih + 1) {
          throw new Error(`scene ${i} (${view}) does not fit: ${JSON.stringify(g)}`);
        }
        // The frame itself is on screen, under the caption.
        const fr = await page.locator(byId('lesson-frame')).boundingBox();
        if (fr.y + fr.height > h + 1) throw new Error(`scene ${i}: the frame ends at ${fr.y + fr.height} of ${h}`);
        fits.push(`${i}:${view} ${Math.round(g.h)}px`);
        if (i === 4) await page.screenshot({ path: path.join(SHOTS, `lesson-4-${w}x${h}${large ? '-large' : ''}.png`) });
      }
      console.log(`      ${fits.join(', ')}`);
    } finally {
      await context.close();
    }
  });
}

await runFile('lessons e2e', checks);
