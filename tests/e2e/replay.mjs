// End-to-end test of the Replay tab: the 4.4 sample trace (crates/sis-core/testdata/traces/)
// opened through the file input, plain and gzipped, parsed in the Web Worker to 100%; the
// agreement table's linux-4.4 'all' cell equal to what `sis replay` prints for the same
// topology (the CLI run here); the disagreements filter lands on wake-ups where the kernel's
// CPU and the preset's differ; a non-trace file and an .xz file give errors naming the
// problem; a dropped file is read as a picked one; a 100 MB trace can be cancelled and then
// read whole, the worker's memory levelling off; the autogroup box and the hz
// select give `sis replay --autogroup --hz 250`'s figures. Prints the browser's parse rate
// (events/s) and the longest frame gap (not gated) and the worker's memory. Prints
// `replay e2e: N passed, M failed` last.
//
//   node tests/e2e/replay.mjs        (after trunk build --release)
//
// The replay runs on its own worker wasm (sisviz-replay-worker_bg.wasm, index.html's
// data-type="worker" link); a dist/ without it fails here.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { ROOT, DIST, SHOTS, byId, waitFor, withApp, textOf, runFile } from './_lib.mjs';

const SAMPLE = path.join(ROOT, 'crates', 'sis-core', 'testdata', 'traces', 'many-threads.ftrace.txt.xz');
const TOPO = ['--llcs', '1', '--llc-weight', '8', '--smt', '2', '--numbering', 'interleaved'];

const workerWasm = path.join(DIST, 'sisviz-replay-worker_bg.wasm');
if (!fs.existsSync(workerWasm) || !fs.readFileSync(workerWasm).includes(Buffer.from('replay_open'))) {
  console.error(`replay e2e: ${workerWasm} is missing or has no replay_open export`);
  console.log('replay e2e: 0 passed, 1 failed');
  process.exit(1);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sisviz-replay-'));
const plain = path.join(tmp, 'many-threads.txt');
const gz = path.join(tmp, 'many-threads.txt.gz');
const binary = path.join(tmp, 'not-a-trace.bin');
fs.writeFileSync(plain, execFileSync('xz', ['-dc', SAMPLE], { maxBuffer: 64 << 20 }));
fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(plain)));
fs.writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 10, 0, 0, 10]));
// A 100 MB trace (the size): the sample 16 times, each copy's stamps 100 s later.
const big = path.join(tmp, 'many-threads-x16.txt');
{
  const lines = fs.readFileSync(plain, 'utf8').split('\n');
  const head = lines.filter((l) => l.startsWith('#')).join('\n') + '\n';
  const body = lines.filter((l) => l && !l.startsWith('#'));
  const fd = fs.openSync(big, 'w');
  fs.writeSync(fd, head);
  for (let r = 0; r < 16; r++) {
    fs.writeSync(fd, body.map((l) => l.replace(/ (\d+)\.(\d+): /, (_, s, f) => ` ${Number(s) + r * 100}.${f}: `)).join('\n') + '\n');
  }
  fs.closeSync(fd);
}

// What `sis replay` says for the same topology (the CLI reads the .xz itself).
const cliReplay = (...extra) => JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'sis-cli', '--', 'replay',
  '--trace', SAMPLE, ...TOPO, ...extra, '--format', 'json'], { cwd: ROOT, maxBuffer: 16 << 20 }).toString());
const cli = cliReplay();
const cliGroups = cliReplay('--autogroup', '--hz', '250');

const cell = (page, preset, cls) =>
  page.locator(`${byId('replay-table')} tr[data-preset="${preset}"] td[data-class="${cls}"]`).first().textContent();

async function openTrace(page, file) {
  await page.locator(byId('replay-file')).setInputFiles(file);
  const done = await waitFor(async () => {
    const status = await textOf(page, 'replay-status');
    return /events\/s|error/.test(status) ? status : null;
  }, 60_000);
  if (!done) throw new Error(`replay of ${path.basename(file)} did not finish: ${await textOf(page, 'replay-status')}`);
  return done;
}

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

// The worker's wasm memory at the end of a replay, MB, as the status line gives it (linear
// memory never shrinks: the most the replay held); the sample's, set by the sample's check.
const workerMB = (status) => Number(/; worker memory (\d+) MB/.exec(status)?.[1]);
let sampleMB = NaN;

