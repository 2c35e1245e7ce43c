// End-to-end test of the Replay tab: the 4.4 sample trace (crates/sis-core/testdata/traces/)
// opened through the file input, plain and gzipped, parsed in the Web Worker to 100%; the
// agreement table's linux-4.4 'all' cell equal to what `sis replay` prints for the same
// topology (the CLI run here); the disagreements filter lands on wake-ups where the kernel's
// CPU and the preset's differ; a non-trace file and an .xz file give errors naming the
// problem. Prints the browser's parse rate (events/s), not gated. Prints
// `replay e2e: N passed, M failed` last.
//
//   node tests/e2e/replay.mjs        (after trunk build --release --features replay)
//
// The Replay tab is behind the app's `replay` cargo feature (it does not fit the 350 KB
// budget yet); against a dist/ built without it this file says so and runs nothing.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { ROOT, DIST, SHOTS, byId, waitFor, openApp, textOf, runFile } from './_lib.mjs';

const SAMPLE = path.join(ROOT, 'crates', 'sis-core', 'testdata', 'traces', 'many-threads.ftrace.txt.xz');
const TOPO = ['--llcs', '1', '--llc-weight', '8', '--smt', '2', '--numbering', 'interleaved'];

const built = fs.readdirSync(DIST).some((f) => f.endsWith('.wasm') &&
  fs.readFileSync(path.join(DIST, f)).includes(Buffer.from('replay_open')));
if (!built) {
  console.log('replay e2e: dist/ was built without the `replay` feature (trunk build --release ' +
    '--features replay); nothing to test');
  console.log('replay e2e: 0 passed, 0 failed (not built)');
  process.exit(0);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sisviz-replay-'));
const plain = path.join(tmp, 'many-threads.txt');
const gz = path.join(tmp, 'many-threads.txt.gz');
const binary = path.join(tmp, 'not-a-trace.bin');
fs.writeFileSync(plain, execFileSync('xz', ['-dc', SAMPLE], { maxBuffer: 64 << 20 }));
fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(plain)));
fs.writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 10, 0, 0, 10]));

// What `sis replay` says for the same topology (the CLI reads the .xz itself).
const cli = JSON.parse(execFileSync('cargo', ['run', '-q', '-p', 'sis-cli', '--', 'replay',
  '--trace', SAMPLE, ...TOPO, '--format', 'json'], { cwd: ROOT, maxBuffer: 16 << 20 }).toString());

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

check('the sample, plain and gzipped, matches `sis replay`; the filter steps through disagreements', async (browser) => {
  const { context, page, problems } = await openApp(browser);
  try {
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
      if (!t?.includes(`(${c.agree['linux-6.0']})`)) throw new Error(`linux-6.0 ${cls}: "${t}" vs ${c.agree['linux-6.0']}`);
    }
    const rate = /\(([\d.]+) events\/s\)/.exec(status);
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
    const bars = await page.locator(`${byId('replay-cpus')} ${byId('replay-cpu')}`).count();
    if (bars !== 8) throw new Error(`${bars} CPU bars, expected 8`);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.locator(byId('replay-view')).screenshot({ path: path.join(SHOTS, 'replay-view.png') });
    // The same file gzipped: the browser's DecompressionStream, the same table.
    const table = await textOf(page, 'replay-table');
    const gzStatus = await openTrace(page, gz);
    if (/error/.test(gzStatus)) throw new Error(gzStatus);
    if (await textOf(page, 'replay-table') !== table) throw new Error('the gzipped file gives another table');
    if (!(await textOf(page, 'replay-note')).includes("permalink can't carry the trace")) throw new Error('no permalink note');
    if (problems.consoleErrors.length) throw new Error(problems.consoleErrors.join('\n      '));
  } finally {
    await context.close();
  }
});

check('a binary file and an .xz file give errors naming the problem', async (browser) => {
  const { context, page, problems } = await openApp(browser);
  try {
    await page.locator(byId('tab-replay')).click();
    const bin = await openTrace(page, binary);
    if (!/error: .*trace line 1.*binary.*read so far: 0 lines/.test(bin)) throw new Error(`binary: "${bin}"`);
    const xz = await openTrace(page, SAMPLE);
    if (!/error: .*xz-compressed.*decompress it first/.test(xz)) throw new Error(`xz: "${xz}"`);
    if (await page.locator(byId('replay-table')).count()) throw new Error('a table after an error');
    if (problems.consoleErrors.length) throw new Error(problems.consoleErrors.join('\n      '));
  } finally {
    await context.close();
  }
});

process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
await runFile('replay e2e', checks);
