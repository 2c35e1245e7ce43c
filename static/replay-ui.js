// The Replay tab's UI loader (src/components/workbench.rs, ReplayHost). The tab's UI is a wasm
// of its own (crates/sisviz-replay-ui, built by trunk beside the page's as sisviz-replay-ui.js
// + _bg.wasm), imported the first time the tab opens, so the page does not load it at start.
// window.sisvizReplayUi.mount(el) / .unmount(el); elements marked data-replay-mount before this
// module ran are mounted when it has.
let ready = null;
const handles = new Map();

function load() {
  ready ??= (async () => {
    const m = await import(new URL('../sisviz-replay-ui.js', import.meta.url).href);
    await m.default();
    return m;
  })();
  return ready;
}

const api = {
  async mount(el) {
    handles.set(el, null);
    try {
      const m = await load();
      if (!handles.has(el)) return; // the tab closed while loading
      el.replaceChildren();
      handles.set(el, m.mount_replay(el));
    } catch (e) {
      el.textContent = `The Replay tab could not load: ${e && e.message ? e.message : e}`;
    }
  },
  unmount(el) {
    handles.get(el)?.destroy();
    handles.delete(el);
  },
};
window.sisvizReplayUi = api;
for (const el of document.querySelectorAll('[data-replay-mount]')) {
  el.removeAttribute('data-replay-mount');
  api.mount(el);
}
