#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than the lockfile.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "Installing npm dependencies ..." >&2
  bash scripts/with-node.sh npm ci --no-audit --no-fund >&2
fi
