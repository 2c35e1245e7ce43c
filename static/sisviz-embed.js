// sisviz script-tag API. On any page of the same site as a sisviz build:
//
//   import { mount } from 'https://YOUR-HOST/sisviz/static/sisviz-embed.js';
//   const h = await mount(document.querySelector('#here'), { llc_weight: 16, view: 'cpus', embed: 1 });
//   h.destroy();   // stops its animation loop, frees its simulation
//
// `mount(element, scenario)` takes a DOM element and a scenario object: the scenario fields of
// the URL / CLI / scenario files (llc_weight, llcs, smt, preset, features, imbalance_pct,
// workload, load, tasks, seed, duration, ...) plus the view keys (view, embed, theme, step,
// sel, speed). Values go through the app's one validation path (Scenario::from_pairs); an
// invalid value is shown in that instance's error panel. Anything but an element and a plain
// object is rejected (the promise rejects with a TypeError). Any number of instances per page.
//
// How the hashed file names are found: trunk writes the current glue/wasm names into
// index.html (the data-sisviz-js / data-sisviz-wasm attributes of the boot script, see
// Trunk.toml). This module reads that index.html, next to the static/ folder it is served
// from, so it needs no build step of its own and follows every rebuild. The app's stylesheet
// (also hashed) is linked into the page from the same file. On the app's own page the already
// booted module (window.wasmBindings, set by boot.js) is reused.

let loading = null;

async function findBuild() {
  const index = new URL('../index.html', import.meta.url);
  const res = await fetch(index);
  if (!res.ok) throw new Error(`sisviz: cannot read ${index.href} (HTTP ${res.status})`);
  const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
  const tag = doc.querySelector('script[data-sisviz-js][data-sisviz-wasm]');
  if (!tag) throw new Error(`sisviz: ${index.href} has no boot script (not a sisviz build?)`);
  const css = [...doc.querySelectorAll('link[rel="stylesheet"][href]')].map(
    (l) => new URL(l.getAttribute('href'), index).href,
  );
  return {
    js: new URL(tag.getAttribute('data-sisviz-js'), index).href,
    wasm: new URL(tag.getAttribute('data-sisviz-wasm'), index).href,
    css,
  };
}

/** Loads and initialises the app's wasm module once; resolves to its exports. */
export function load() {
  if (!loading) {
    loading = (async () => {
      if (window.wasmBindings) return window.wasmBindings;
      const build = await findBuild();
      for (const href of build.css) {
        if (![...document.styleSheets].some((s) => s.href === href)) {
          const link = document.createElement('link');
          link.rel = 'stylesheet';
          link.href = href;
          document.head.append(link);
        }
      }
      const bindings = await import(build.js);
      await bindings.default({ module_or_path: build.wasm });
      return bindings;
    })();
    loading.catch(() => { loading = null; });
  }
  return loading;
}

/** Mounts an instance; resolves to a handle with destroy() (and a `mounted` getter). */
export async function mount(element, scenario) {
  if (!(element instanceof Element)) {
    throw new TypeError('sisviz.mount: expected a DOM element as the first argument');
  }
  if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario)) {
    const got = scenario === null ? 'null' : Array.isArray(scenario) ? 'an array' : typeof scenario;
    throw new TypeError(
      `sisviz.mount: invalid scenario (${got}): expected a scenario object like {llc_weight: 16, load: 200, view: 'cpus', embed: 1}`,
    );
  }
  const bindings = await load();
  // The full app's address, for the instance's "open in sisviz" link (the scenario's own wins).
  return bindings.mount(element, { app: new URL('../index.html', import.meta.url).href, ...scenario });
}
