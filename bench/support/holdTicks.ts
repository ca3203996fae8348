// The hold loop's renew tick figure of bench/claimPeers.ts (1,000 leases, SQLite then
// PostgreSQL), measured in a process of its own, as the MCP rounds are (mcpRounds.ts): in the
// bench's own process, after the peers' runs, the same ticks paid for collecting a heap that is
// the bench's, not a lease server's (SQLite's first three ticks 74.5 ms with 122.7 ms of CPU,
// against 33-37 ms in a process of their own, minutes apart; 2026-12-07). claimPeers starts
// it with the server's memory settings (src/runtime/serverMemory.ts): with a 1 MB young
// generation the first ticks collect more often than with Node's default. Prints the figures
// (ms, by storage) as the last line, as JSON.
import { postgresTarget, sqliteTarget } from '../../test/support/storage.ts';
import { holdLoop } from '../waitLeases.ts';

// The same database as the bench's (its environment is this process's).
const databaseUrl = process.env.LEASEHOLD_BENCH_DATABASE_URL ?? process.env.LEASEHOLD_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ticks: Record<string, number> = {};
for (const target of [sqliteTarget, postgresTarget(databaseUrl)]) ticks[target.name] = await holdLoop(target);
process.stdout.write(`${JSON.stringify(ticks)}\n`);
process.exit(0);
