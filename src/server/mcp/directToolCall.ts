// A session's tools/call answered without the SDK's transport and protocol layers. On that
// path a call is converted to a web Request and back (@hono/node-server), parsed by zod four
// times (the JSON-RPC message, the request twice, the result once) and written through a
// ReadableStream: about 0.2 ms of the 0.8 an MCP claim_next took end to end, more than the
// claim itself. The call's handler is the same either way (SessionTools.call, which the SDK's
// tools/call handler also runs), so the answer is the same; test/server/mcpDirectCalls.test.ts
// holds the two paths to that.
//
// Only a request the SDK would take as it stands is answered here: one JSON-RPC request object
// with exactly the SDK's keys, the headers its transport requires, a protocol version it
// supports, and none of the extensions this path does not serve (task-augmented calls, related
// tasks). Anything else goes to the SDK, which answers it as it always has, refusals included.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RELATED_TASK_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface ToolCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/** What the SDK's transport requires of a POST's headers (it answers 406, 415 or 400 otherwise). */
function headersAsTheSdkRequires(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
  // The exact type SDK clients send; any other spelling is the SDK's to judge.
  if (req.headers['content-type'] !== 'application/json') return false;
  const version = req.headers['mcp-protocol-version'];
  return version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version));
}

/** The tools/call in this POST when it can be answered directly; undefined sends the request to the SDK. */
export function directToolCall(req: IncomingMessage, body: unknown): ToolCall | undefined {
  if (req.method !== 'POST' || !isPlainObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0') return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !onlyKeys(body, REQUEST_KEYS)) return undefined;
  if (!isPlainObject(params) || typeof params.name !== 'string' || !onlyKeys(params, PARAMS_KEYS)) return undefined;
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const meta = params._meta;
  if (meta !== undefined && (!isPlainObject(meta) || RELATED_TASK_META_KEY in meta)) return undefined;
  if (!headersAsTheSdkRequires(req)) return undefined;
  return { id: id as string | number, name: params.name, args };
}

/** The JSON-RPC answer as the SDK's transport writes it in JSON response mode. */
export function sendToolResult(res: ServerResponse, sessionId: string, id: string | number, result: CallToolResult): void {
  res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId });
  res.end(JSON.stringify({ result, jsonrpc: '2.0', id }));
}
