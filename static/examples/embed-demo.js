// The examples page: two script-API mounts with different scenarios, each with its own
// destroy button, next to an iframe embed (see index.html). No inline scripts: the page's CSP
// is the app's (script-src 'self').
import { mount } from '../sisviz-embed.js';

const status = document.querySelector('#status');

// An iframe embed posts its content height ({ type: 'sisviz:height', height }): size the frame.
addEventListener('message', (e) => {
  if (e.data?.type !== 'sisviz:height') return;
  for (const f of document.querySelectorAll('iframe')) {
    if (f.contentWindow === e.source) f.style.height = `${e.data.height}px`;
  }
});
const demos = [
  ['#demo-a', { llc_weight: 8, smt: 1, workload: 'pinned', preset: 'linux-6.0', view: 'cpus', embed: 1 }],
  ['#demo-b', { llc_weight: 112, load: 200, preset: 'sis-util-v4', view: 'curve', embed: 1, theme: 'dark' }],
];

for (const [sel, scenario] of demos) {
  const box = document.querySelector(sel);
  const target = box.querySelector('.mount');
  const button = box.querySelector('button.destroy');
  try {
    const handle = await mount(target, scenario);
    button.disabled = false;
    button.addEventListener('click', () => {
      handle.destroy();
      button.disabled = true;
      button.textContent = 'destroyed';
    });
  } catch (e) {
    target.textContent = String(e);
  }
}

// The API rejects anything but a scenario object, with a message that says so.
try {
  await mount(document.createElement('div'), 'llc_weight=8');
} catch (e) {
  status.textContent = `mount(el, "llc_weight=8") → ${e.message}`;
}
document.body.dataset.ready = '1';
