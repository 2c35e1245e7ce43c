// App loader (referenced by Trunk.toml `pattern_script`). It replaces trunk's
// default inline loader so index.html's CSP can keep `script-src 'self'`.
// trunk fills the data attributes with the hashed glue/wasm file names.
const tag = document.querySelector('script[data-sisviz-js]');
const jsUrl = new URL(tag.dataset.sisvizJs, document.baseURI);
const wasmUrl = new URL(tag.dataset.sisvizWasm, document.baseURI);
const bindings = await import(jsUrl.href);
const wasm = await bindings.default({ module_or_path: wasmUrl });
window.wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));

// In an iframe, an embed (`embed=1`) tells its host page how tall its content is, so the host
// can size the frame: postMessage({ type: 'sisviz:height', height }) on every change.
const embedParam = new URLSearchParams(location.search).get('embed');
if (window.parent !== window && ['1', 'true', 'yes', 'on', ''].includes(embedParam)) {
  let last = 0;
  const post = () => {
    const root = document.querySelector('.sisviz');
    if (!root) return;
    const height = Math.ceil(Math.max(root.getBoundingClientRect().height, root.scrollHeight));
    if (height !== last) {
      last = height;
      window.parent.postMessage({ type: 'sisviz:height', height }, '*');
    }
  };
  const sizes = new ResizeObserver(post);
  const watch = () => {
    const root = document.querySelector('.sisviz');
    if (root) {
      sizes.observe(root);
      sizes.observe(document.body);
    }
    else requestAnimationFrame(watch);
  };
  watch();
  // A fitted view's box keeps the window's height while what overflows it changes (no resize
  // to observe): look again twice a second.
  setInterval(post, 500);
}
