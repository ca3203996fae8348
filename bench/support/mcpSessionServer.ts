// A lease server in its own process for bench/mcpSessions.ts, so the figures are the
// server's own memory (also bench/claimPeers.ts). argv[2]: JSON McpSessionLimits. Prints
// {url, token (the endpoint's), humanToken} on one line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';

const limits = JSON.parse(process.argv[2] ?? '{}') as Record<string, number>;
const dir = mkdtempSync(join(tmpdir(), 'leasehold-bench-mcp-'));
const server = await startLeaseServer({
  storage: { kind: 'sqlite', dataDir: dir },
  runtimeDir: dir,
  logger: silentLogger,
  clock: systemClock,
  singleInstance: false,
  writeRateLimit: { capacity: 1_000_000, refillPerSecond: 1_000_000 },
  mcpSessions: limits,
});
const vended = await server.claims.vendEndpoint(server.human, { slug: 'bench' });
process.stdout.write(`${JSON.stringify({ url: server.url, token: vended.token, humanToken: server.token })}\n`);
// The bench asks over IPC how many sessions are live.
process.on('message', () => {
  (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ sessions: server.mcp.sessionCount, heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20 });
});
process.on('SIGTERM', () =>
  void server.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }),
);
