#!/usr/bin/env bash
# `npm start`: installs what is missing, builds, and runs the lease server on the embedded
# SQLite default in the foreground. Extra arguments go to `leasehold serve`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/with-node.sh node scripts/build.mjs
# serve gives itself the server's memory settings (src/runtime/serverMemory.ts), keeping any
# you set in NODE_OPTIONS or the MALLOC_ variables.
exec bash scripts/with-node.sh node bin/leasehold.cjs serve "$@"
