// The MCP SDK's own floor for bench/claims.ts's claim_next figure: the same SDK client against
// the SDK's server and streamable HTTP transport (JSON responses, a session, as Leasehold's
// /mcp serves them) on node:http in the same process, with tools `claim_next` and `complete`
// that do nothing and answer a body of the same size. What Leasehold adds is the difference.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { connectMcp } from '../../test/support/mcp.ts';

/** A claim_next answer's size, roughly: the no-op tools answer this much text. */
const ANSWER = JSON.stringify({ claimed: true, todo_id: 'td_0000000000_aaaaaaaaaaaa', claim_epoch: 1, lease_ttl_seconds: 300, lease_source: 'server', lease_expires_at: 0, title: 't0', notes: ['x'.repeat(160)] });

async function readBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text ? JSON.parse(text) : undefined;
}

/** Median claim_next latency (ms) of `count` claim_next + complete calls through the bare SDK. */
export async function mcpSdkFloor(count: number): Promise<number> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res, body);
    if (!isInitializeRequest(body)) {
      res.writeHead(400).end();
      return;
    }
    const server = new McpServer({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: { listChanged: true } } });
    const answer = async () => ({ content: [{ type: 'text' as const, text: ANSWER }] });
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
    for (let index = 0; index < count; index++) {
      const before = performance.now();
      await session.call('claim_next', { queue: 'bench' });
      latencies.push(performance.now() - before);
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