check('the autogroup box and the hz select replay the sample as `sis replay --autogroup --hz 250` does; the tab\'s inputs leave the page alone', async (browser) => {
  await withApp(browser, '', async ({ page }) => {
    await page.locator(byId('tab-replay')).click();
    // The panel is another Yew runtime inside the page's: its events once ran the page's
    // listeners (a topology input changed the page's llc_weight in the URL).
    const url = page.url();
    const w = page.locator(byId('replay-llc-weight'));
    await w.fill('4');
    await w.press('Tab');
    await w.fill('8');
    await w.press('Tab');
    await page.locator(byId('replay-autogroup')).check();
    await page.locator(byId('replay-hz')).selectOption('250');
    if (page.url() !== url) throw new Error(`the Replay tab's inputs changed the page: ${url} -> ${page.url()}`);
    if ((await page.locator(byId('replay-view')).count()) !== 1) throw new Error('the Replay tab closed');
    const status = await openTrace(page, gz);
    if (/error/.test(status)) throw new Error(status);
    const all = cliGroups.classes.all;
    for (const preset of ['linux-4.4', 'linux-6.0', 'linux-5.19']) {
      const want = all.agree[preset];
      const got = await cell(page, preset, 'all');
      if (!(got ?? '').includes(`(${want})`)) throw new Error(`${preset} all: page "${got}", sis replay --autogroup --hz 250 ${want}`);
    }
    // 5.14's wake_avg_idle ages by the jiffies gone: HZ reaches linux-5.19's figure.
    if (all.agree['linux-5.19'] === cli.classes.all.agree['linux-5.19']) {
      throw new Error('HZ=250 changed nothing for linux-5.19');
    }
    if (all.agree['linux-4.4'] === cli.classes.all.agree['linux-4.4']) {
      throw new Error('the groups changed nothing for linux-4.4');
    }
  });
});

