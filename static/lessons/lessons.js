// Lessons for lecturers: seven scenes, each a permalink with one caption and one thing to
// notice. PageDown / PageUp (a presenter's clicker), n / p and the buttons move between them;
// the scene number is in the URL hash (#3), so a link opens on that scene. Large type zooms
// this page and the scene (same origin) for a projector. No inline script (CSP).
const SCENES = [
  ['The fast path', 'llc_weight=16&load=25&preset=linux-6.0',
    'At 25% load the wakee\'s target or prev CPU is usually idle. Press Step: select_idle_sibling() returns after one or two checks and the LLC is never scanned.'],
  ['The LLC scan', 'llc_weight=16&load=100&preset=full-scan',
    'With target and prev busy, select_idle_cpu() walks the LLC from target+1 (for_each_cpu_wrap) until a CPU is idle. Press Step probe to walk the probes one at a time; no throttle here.'],
  ['SIS_PROP\'s budget', 'llc_weight=112&load=150&preset=linux-5.19',
    'SIS_PROP caps the walk at nr, computed from the waker CPU\'s avg_idle and its own avg_scan_cost. Step until a decision scans: look for "Budget nr" in it, and for scans that end because the budget ran out. The blue band under a bar is a CPU scanning for a wakee: time it does not spend running tasks.'],
  ['SIS_UTIL\'s cut-off', 'llc_weight=112&load=200&preset=linux-6.0',
    'SIS_UTIL sets nr_idle_scan from the LLC\'s utilisation at the last balance: near 85% it falls to 0. Watch the operating point on the scan-depth curve and decisions that do not scan. Seed 000 measured the price of scanning on this machine at 224 netperf threads: SIS_UTIL scanned 87.9% fewer runqueues than v5.19 (linux-5.19, the scene before), took 13% less rq lock contention, and ran +197% faster. Under the bars: blue, a CPU scanning for a wakee; purple, a waker spinning for another CPU\'s runqueue lock; green over a bar, a CPU leaving its idle state.'],
  ['The 8-CPU corner case', 'llc_weight=8&smt=1&workload=pinned&preset=linux-6.0',
    'A small LLC: the same curve gives a few CPUs at most, so an idle CPU can go unprobed. Look for "idle, never probed" over the bars.'],
  ['select_idle_smt(prev)', 'llc_weight=16&smt=2&load=100&preset=linux-5.13',
    '5.13 checks prev\'s SMT siblings before the LLC scan (Rik van Riel). Step until target and prev are busy: select_idle_smt is the check before select_idle_cpu.'],
  ['The LB_PROMOTE thin path', 'llc_weight=112&load=150&preset=lb-promote-thin',
    'select_task_rq_fair_thin: prev, recent_used_cpu, then the first idle CPU of the LLC. Compare the probes per decision with the SIS_UTIL scene before.'],
];

const $ = (id) => document.getElementById(id);
const frame = $('scene');
let large = new URLSearchParams(location.search).has('large');

function scene() {
  const n = parseInt(location.hash.slice(1), 10);
  return Number.isInteger(n) && n >= 1 && n <= SCENES.length ? n - 1 : 0;
}

function applyLarge() {
  document.body.classList.toggle('large', large);
  $('large').setAttribute('aria-pressed', String(large));
  try {
    frame.contentDocument.documentElement.style.zoom = large ? '1.4' : '';
  } catch { /* not loaded yet: the load handler applies it */ }
}

function show() {
  const i = scene();
  const [title, query, caption] = SCENES[i];
  const src = `../../index.html?${query}&embed=1&view=full&controls=1`;
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
frame.addEventListener('load', () => {
  applyLarge();
  try {
    frame.contentWindow.addEventListener('keydown', onKey);
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
