// The MCP SDK's own floor for bench/claims.ts's claim_next figure: the same SDK client against
// the SDK's server and streamable HTTP transport (JSON responses, a session, as Leasehold's
// /mcp serves them) on node:http in the same process, with tools `claim_next` and `complete`
// that do nothing and answer what a real claim answers (Leasehold's toolResult of a claim of
// the same fields, 552 bytes of text). What Leasehold adds is the difference.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { readJsonBody } from '../../src/server/http/requestGuards.ts';
import { toolResult } from '../../src/server/mcp/sessionTools.ts';
import { connectMcp } from '../../test/support/mcp.ts';

/**
 * Calls made before the measured ones, in every MCP figure (Leasehold's and the SDK alone's):
 * the first few hundred calls of a process compile the SDK client's and server's code, and
 * whichever path ran first would pay for the other.
 */
export const MCP_WARMUP = 200;

/** A claim_next answer as Leasehold gives one (its fields, as the SQLite bench's first claim had them). */
const CLAIM = {
  claimed: true,
  lease_note:
    'Lease granted 300 seconds (5m) from now, from the server default; it expires in 5m (at 2026-12-02T12:05:00.000Z). A call without lease_ttl_seconds now gets 300 seconds (5m, the server default).',
  todo_id: 'td_0mx7rwprm4YQaxvIG',
  queue: 'bench',
  title: 't0',
  payload: null,
  claim_epoch: 1,
  lease_ttl_seconds: 300,
  lease_source: 'server',
  lease_expires_at: 1796213100000,
  lease_remaining_ms: 300000,
  default_lease_ttl_seconds_now: 300,
  default_lease_source_now: 'server',
};

/** Median claim_next latency (ms) of `count` claim_next + complete calls through the bare SDK, after MCP_WARMUP unmeasured. */
export async function mcpSdkFloor(count: number): Promise<number> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await readJsonBody(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res, body);
    if (!isInitializeRequest(body)) {
      res.writeHead(400).end();
      return;
    }
    const server = new McpServer({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: { listChanged: true } } });
    const answer = async () => toolResult(CLAIM);
    server.registerTool('claim_next', { description: 'does nothing', inputSchema: { queue: z.string() } }, answer);
    server.registerTool('complete', { description: 'does nothing', inputSchema: { todo_id: z.string(), claim_epoch: z.number() } }, answer);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id): void => void transports.set(id, transport),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const http = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  try {
    const session = await connectMcp(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, 'unused');
    const latencies: number[] = [];
    for (let index = 0; index < MCP_WARMUP + count; index++) {
      const before = performance.now();
      await session.call('claim_next', { queue: 'bench' });
      if (index >= MCP_WARMUP) latencies.push(performance.now() - before);
      await session.call('complete', { todo_id: 'td', claim_epoch: 1 });
    }
    await session.close();
    latencies.sort((a, b) => a - b);
    return latencies[latencies.length >> 1]!;
  } finally {
    for (const transport of transports.values()) await transport.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
}