check('the sample, plain and gzipped, matches `sis replay`; the filter steps through disagreements', async (browser) => {
  await withApp(browser, '', async ({ page }) => {
    await page.locator(byId('tab-replay')).click();
    const status = await openTrace(page, plain);
    if (/error/.test(status)) throw new Error(status);
    const p = page.locator(byId('replay-progress')).first();
    const [value, max] = [Number(await p.getAttribute('value')), Number(await p.getAttribute('max'))];
    if (value !== max || max !== fs.statSync(plain).size) throw new Error(`progress ${value}/${max}`);
    const all = cli.classes.all;
    const want = all.agree['linux-4.4'];
    const got = await cell(page, 'linux-4.4', 'all');
    const m = /([\d.]+)% \((\d+)\)/.exec(got ?? '');
    if (!m || Number(m[2]) !== want || m[1] !== (want * 100 / all.wakeups).toFixed(1)) {
      throw new Error(`linux-4.4 all: page "${got}", sis replay ${want} of ${all.wakeups}`);
    }
    for (const [cls, c] of Object.entries(cli.classes)) {
      const t = await cell(page, 'linux-6.0', cls);
      // A class with no wake-ups (the sample has no deadline task) shows "-".
      const want = c.wakeups === 0 ? '-' : `(${c.agree['linux-6.0']})`;
      if (!t?.includes(want)) throw new Error(`linux-6.0 ${cls}: "${t}" vs ${want}`);
    }
    const rate = /\(([\d.]+) events\/s\)/.exec(status);
    sampleMB = workerMB(status);
    if (!(sampleMB > 0)) throw new Error(`no worker memory in "${status}"`);
    console.log(`      browser parse: ${status}`);
    console.log(`      bench: replay parse in the browser ${rate ? rate[1] : '?'} events/s (${cli.trace.events} events)`);
    // The first wake-up is shown; then only disagreements of linux-4.4.
    await waitFor(async () => (await page.locator(byId('replay-wakeup')).count()) > 0);
    await page.locator(byId('replay-only')).check();
    const differs = async () => {
      const k = await textOf(page, 'replay-kernel-cpu');
      const mine = await textOf(page, 'replay-preset-cpu');
      return k !== mine ? `${k}/${mine}` : null;
    };
    if (!await waitFor(differs)) throw new Error('the filter did not land on a disagreement');
    const first = await textOf(page, 'replay-wakeup');
    await page.locator(byId('replay-next')).click();
    const moved = await waitFor(async () => (await textOf(page, 'replay-wakeup')) !== first);
    if (!moved) throw new Error('next did not move to another disagreement');
    if (!await differs()) throw new Error(`next landed on an agreement: ${await textOf(page, 'replay-wakeup')}`);
    const steps = await textOf(page, 'replay-steps');
    if (!/select_idle_sibling|wake_affine/.test(steps)) throw new Error(`no checks shown: ${steps.slice(0, 200)}`);
    // One numbering for a wake-up (issue 26): the checks' head names the same trace line.
    const lineNo = /trace line (\d+)/.exec(await textOf(page, 'replay-wakeup'))?.[1];
    if (!lineNo || !steps.includes(`line ${lineNo} `) || /#\d/.test(steps)) throw new Error(`the checks' head is not "line ${lineNo}": ${steps.slice(0, 120)}`);
    const bars = await page.locator(`${byId('replay-cpus')} ${byId('replay-cpu')}`).count();
    if (bars !== 8) throw new Error(`${bars} CPU bars, expected 8`);
    if (!/W .*P .*K .*M /.test(await textOf(page, 'replay-cpus-legend'))) throw new Error('no legend for the CPU marks');
    // The timeline: 8 lanes, runs drawn, the marks, zoom changes the window, a tick steps.
    const tl = page.locator(byId('replay-timeline'));
    const lanes = await tl.locator('text.tl-cpu').count();
    const runs = await tl.locator('svg rect:not(.tl-tick)').count();
    const tags = await tl.locator('text.tl-tag').allTextContents();
    if (lanes !== 8 || runs < 1 || !['W', 'P', 'K', 'M'].every((t) => tags.includes(t))) {
      throw new Error(`timeline: ${lanes} lanes, ${runs} runs, tags ${tags}`);
    }
    const win = await textOf(page, 'timeline-window');
    await tl.locator('button[title="zoom out"]').click();
    if (!await waitFor(async () => (await textOf(page, 'timeline-window')) !== win)) throw new Error(`zoom out left the window at ${win}`);
    console.log(`      timeline: ${runs} runs at ${win.trim()}, then ${(await textOf(page, 'timeline-window')).trim()}`);
    await page.locator(byId('replay-only')).uncheck();
    const ticks = tl.locator(byId('timeline-tick'));
    if (await ticks.count() > 0) {
      const before = await textOf(page, 'replay-wakeup');
      await ticks.first().click();
      if (!await waitFor(async () => (await textOf(page, 'replay-wakeup')) !== before)) throw new Error('a tick did not step to its wake-up');
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator(byId('replay-view')).screenshot({ path: path.join(SHOTS, 'replay-view.png') });
    // The same file gzipped: the browser's DecompressionStream, the same table.
    const table = await textOf(page, 'replay-table');
    const gzStatus = await openTrace(page, gz);
    if (/error/.test(gzStatus)) throw new Error(gzStatus);
    if (await textOf(page, 'replay-table') !== table) throw new Error('the gzipped file gives another table');
    if (!(await textOf(page, 'replay-note')).includes("permalink can't carry the trace")) throw new Error('no permalink note');
  });
});

check('a binary file and an .xz file give errors naming the problem', async (browser) => {
  await withApp(browser, '', async ({ page }) => {
    await page.locator(byId('tab-replay')).click();
    const bin = await openTrace(page, binary);
    if (!/error: .*trace line 1.*binary.*read so far: 0 lines/.test(bin)) throw new Error(`binary: "${bin}"`);
    const xz = await openTrace(page, SAMPLE);
    if (!/error: .*xz-compressed.*decompress it first/.test(xz)) throw new Error(`xz: "${xz}"`);
    if (await page.locator(byId('replay-table')).count()) throw new Error('a table after an error');
  });
});

check('a trace dropped on the tab is replayed as a picked one', async (browser) => {
  await withApp(browser, '', async ({ page }) => {
    await page.locator(byId('tab-replay')).click();
    const b64 = fs.readFileSync(gz).toString('base64');
    const dt = await page.evaluateHandle((data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const t = new DataTransfer();
      t.items.add(new File([bytes], 'dropped.txt.gz'));
      return t;
    }, b64);
    await page.dispatchEvent(byId('replay-view'), 'drop', { dataTransfer: dt });
    const status = await waitFor(async () => {
      const s = await textOf(page, 'replay-status');
      return /events\/s|error/.test(s) ? s : null;
    }, 60_000);
    if (!status || !status.startsWith('dropped.txt.gz:')) throw new Error(`drop: "${status}"`);
    const all = cli.classes.all;
    const got = await cell(page, 'linux-4.4', 'all');
    if (!got?.includes(`(${all.agree['linux-4.4']})`)) throw new Error(`dropped linux-4.4 all: "${got}"`);
  });
});

check('a 100 MB trace: the page keeps drawing frames while it is read, Cancel stops it, a second read finishes', async (browser) => {
  await withApp(browser, '', async ({ page }) => {
    await page.locator(byId('tab-replay')).click();
    const size = fs.statSync(big).size;
    // The longest gap between animation frames while the worker reads (printed, not gated).
    await page.evaluate(() => {
      window.__gap = { last: performance.now(), max: 0, on: true };
      const tick = (t) => {
        const g = window.__gap;
        g.max = Math.max(g.max, t - g.last);
        g.last = t;
        if (g.on) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    await page.locator(byId('replay-file')).setInputFiles(big);
    const p = page.locator(byId('replay-progress')).first();
    const started = await waitFor(async () => Number(await p.getAttribute('value')) > 0, 30_000);
    if (!started) throw new Error(`no progress: ${await textOf(page, 'replay-status')}`);
    await page.locator(byId('replay-cancel')).click({ timeout: 2_000 });
    const cancelled = await waitFor(async () => (await textOf(page, 'replay-status')) === 'cancelled');
    if (!cancelled) throw new Error(`after Cancel: "${await textOf(page, 'replay-status')}"`);
    const at = Number(await p.getAttribute('value'));
    if (!(at > 0 && at < size)) throw new Error(`cancelled at ${at} of ${size}`);
    if (await page.locator(byId('replay-cancel')).isEnabled()) throw new Error('Cancel still enabled');
    await page.waitForTimeout(500);
    if (Number(await p.getAttribute('value')) !== at) throw new Error('progress moved after Cancel');
    // Read it whole this time: the table counts 16 copies of the sample's wake-ups.
    await page.evaluate(() => { window.__gap.max = 0; });
    // The worker's memory as the status line gives it while reading: [percent read, MB].
    const seen = [];
    await page.locator(byId('replay-file')).setInputFiles(big);
    const status = await waitFor(async () => {
      const st = await textOf(page, 'replay-status');
      const m = /: (\d+)%; worker memory (\d+) MB/.exec(st);
      if (m) seen.push([Number(m[1]), Number(m[2])]);
      return /events\/s|error/.test(st) ? st : null;
    }, 60_000, 20);
    if (!status) throw new Error(`the 100 MB trace did not finish: ${await textOf(page, 'replay-status')}`);
    const gap = await page.evaluate(() => { window.__gap.on = false; return window.__gap.max; });
    if (/error/.test(status)) throw new Error(status);
    const all = await cell(page, 'linux-4.4', 'all');
    const n = Number(/\((\d+)\)/.exec(all ?? '')?.[1]);
    if (!(n > 15 * cli.classes.all.agree['linux-4.4'])) throw new Error(`100 MB linux-4.4 all: "${all}"`);
    // Bounded: the kept wake-ups are capped (sisviz-replay-worker KEEP*: reached within the
    // first quarter of this file) and so is the timeline (timeline::MAX_SPANS), so past half
    // the file the worker's memory grows by under a quarter of the bytes it reads (keeping
    // every wake-up would take about 4 bytes a byte read here).
    const mb = workerMB(status);
    const mid = seen.find(([pct]) => pct >= 50 && pct <= 90);
    if (!mid) throw new Error(`no progress line between 50% and 90% with the worker's memory: ${JSON.stringify(seen)}`);
    const grown = (mb - mid[1]) * 1e6;
    const readSince = size * (100 - mid[0]) / 100;
    if (!(mb > 0 && grown < readSince / 4)) {
      throw new Error(`worker memory ${mid[1]} MB at ${mid[0]}%, ${mb} MB at the end of ${(size / 1e6).toFixed(0)} MB`);
    }
    console.log(`      bench: 100 MB trace in the browser: ${status}; longest frame gap while reading ${gap.toFixed(0)} ms`);
    console.log(`      bench: worker memory ${sampleMB} MB after the sample alone, ${mid[1]} MB at ${mid[0]}% of 16 copies, ${mb} MB at the end`);
  });
});

process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
await runFile('replay e2e', checks);
