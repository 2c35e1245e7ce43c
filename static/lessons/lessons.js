// Lessons for lecturers: seven scenes, each a permalink with one caption and one thing to
// notice. PageDown / PageUp (a presenter's clicker), n / p and the buttons move between them;
// the scene number is in the URL hash (#3), so a link opens on that scene. Large type zooms
// this page and scales the scene for a projector. No inline script (CSP).
// Each scene: [title, scenario query, the one view it shows, caption]. The caption points at
// what that view shows (the bar above it has Play, Step and Step probe).
const SCENES = [
  ['The fast path', 'llc_weight=16&load=25&preset=linux-6.0', 'cpus',
    'At 25% load the wakee\'s target or prev CPU is usually idle. Press Step: the line over the bars says select_idle_sibling() returned after one or two checks, and no probe dot walks the LLC.'],
  ['The LLC scan', 'llc_weight=16&load=100&preset=full-scan', 'cpus',
    'With target and prev busy, select_idle_cpu() walks the LLC from target+1 (for_each_cpu_wrap) until a CPU is idle. Press Step, then Step probe: each dot over a bar is one probe, red busy, green idle; no throttle here.'],
  ['SIS_PROP\'s budget', 'llc_weight=112&load=150&preset=linux-5.19', 'trace',
    'SIS_PROP caps the walk at nr, computed from the waker CPU\'s avg_idle and its own avg_scan_cost. Step until a decision scans: its last line reads "Budget nr …", and "the budget nr ran out" when the scan stopped short of an idle CPU.'],
  ['SIS_UTIL\'s cut-off', 'llc_weight=112&load=200&preset=linux-6.0', 'curve',
    'SIS_UTIL sets nr_idle_scan from the LLC\'s utilisation: the blue curve, 0 past the red cut-off near 85%. The dot is the LLC now; press Play: it stays at 0, no scan, so each netperf pair shares a CPU and wakes its peer there. Seed 000 vs v5.19: 87.9% fewer scans, +197%, 13% less rq lock contention. Model at 224 threads: 87.3% fewer, +124%; remote wake-ups 1.4 M on v5.19, 20437 here.'],
  ['The 8-CPU corner case', 'llc_weight=8&smt=1&workload=pinned&preset=linux-6.0', 'cpus',
    'A small LLC: the same curve gives a few CPUs at most, so an idle CPU can go unprobed. Press Step: the dashed green outline marks the idle CPU the scan never probed.'],
  ['select_idle_smt(prev)', 'llc_weight=16&smt=2&load=100&preset=linux-5.13', 'trace',
    '5.13 checks prev\'s SMT siblings before the LLC scan (Rik van Riel). Step until target and prev are busy: the check list shows select_idle_smt() before select_idle_cpu().'],
  ['The LB_PROMOTE thin path', 'llc_weight=112&load=150&preset=lb-promote-thin', 'cpus',
    'select_task_rq_fair_thin: prev, recent_used_cpu, then the first idle CPU of the LLC. Press Step: the line over the bars counts the probes, fewer than SIS_UTIL\'s scene before.'],
];

const $ = (id) => document.getElementById(id);
const frame = $('scene');
let large = new URLSearchParams(location.search).has('large');

function scene() {
  const n = parseInt(location.hash.slice(1), 10);
  return Number.isInteger(n) && n >= 1 && n <= SCENES.length ? n - 1 : 0;
}

// Large type scales the whole scene by LARGE from here (a transform of the frame): the scene
// lays itself out for a frame LARGE times smaller and fits it, canvases and all.
const LARGE = 1.4;
function applyLarge() {
  document.body.classList.toggle('large', large);
  $('large').setAttribute('aria-pressed', String(large));
  document.body.style.setProperty('--scene-scale', large ? String(LARGE) : '1');
}

function show() {
  const i = scene();
  const [title, query, view, caption] = SCENES[i];
  const src = `../../index.html?${query}&embed=1&view=${view}`;
  $('title').textContent = `${i + 1}. ${title}`;
  $('caption').textContent = caption;
  $('count').textContent = `scene ${i + 1} of ${SCENES.length}`;
  $('open').href = `../../index.html?${query}`;
  $('prev').disabled = i === 0;
  $('next').disabled = i === SCENES.length - 1;
  if (frame.dataset.src !== src) {
    frame.dataset.src = src;
    frame.src = src;
  }
}

function go(delta) {
  const i = Math.min(SCENES.length - 1, Math.max(0, scene() + delta));
  location.hash = `#${i + 1}`;
}

// The clicker works with the focus in the scene too (same origin: listen in its window).
// `data-keys` names the scene whose window listens now (what a test waits for).
frame.addEventListener('load', () => {
  try {
    frame.contentWindow.addEventListener('keydown', onKey);
    frame.dataset.keys = frame.dataset.src;
  } catch { /* another origin: keys work once the focus is back on this page */ }
});
$('prev').addEventListener('click', () => go(-1));
$('next').addEventListener('click', () => go(1));
$('large').addEventListener('click', () => { large = !large; applyLarge(); });
addEventListener('hashchange', show);
function onKey(e) {
  if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest?.('input, select, textarea')) return;
  if (e.key === 'PageDown' || e.key === 'n') { go(1); e.preventDefault(); }
  else if (e.key === 'PageUp' || e.key === 'p') { go(-1); e.preventDefault(); }
  else if (e.key === 'l') { large = !large; applyLarge(); }
}
addEventListener('keydown', onKey);
show();
applyLarge();
document.body.dataset.ready = '1';
