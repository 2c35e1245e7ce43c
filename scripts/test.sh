#!/usr/bin/env bash
# Full check, in order, stopping at the first failure. CI runs this via .ci/run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$SISVIZ_ROOT"

_test_start=$SECONDS
stage() {
  printf '\n==================== %s ====================\n' "$*"
}

stage "1/10 cargo fmt --all --check"
cargo fmt --all --check

stage "2/10 cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

stage "3/10 cargo test --workspace (native)"
cargo test --workspace

# The quick benchmarks (criterion, ~1 min): printed for the README's figures, never gated
# (a timed test would fail on a loaded machine; compare the ratios to the minimal loop).
echo "--- quick benchmarks: cargo bench -p sis-core --bench wakeups --bench replay"
cargo bench -p sis-core --bench wakeups --bench replay 2>&1 \
  | grep -E '^[a-z_0-9.-]+/[a-z_0-9.-]+|^ +(time|thrpt):' | sed 's/^/bench: /'

stage "4/10 cargo build -p sis-core --target wasm32-unknown-unknown"
cargo build -p sis-core --target wasm32-unknown-unknown

stage "5/10 wasm-bindgen-test in headless Chromium (-p sisviz)"
CHROMEDRIVER="$CHROMEDRIVER_BIN" cargo test --target wasm32-unknown-unknown -p sisviz

stage "6/10 mdbook build guide (the user guide, into build/guide/)"
# index.html's copy-dir link puts build/guide/ into dist/guide/: the guide is served with
# the app at <app>/guide/. setup.sh installs mdbook; without it this stage fails.
if ! command -v mdbook >/dev/null 2>&1; then
  echo "mdbook not found on PATH (scripts/setup.sh installs mdbook $MDBOOK_VERSION)" >&2
  exit 1
fi
# mdbook exits 0 when an {{#include}} names a missing file (it leaves the directive in the
# page and logs an ERROR): fail on any ERROR or WARN line.
guide_log=$(mdbook build guide 2>&1) || { printf '%s\n' "$guide_log"; exit 1; }
printf '%s\n' "$guide_log"
if grep -qE '(^|[^A-Za-z])(ERROR|WARN)([^A-Za-z]|$)' <<<"$guide_log"; then
  echo "mdbook build guide: errors or warnings above (an {{#include}} of a missing file, say)" >&2
  exit 1
fi

stage "7/10 trunk build --release --offline --cargo-profile wasm-release"
trunk build --release --offline --cargo-profile wasm-release

stage "8/10 links of the guide in dist/ (node scripts/check-links.mjs dist guide)"
# Every relative href/src of dist/guide/**/*.html names a file of dist/ (the live views'
# ../index.html?embed=1... included) and every #fragment an id of its page.
node scripts/check-links.mjs dist guide

stage "9/10 gzipped size of dist/"
gz_size() { # total gzip -9 size of the given files
  local total=0 f
  for f in "$@"; do
    total=$((total + $(gzip -9 -c "$f" | wc -c)))
  done
  echo "$total"
}
# What the page loads at start: the wasm and trunk's JS glue that index.html names (boot.js
# loads them) and static/boot.js. Listed, not counted: the Replay tab's worker wasm and glue
# (sisviz-replay-worker*, loaded by static/replay-worker.js only when a trace is opened), the
# sweep workers' wasm and glue (sisviz-sim-worker*, loaded by static/sweep-worker.js when a
# sweep starts), the embed API, the sweep/replay worker scripts and the examples page. The user guide (dist/guide/,
# mdBook's own scripts) is not the app and is left out.
attr() { grep -o "data-sisviz-$1=\"[^\"]*\"" dist/index.html | sed 's/^[^"]*"\.\{0,1\}\/\{0,1\}//; s/"$//'; }
page_wasm=$(attr wasm)
page_js=$(attr js)
if [[ -z "$page_wasm" || ! -f "dist/$page_wasm" || -z "$page_js" || ! -f "dist/$page_js" ]]; then
  echo "dist/index.html names no built wasm/JS (data-sisviz-wasm/-js)" >&2
  exit 1
fi
wasm_files=("dist/$page_wasm")
js_files=("dist/$page_js" dist/static/boot.js)
mapfile -t other_files < <(find dist -type f \( -name '*.wasm' -o -name '*.js' \) \
  ! -path "dist/$page_wasm" ! -path "dist/$page_js" ! -path dist/static/boot.js ! -path 'dist/guide/*' | sort)
for f in "${wasm_files[@]}" "${js_files[@]}"; do
  printf '  %-48s raw=%8d gz=%8d (counted)\n' "$f" "$(wc -c <"$f")" "$(gzip -9 -c "$f" | wc -c)"
done
for f in "${other_files[@]}"; do
  printf '  %-48s raw=%8d gz=%8d (loaded later: listed)\n' "$f" "$(wc -c <"$f")" "$(gzip -9 -c "$f" | wc -c)"
done
for w in sisviz-replay-worker sisviz-sim-worker; do
  if ! printf '%s\n' "${other_files[@]}" | grep -q "${w}_bg.wasm\$"; then
    echo "no ${w} wasm in dist/ (index.html's data-type=worker link)" >&2
    exit 1
  fi
done
wasm_gz=$(gz_size "${wasm_files[@]}")
js_gz=$(gz_size "${js_files[@]}")
echo "size (what the page loads at start): app.wasm.gz=${wasm_gz} bytes js.gz=${js_gz} bytes total=$((wasm_gz + js_gz))"
# Issue 15's budget: under 350 KB gzipped (plotters included).
if (( wasm_gz + js_gz >= 350000 )); then
  echo "size: over the 350 KB budget" >&2
  exit 1
fi

stage "10/10 end-to-end (node tests/e2e/*.mjs, headless Chromium)"
echo "(stages 1-9 took $((SECONDS - _test_start))s)"
# Every end-to-end file except shared helpers (named _*.mjs); run.mjs prints the summary last.
for f in tests/e2e/[!_]*.mjs; do
  [[ "$f" == tests/e2e/run.mjs ]] && continue
  echo "--- $f"
  node "$f"
done
node tests/e2e/run.mjs
