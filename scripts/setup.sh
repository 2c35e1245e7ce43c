#!/usr/bin/env bash
# Installs everything sisviz needs to build and test, skipping what is already there.
# Run it directly (`bash scripts/setup.sh`) or source it (scripts/test.sh and
# scripts/serve.sh do) to also get PATH exported into the calling shell.
#
# Nothing here downloads a binary from outside the package registries:
#   - Rust tools come from crates.io via `cargo install` (trunk, wasm-bindgen-cli, mdbook),
#   - Chromium + chromedriver from Debian (apt),
#   - wasm-opt (binaryen@132) and playwright-core from npm (see package.json).
set -euo pipefail

SISVIZ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SISVIZ_ROOT
export PATH="$HOME/.cargo/bin:$SISVIZ_ROOT/node_modules/.bin:$PATH"
export DEBIAN_FRONTEND=noninteractive

TRUNK_VERSION="0.21.14"
MDBOOK_VERSION="0.5.4"
export MDBOOK_VERSION
CHROMIUM_BIN="/usr/bin/chromium"
CHROMEDRIVER_BIN="/usr/bin/chromedriver"
export CHROMEDRIVER="$CHROMEDRIVER_BIN"

_setup_start=$SECONDS
_step() { printf 'setup: %s\n' "$*"; }

# wasm-bindgen-cli must be exactly the wasm-bindgen version in Cargo.lock.
WASM_BINDGEN_VERSION="$(awk '
  $0 == "name = \"wasm-bindgen\"" { found = 1; next }
  found && /^version = / { gsub(/"/, "", $3); print $3; exit }
' "$SISVIZ_ROOT/Cargo.lock")"
if [[ -z "$WASM_BINDGEN_VERSION" ]]; then
  echo "setup: could not read the wasm-bindgen version from Cargo.lock" >&2
  exit 1
fi
export WASM_BINDGEN_VERSION

_apt_updated=0
_apt_install() {
  if [[ $_apt_updated -eq 0 ]]; then
    apt-get update -qq
    _apt_updated=1
  fi
  apt-get install -y -qq "$@" >/dev/null
}

# 1. Rust components and the wasm target.
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found (expected rustup in ~/.cargo/bin)" >&2
  exit 1
fi
_missing_components=()
cargo fmt --version >/dev/null 2>&1 || _missing_components+=(rustfmt)
cargo clippy --version >/dev/null 2>&1 || _missing_components+=(clippy)
if [[ ${#_missing_components[@]} -gt 0 ]]; then
  _step "rustup component add ${_missing_components[*]}"
  rustup component add "${_missing_components[@]}"
else
  _step "rustfmt + clippy present, skip"
fi

if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  _step "target wasm32-unknown-unknown present, skip"
else
  _step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. trunk (pinned, --locked: its own lockfile is known to build).
if [[ "$(trunk --version 2>/dev/null || true)" == "trunk $TRUNK_VERSION" ]]; then
  _step "trunk $TRUNK_VERSION present, skip"
else
  _step "cargo install trunk $TRUNK_VERSION --locked (slow: ~15 min on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

# 3. wasm-bindgen-cli at the Cargo.lock version (no --locked: its old lockfile
#    does not build with current rustc). Also provides wasm-bindgen-test-runner.
if [[ "$(wasm-bindgen --version 2>/dev/null || true)" == "wasm-bindgen $WASM_BINDGEN_VERSION" ]] \
  && command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
  _step "wasm-bindgen-cli $WASM_BINDGEN_VERSION present, skip"
else
  _step "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (slow: ~5 min)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# 4. mdbook (pinned, --locked, only its search feature: no `mdbook serve`/`watch` and their
#    web server), which builds the user guide (guide/ -> build/guide/, served at /guide/).
#    123 crates, ~2.5 min on 2 cores.
if [[ "$(mdbook --version 2>/dev/null || true)" == "mdbook v$MDBOOK_VERSION" ]]; then
  _step "mdbook $MDBOOK_VERSION present, skip"
else
  _step "cargo install mdbook $MDBOOK_VERSION --locked --no-default-features --features search (~2.5 min)"
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --features search
fi

# 5. Chromium + chromedriver from Debian (browser tests and e2e).
if [[ -x "$CHROMIUM_BIN" && -x "$CHROMEDRIVER_BIN" ]]; then
  _step "chromium + chromedriver present, skip"
else
  _step "apt-get install chromium chromium-driver"
  _apt_install chromium chromium-driver
fi

# 6. Node + npm devDependencies (wasm-opt from binaryen@132, playwright-core).
if ! command -v npm >/dev/null 2>&1; then
  _step "apt-get install nodejs npm (node >= 20 required)"
  _apt_install nodejs npm
fi
_node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [[ "$_node_major" -lt 20 ]]; then
  echo "setup: node >= 20 required (playwright-core), found $(node --version)" >&2
  exit 1
fi
_stamp="$SISVIZ_ROOT/node_modules/.package-lock.json"
if [[ -f "$_stamp" && "$_stamp" -nt "$SISVIZ_ROOT/package-lock.json" && "$_stamp" -nt "$SISVIZ_ROOT/package.json" ]] \
  && [[ -x "$SISVIZ_ROOT/node_modules/.bin/wasm-opt" && -d "$SISVIZ_ROOT/node_modules/playwright-core" ]]; then
  _step "node_modules up to date, skip npm ci"
else
  if [[ -f "$SISVIZ_ROOT/package-lock.json" ]]; then
    _step "npm ci"
    (cd "$SISVIZ_ROOT" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  else
    _step "npm install (no package-lock.json)"
    (cd "$SISVIZ_ROOT" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  touch "$_stamp"
fi

_wasm_opt_version="$(wasm-opt --version 2>/dev/null || true)"
if [[ "$_wasm_opt_version" != *"version_132"* ]]; then
  echo "setup: expected wasm-opt version_132 on PATH, got '$_wasm_opt_version'" >&2
  exit 1
fi

_step "ready in $((SECONDS - _setup_start))s: $(trunk --version), $(wasm-bindgen --version), $(mdbook --version), ${_wasm_opt_version}, node $(node --version)"
