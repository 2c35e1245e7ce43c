// App loader (referenced by Trunk.toml `pattern_script`). It replaces trunk's
// default inline loader so index.html's CSP can keep `script-src 'self'`.
// trunk fills the data attributes with the hashed glue/wasm file names.
const tag = document.querySelector('script[data-sisviz-js]');
const jsUrl = new URL(tag.dataset.sisvizJs, document.baseURI);
const wasmUrl = new URL(tag.dataset.sisvizWasm, document.baseURI);
// The sweep worker (static/sweep-worker.js) loads the same glue and wasm from these.
window.sisvizJsUrl = jsUrl.href;
window.sisvizWasmUrl = wasmUrl.href;
const bindings = await import(jsUrl.href);
const wasm = await bindings.default({ module_or_path: wasmUrl });
window.wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
