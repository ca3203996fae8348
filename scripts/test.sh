#!/usr/bin/env bash
# `npm test`: type-check, build, then unit, server and CLI suites. Storage-dependent suites
# also run against PostgreSQL when LEASEHOLD_TEST_DATABASE_URL is set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/ensure-deps.sh
run() { bash scripts/with-node.sh "$@"; }
run tsc -p . --noEmit
run node scripts/build.mjs
# One suite run at a time per machine: parallel runs from several checkouts (each spawning
# hundreds of hook processes) starve each other's timing-sensitive tests.
exec 9>"${TMPDIR:-/tmp}/leasehold-npm-test.lock"
flock 9
run mocha 'test/unit/**/*.test.ts' 'test/server/**/*.test.ts' 'test/cli/**/*.test.ts' 'test/fault/**/*.test.ts'
