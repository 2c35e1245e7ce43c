#!/usr/bin/env bash
# Full check, in order, stopping at the first failure. CI runs this via .ci/run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$SISVIZ_ROOT"

_test_start=$SECONDS
stage() {
  printf '\n==================== %s ====================\n' "$*"
}

stage "1/8 cargo fmt --all --check"
cargo fmt --all --check

stage "2/8 cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

stage "3/8 cargo test --workspace (native)"
cargo test --workspace

# The quick benchmarks (criterion, ~1 min): printed for the README's figures, never gated
# (a timed test would fail on a loaded machine; compare the ratios to the minimal loop).
echo "--- quick benchmarks: cargo bench -p sis-core --bench wakeups --bench replay"
cargo bench -p sis-core --bench wakeups --bench replay 2>&1 \
  | grep -E '^[a-z_0-9.-]+/[a-z_0-9.-]+|^ +(time|thrpt):' | sed 's/^/bench: /'

stage "4/8 cargo build -p sis-core --target wasm32-unknown-unknown"
cargo build -p sis-core --target wasm32-unknown-unknown

stage "5/8 wasm-bindgen-test in headless Chromium (-p sisviz)"
CHROMEDRIVER="$CHROMEDRIVER_BIN" cargo test --target wasm32-unknown-unknown -p sisviz

stage "6/8 trunk build --release --offline --cargo-profile wasm-release"
trunk build --release --offline --cargo-profile wasm-release

stage "7/8 gzipped size of dist/"
gz_size() { # total gzip -9 size of the given files
  local total=0 f
  for f in "$@"; do
    total=$((total + $(gzip -9 -c "$f" | wc -c)))
  done
  echo "$total"
}
mapfile -t wasm_files < <(find dist -type f -name '*.wasm' | sort)
# What the page loads: the wasm, trunk's JS glue and the boot module. The embed API, the sweep
# worker and the examples page load later (or elsewhere) and are listed, not counted.
mapfile -t js_files < <(find dist -maxdepth 1 -type f -name '*.js' | sort; echo dist/static/boot.js)
mapfile -t other_js < <(find dist/static -type f -name '*.js' ! -name boot.js | sort)
if [[ ${#wasm_files[@]} -eq 0 ]]; then
  echo "no .wasm in dist/" >&2
  exit 1
fi
for f in "${wasm_files[@]}" "${js_files[@]}" "${other_js[@]}"; do
  printf '  %-48s raw=%8d gz=%8d\n' "$f" "$(wc -c <"$f")" "$(gzip -9 -c "$f" | wc -c)"
done
wasm_gz=$(gz_size "${wasm_files[@]}")
js_gz=$(gz_size "${js_files[@]}")
echo "size (what the page loads): app.wasm.gz=${wasm_gz} bytes js.gz=${js_gz} bytes total=$((wasm_gz + js_gz))"
# Issue 15's budget: under 350 KB gzipped (plotters included).
if (( wasm_gz + js_gz >= 350000 )); then
  echo "size: over the 350 KB budget" >&2
  exit 1
fi

stage "8/8 end-to-end (node tests/e2e/*.mjs, headless Chromium)"
echo "(stages 1-7 took $((SECONDS - _test_start))s)"
# Every end-to-end file except shared helpers (named _*.mjs); run.mjs prints the summary last.
for f in tests/e2e/[!_]*.mjs; do
  [[ "$f" == tests/e2e/run.mjs ]] && continue
  echo "--- $f"
  node "$f"
done
node tests/e2e/run.mjs
