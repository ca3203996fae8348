// Delivery of one hook event `{id, ops}` to the lease server: POST /api/v1/hook-events with a
// short retry and backoff, then, if the server still cannot be reached, the spool
// (<runtime dir>/spool, atomic tmp+rename) that the server replays in order on start and on
// its tick. The id was assigned before the first attempt, so a request that reached the
// server but timed out here, then spooled too, is applied once (the server dedupes by id).
//
// Deliberately node:http and a hand-read server.json rather than the typed client (undici,
// zod): this runs in a process Claude Code starts for every hook, where each module loaded
// is startup time added to the user's turn. node:http comes through src/runtime/builtins.ts,
// not an ESM import: the ESM namespace of a built-in reads every export, and node:http's
// lazy WebSocket/EventSource getters then load undici, about 70 ms of the hook's run.
import type { HookEvent } from '../core/wire/hookOps.ts';
import type { HookLog } from './hookLog.ts';
import { spoolEvent } from './spool.ts';
import { nodeFs, nodeHttp } from '../runtime/builtins.ts';
import { runtimeFiles } from '../runtime/paths.ts';
import { unsafeRuntimeDir, untrustedServer } from '../runtime/trust.ts';

// node:fs through builtins.ts: an ESM import of it costs the hook process ~6 ms (see there).
const { readFileSync } = nodeFs();

export const HOOK_EVENTS_PATH = '/api/v1/hook-events';

export interface ServerAddress {
  url: string;
  token: string | undefined;
}

/** server.json's url and the token file, or undefined when no server has published itself. */
export function findServer(runtimeDir: string): ServerAddress | undefined {
  let discovery: { url?: unknown; pid?: unknown };
  try {
    discovery = JSON.parse(readFileSync(runtimeFiles.discovery(runtimeDir), 'utf8')) as { url?: unknown; pid?: unknown };
  } catch {
    return undefined;
  }
  // The human token goes only to a live server of this user, named in a dir nobody else can write (else: spool).
  if (unsafeRuntimeDir(runtimeDir) !== null || untrustedServer(discovery) !== null) return undefined;
  const url = discovery.url as string;
  let token: string | undefined;
  try {
    token = readFileSync(runtimeFiles.token(runtimeDir), 'utf8').trim() || undefined;
  } catch {
    token = undefined;
  }
  return { url: url.replace(/\/$/, ''), token };
}

export interface HttpAnswer {
  status: number;
  text: string;
}

/** One POST with a hard deadline; rejects on connection errors and on the deadline. */
export function postJson(url: string, token: string | undefined, body: string, timeoutMs: number): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      accept: 'application/json',
      connection: 'close',
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = nodeHttp().request(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

export type DeliveryOutcome =
  | { kind: 'delivered'; attempts: number; status: number; text: string }
  | { kind: 'spooled'; attempts: number; lastError: string }
  /** The server understood and refused the event (400, 413): replaying it could never succeed. */
  | { kind: 'refused'; attempts: number; status: number; text: string };

export interface DeliveryOptions {
  runtimeDir: string;
  /** Per-attempt deadlines; their count is the number of attempts. */
  attemptTimeoutsMs?: number[];
  /** Pause before attempt n+1. */
  backoffMs?: number[];
  log?: HookLog;
  sleep?: (ms: number) => Promise<void>;
  /** Tests and the benchmark only: skip HTTP and spool at once. */
  post?: typeof postJson;
}

/** About 1.5 s in the worst case: three tries, 100 and 200 ms apart. Claude Code's hook timeout is 10 s. */
export const DEFAULT_ATTEMPT_TIMEOUTS_MS = [300, 400, 500];
export const DEFAULT_BACKOFF_MS = [100, 200];

/** 4xx other than these is final; these may heal (server restarting, token rotated, budget). */
const RETRYABLE_CLIENT_STATUSES = new Set([401, 403, 404, 405, 408, 409, 425, 429]);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function deliverHookEvent(event: HookEvent, options: DeliveryOptions): Promise<DeliveryOutcome> {
  const timeouts = options.attemptTimeoutsMs ?? DEFAULT_ATTEMPT_TIMEOUTS_MS;
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const sleep = options.sleep ?? defaultSleep;
  const post = options.post ?? postJson;
  const body = JSON.stringify(event);
  let lastError = 'no attempt made';
  let attempts = 0;
  for (let attempt = 0; attempt < timeouts.length; attempt++) {
    if (attempt > 0) await sleep(backoff[Math.min(attempt - 1, backoff.length - 1)] ?? 0);
    attempts++;
    // Re-read every time: a server that just (re)started publishes a new port and token.
    const server = findServer(options.runtimeDir);
    if (server === undefined) {
      // No discovery file: no server is running (one that starts publishes it only once it
      // listens, and replays the spool then). Waiting would only delay Claude Code.
      lastError = `no server.json in ${options.runtimeDir}`;
      break;
    }
    try {
      const answer = await post(server.url + HOOK_EVENTS_PATH, server.token, body, timeouts[attempt]!);
      if (answer.status >= 200 && answer.status < 300) return { kind: 'delivered', attempts, status: answer.status, text: answer.text };
      if (answer.status >= 400 && answer.status < 500 && !RETRYABLE_CLIENT_STATUSES.has(answer.status)) {
        return { kind: 'refused', attempts, status: answer.status, text: answer.text };
      }
      lastError = `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
  }
  spoolEvent(runtimeFiles.spool(options.runtimeDir), event as unknown as Record<string, unknown>);
  return { kind: 'spooled', attempts, lastError };
}
