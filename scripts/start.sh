#!/usr/bin/env bash
# `npm start`: installs what is missing, builds, and runs the lease server on the embedded
# SQLite default in the foreground. Extra arguments go to `leasehold serve`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
bash scripts/with-node.sh node scripts/build.mjs
# The server's memory settings (src/runtime/serverMemory.ts) from the start, so that serve need
# not re-execute itself for them; a MALLOC_ARENA_MAX you set is kept.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
exec bash scripts/with-node.sh node --max-semi-space-size=1 bin/leasehold.cjs serve "$@"
