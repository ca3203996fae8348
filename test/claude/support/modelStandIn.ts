/**
 * A scripted stand-in for the Anthropic Messages API on loopback — the ONLY fake in the
 * real-Claude-Code suites (there is no model here; everything else is the real `claude` CLI).
 *
 * API (reused by other suites, e.g. the MCP worker suite):
 *
 *   const model = await startModelStandIn();          // binds 127.0.0.1:0
 *   model.url                                         // -> ANTHROPIC_BASE_URL
 *   model.script(turn1, turn2, ...)                   // queue scripted replies, in order
 *   model.requests                                    // every POST /v1/messages body (parsed JSON)
 *   model.turnRequests()                              // only the requests that carry tools (the agent's turns)
 *   await model.waitForTurns(n, timeoutMs?)           // resolves once n scripted turns were served
 *   await model.close()
 *
 * A Turn is one assistant message, answered to the next request that carries `tools`
 * (the main agent's or a subagent's loop). Requests without tools (title generation, topic
 * detection, summaries — Claude Code sends some without `stream` too) get a short plain
 * answer and do not consume a turn. When the queue is empty a turn request gets
 * `fallback` (default: a plain "Done." end_turn).
 *
 *   text('hello')                                     // a plain answer (end_turn)
 *   toolUse('Bash', { command: 'sleep 30', run_in_background: true })
 *   toolUse(...) can be combined: turn([toolUse(a), toolUse(b)]) for several calls at once
 *   apiError(529, 'overloaded_error')                 // an HTTP error (Claude Code retries
 *                                                     // 5xx/529 unless CLAUDE_CODE_MAX_RETRIES=0)
 *
 * A turn may also be a function of the request (to answer based on tool results); it may
 * return a promise (to act on the world, e.g. edit an endpoint, before the model answers).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface TextBlock {
  type: 'text';
  text: string;
}
export type Block = ToolUseBlock | TextBlock;

export type Turn =
  | { kind: 'message'; blocks: Block[]; stopReason?: 'end_turn' | 'tool_use' }
  | { kind: 'error'; status: number; errorType: string; message: string }
  | ((request: MessagesRequest) => Turn | Promise<Turn>);

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: Array<{ name: string }>;
  messages?: Array<{ role: string; content: unknown }>;
  system?: unknown;
  [key: string]: unknown;
}

let toolUseCounter = 0;

export function text(value: string): Turn {
  return { kind: 'message', blocks: [{ type: 'text', text: value }], stopReason: 'end_turn' };
}

export function toolUse(name: string, input: Record<string, unknown>, id?: string): ToolUseBlock {
  toolUseCounter += 1;
  return { type: 'tool_use', id: id ?? `toolu_standin_${process.pid}_${toolUseCounter}`, name, input };
}

/** One assistant message with tool calls (and an optional leading text block). */
export function turn(blocks: Block[]): Turn {
  const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  return { kind: 'message', blocks, stopReason };
}

export function apiError(status = 400, errorType = 'invalid_request_error', message = 'scripted API error from the stand-in'): Turn {
  return { kind: 'error', status, errorType, message };
}

export interface ModelStandIn {
  url: string;
  requests: MessagesRequest[];
  script(...turns: Turn[]): void;
  /** Replaces the reply used when the script is exhausted. */
  setFallback(turn: Turn): void;
  turnRequests(): MessagesRequest[];
  servedTurns(): number;
  waitForTurns(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function isTurnRequest(body: MessagesRequest): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

function usage() {
  return { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function messageObject(blocks: Block[], stopReason: string | null, model: string) {
  return {
    id: `msg_standin_${Date.now()}_${Math.floor(Math.random() * 1e6)}`,
    type: 'message',
    role: 'assistant',
    model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: usage(),
  };
}

function writeSse(res: http.ServerResponse, blocks: Block[], stopReason: string, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': 'req_standin' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', { type: 'message_start', message: messageObject([], null, model) });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

export async function startModelStandIn(): Promise<ModelStandIn> {
  const queue: Turn[] = [];
  const requests: MessagesRequest[] = [];
  let fallback: Turn = text('Done.');
  let served = 0;
  const waiters: Array<() => void> = [];

  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => void answer());
    const answer = async () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || !path.endsWith('/v1/messages')) {
        // count_tokens and anything else: a harmless answer.
        if (path.endsWith('/count_tokens')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ input_tokens: 10 }));
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `stand-in: no ${req.method} ${path}` } }));
        return;
      }
      let body: MessagesRequest;
      try {
        body = JSON.parse(raw) as MessagesRequest;
      } catch {
        body = {};
      }
      requests.push(body);
      const model = typeof body.model === 'string' ? body.model : 'claude-standin';
      let reply: Turn;
      if (isTurnRequest(body)) {
        reply = queue.shift() ?? fallback;
        served += 1;
      } else {
        reply = text('Stand-in');
      }
      while (typeof reply === 'function') reply = await reply(body);
      if (reply.kind === 'error') {
        res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': 'req_standin' });
        res.end(JSON.stringify({ type: 'error', error: { type: reply.errorType, message: reply.message } }));
      } else if (body.stream) {
        writeSse(res, reply.blocks, reply.stopReason ?? 'end_turn', model);
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_standin' });
        res.end(JSON.stringify(messageObject(reply.blocks, reply.stopReason ?? 'end_turn', model)));
      }
      for (const wake of waiters.splice(0)) wake();
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...turns) => queue.push(...turns),
    setFallback: (turn) => (fallback = turn),
    turnRequests: () => requests.filter(isTurnRequest),
    servedTurns: () => served,
    async waitForTurns(count, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (served < count) {
        if (Date.now() > deadline) throw new Error(`stand-in served ${served} of ${count} turns`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
