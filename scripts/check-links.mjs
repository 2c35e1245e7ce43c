// Link check of the guide as served with the app (scripts/test.sh runs it after trunk build).
//
//   node scripts/check-links.mjs [DIST] [SUBDIR]      (defaults: dist guide)
//
// Walks DIST/SUBDIR/**/*.html and checks every relative href and src (links, stylesheets,
// scripts, images, the live views' iframes): the file it names must exist in DIST (query and
// fragment stripped; a path ending in / means its index.html; `../index.html` from
// DIST/guide/ is DIST/index.html, the app), and a #fragment must be an id (or <a name>) of the
// page it points to. Links with a scheme (http:, https:, mailto:, data:, javascript:, ...) or
// starting with // are left alone; a root-relative /path is taken from DIST, as if DIST were
// served at the site's root; a <base href> is honoured. Exits 1 listing every broken link,
// 2 when there is nothing to check. No dependencies: node's own fs, path and URL.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const dist = resolve(process.argv[2] ?? 'dist');
// Paths as the user gave them: relative to the working directory when inside it.
const show = (p) => (p.startsWith(process.cwd() + sep) ? relative(process.cwd(), p) : p);
const sub = process.argv[3] ?? 'guide';
const root = join(dist, sub);

if (!existsSync(join(root, 'index.html'))) {
  console.error(`check-links: ${show(join(root, 'index.html'))} not found (build the guide, then trunk build)`);
  process.exit(2);
}

function htmlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...htmlFiles(p));
    else if (name.endsWith('.html')) out.push(p);
  }
  return out;
}

function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|quot|apos|lt|gt|nbsp);/gi, (m, e) => {
    const l = e.toLowerCase();
    if (l.startsWith('#x')) return String.fromCodePoint(parseInt(l.slice(2), 16));
    if (l.startsWith('#')) return String.fromCodePoint(parseInt(l.slice(1), 10));
    return { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: '\u00a0' }[l];
  });
}

// The markup only: comments and the bodies of <script>/<style> are not links (mdBook's inline
// scripts build URLs from strings); a <script src> tag itself stays.
function markup(html) {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/(<script\b[^>]*>)[\s\S]*?(<\/script\s*>)/gi, '$1$2')
    .replace(/(<style\b[^>]*>)[\s\S]*?(<\/style\s*>)/gi, '$1$2');
}

const ATTR = /\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g;

function tags(html) {
  const out = [];
  for (const m of markup(html).matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)(\s[^>]*)?>/g)) {
    const attrs = {};
    for (const a of (m[2] ?? '').matchAll(ATTR)) {
      attrs[a[1].toLowerCase()] = decodeEntities(a[2] ?? a[3] ?? a[4] ?? '');
    }
    out.push({ name: m[1].toLowerCase(), attrs });
  }
  return out;
}

const idCache = new Map();
function idsOf(file) {
  if (!idCache.has(file)) {
    const ids = new Set();
    for (const t of tags(readFileSync(file, 'utf8'))) {
      if (t.attrs.id !== undefined) ids.add(t.attrs.id);
      if (t.name === 'a' && t.attrs.name !== undefined) ids.add(t.attrs.name);
    }
    idCache.set(file, ids);
  }
  return idCache.get(file);
}

// Page URLs live under a fake origin whose path is the file's path below DIST.
const ORIGIN = 'http://dist.invalid';
const urlOf = (file) => ORIGIN + '/' + relative(dist, file).split(sep).map(encodeURIComponent).join('/');

const pages = htmlFiles(root);
const broken = [];
let checked = 0;
for (const page of pages) {
  const html = readFileSync(page, 'utf8');
  const all = tags(html);
  const baseTag = all.find((t) => t.name === 'base' && t.attrs.href !== undefined);
  const base = baseTag ? new URL(baseTag.attrs.href, urlOf(page)).href : urlOf(page);
  const where = show(page);
  for (const t of all) {
    for (const attr of ['href', 'src']) {
      const raw = t.attrs[attr];
      if (raw === undefined) continue;
      const link = raw.trim();
      if (link === '' || link.startsWith('//') || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(link)) continue;
      if (t.name === 'base') continue;
      checked++;
      const url = new URL(link, base);
      if (url.origin !== ORIGIN) continue;
      let path = decodeURIComponent(url.pathname);
      if (path.endsWith('/')) path += 'index.html';
      const target = join(dist, ...path.split('/').filter(Boolean));
      const bad = (why) => broken.push(`${where}: <${t.name} ${attr}="${raw}"> ${why}`);
      if (!target.startsWith(dist + sep) && target !== dist) {
        bad('points outside the dist folder');
        continue;
      }
      if (!existsSync(target) || !statSync(target).isFile()) {
        bad(`-> ${show(target)} does not exist`);
        continue;
      }
      const frag = decodeURIComponent(url.hash.slice(1));
      if (frag !== '' && target.endsWith('.html') && !idsOf(target).has(frag)) {
        bad(`-> no id "${frag}" in ${show(target)}`);
      }
    }
  }
}

if (pages.length === 0 || checked === 0) {
  console.error(`check-links: nothing to check in ${show(root)}`);
  process.exit(2);
}
for (const b of broken) console.error(`broken link: ${b}`);
console.log(`check-links: ${pages.length} pages, ${checked} relative links, ${broken.length} broken`);
process.exit(broken.length ? 1 : 0);
