// MCP session memory (issue 10 item 4): 3,000 initialize-and-abandon sessions against a
// server in its own process, with the default session bounds and, as the peer in the same
// run, with the bounds lifted (what every server did before sessions expired). Prints the
// server's resident memory before, during and after, and sessions still live.
// Run: `npm run bench -- mcpSessions`.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MCP_SESSION_LIMITS } from '../src/server/mcp/mcpGateway.ts';
import { report, rssMb } from './stats.ts';

const SESSIONS = Number(process.env.BENCH_MCP_SESSIONS ?? 3000);
const CONCURRENCY = 8;
const INIT = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'abandon', version: '0' } } });

async function startServer(limits: Record<string, number>): Promise<{ child: ChildProcess; url: string; token: string }> {
  const script = fileURLToPath(new URL('./support/mcpSessionServer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', script, JSON.stringify(limits)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, ...(JSON.parse(line) as { url: string; token: string }) };
}

async function abandonLoop(label: string, limits: Record<string, number>): Promise<number> {
  const { child, url, token } = await startServer(limits);
  const pid = child.pid!;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const initOnce = async (id: number) => {
    const response = await fetch(`${url}/mcp`, { method: 'POST', headers, body: INIT(id) });
    await response.text();
    if (!response.ok) throw new Error(`initialize answered ${response.status}`);
  };
  const heap = async () => {
    child.send('count');
    return ((await once(child, 'message')) as [{ sessions: number; heapUsedMb: number }])[0];
  };
  for (let id = 0; id < 50; id++) await initOnce(id); // warm up code paths before the baseline
  const before = rssMb(pid);
  const heapBefore = (await heap()).heapUsedMb;
  const marks: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < SESSIONS) {
        const id = next++;
        await initOnce(id + 1000);
        if ((id + 1) % 1000 === 0) marks.push(`${id + 1}:${rssMb(pid).toFixed(0)}MB`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = rssMb(pid);
  const { sessions: live, heapUsedMb: heapAfter } = await heap();
  report(`mcp initialize-and-abandon x${SESSIONS}, ${label}`, {
    rss_before_mb: before.toFixed(0),
    rss_after_mb: after.toFixed(0),
    rss_growth_mb: (after - before).toFixed(0),
    heap_after_gc_growth_mb: (heapAfter - heapBefore).toFixed(1),
    live_sessions: live,
    rss_marks: marks.sort((a, b) => Number(a.split(':')[0]) - Number(b.split(':')[0])).join(','),
    seconds: seconds.toFixed(1),
  });
  child.kill('SIGTERM');
  await once(child, 'exit');
  return heapAfter - heapBefore;
}

export async function benchMcpSessions(): Promise<void> {
  const bounded = await abandonLoop(
    `bounded (max ${DEFAULT_MCP_SESSION_LIMITS.maxSessions}, ${DEFAULT_MCP_SESSION_LIMITS.maxSessionsPerEndpoint}/endpoint)`,
    {},
  );
  const unbounded = await abandonLoop('bounds lifted (peer)', { maxSessions: 1e9, maxSessionsPerEndpoint: 1e9 });
  report('mcp session heap after GC, bounded vs lifted', { ratio: (bounded / unbounded).toFixed(3), per_live_session_kb: ((unbounded * 1024) / (SESSIONS + 50)).toFixed(0) });
}
