#!/usr/bin/env bash
# Dev server: http://127.0.0.1:8080/ (rebuilds on change).
# Autoreload is off: trunk's reload snippet is an inline <script>, which the
# page's Content-Security-Policy (script-src 'self') blocks. Reload by hand.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$SISVIZ_ROOT"
# The user guide, served with the app at /guide/ (index.html copies build/guide/ into dist/).
# After editing guide/src/, run `mdbook build guide` again; trunk copies it on its next build.
mdbook build guide
echo "serve: http://127.0.0.1:8080/ (the guide: http://127.0.0.1:8080/guide/)"
exec trunk serve --address 127.0.0.1 --port 8080 --no-autoreload "$@"
