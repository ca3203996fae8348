// /mcp: streamable HTTP MCP for endpoints (endpoint bearer token). One McpServer per session,
// built for the calling endpoint: its instructions state its default lease at initialize, its
// tools are the verbs its scope grants, and an edit of its default re-registers the
// lease-bearing tools on every live session (clients get notifications/tools/list_changed).
// A session's plain tools/call is answered by its tools directly, without the SDK's transport
// (directToolCall.ts: the same answer, without ~0.2 ms of conversions); the SDK answers the rest.
//
// Sessions are bounded: Claude Code never sends DELETE (not at the end of a -p run, not on
// /exit), so a session expires after idleTimeoutMs without a request, and at most
// maxSessions live at once (maxSessionsPerEndpoint per endpoint); past a cap the least
// recently used session is ended. A client that calls with an ended session gets the MCP
// answer for that (404, JSON-RPC -32001 "Session not found") and initializes a new one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Clock } from '../../core/clock.ts';
import { LeaseholdError } from '../../core/errors.ts';
import { hashToken } from '../auth/tokens.ts';
import type { ClaimService } from '../claims/claimService.ts';
import type { ClaimStore } from '../claims/claimStore.ts';
import type { EndpointRecord } from '../claims/records.ts';
import type { ChangeBus } from '../events.ts';
import type { SessionParts } from './sessionKit.ts';
import type { ToolRegistrar } from './sessionTools.ts';

/** The SDK and the session's tools, loaded on the first /mcp request (sessionKit.ts says why). */
type SessionKit = typeof import('./sessionKit.ts');
let sessionKit: Promise<SessionKit> | undefined;
const loadSessionKit = () => (sessionKit ??= import('./sessionKit.ts'));


export interface McpSessionLimits {
  /** A session with no request for this long is ended (default 15 min). */
  idleTimeoutMs?: number;
  /** Live sessions at once, all endpoints (default 256). */
  maxSessions?: number;
  /** Live sessions of one endpoint (default 32). */
  maxSessionsPerEndpoint?: number;
  /** How often idle sessions are swept (default a quarter of the idle timeout, at most 60 s). */
  sweepIntervalMs?: number;
  /** A monotonic clock for idleness (tests pass a ManualClock). */
  clock?: Clock;
}

export const DEFAULT_MCP_SESSION_LIMITS = { idleTimeoutMs: 15 * 60_000, maxSessions: 256, maxSessionsPerEndpoint: 32 } as const;

export interface McpGatewayOptions {
  claims: ClaimService;
  store: ClaimStore;
  bus: ChangeBus;
  version: string;
  registrars?: ToolRegistrar[];
  limits?: McpSessionLimits;
  /**
   * Answer a session's plain tools/call without the SDK's transport (directToolCall.ts; default
   * true). false leaves every request to the SDK: the equivalence tests compare the two.
   */
  directToolCalls?: boolean;
  onError?: (error: unknown) => void;
}

interface McpSession {
  endpointId: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  reregister: (endpointDefaultSeconds: number | null) => void;
  callDirectly: SessionParts['callDirectly'] | undefined;
  lastSeenMs: number;
}

const monotonicClock: Clock = { nowMs: () => performance.now() };

/** A JSON-RPC error answer, for requests /mcp cannot hand to a session. */
function sendRpcError(res: ServerResponse, status: number, id: unknown, code: number, message: string, data?: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data === undefined ? {} : { data }) } }));
}

function rpcIdOf(body: unknown): unknown {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
}

function rpcMethodOf(body: unknown): string | undefined {
  const method = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { method?: unknown }).method : undefined;
  return typeof method === 'string' ? method : undefined;
}

export class McpGateway {
  /** Live sessions in least-recently-used order (a request moves its session to the end). */
  private readonly sessions = new Map<string, McpSession>();
  private readonly unsubscribe: () => void;
  private readonly options: McpGatewayOptions;
  private readonly limits: Required<Omit<McpSessionLimits, 'clock' | 'sweepIntervalMs'>>;
  private readonly clock: Clock;
  private readonly sweeper: NodeJS.Timeout;
  private answeredDirectly = 0;

  constructor(options: McpGatewayOptions) {
    this.options = options;
    const limits = options.limits ?? {};
    this.limits = {
      idleTimeoutMs: limits.idleTimeoutMs ?? DEFAULT_MCP_SESSION_LIMITS.idleTimeoutMs,
      maxSessions: limits.maxSessions ?? DEFAULT_MCP_SESSION_LIMITS.maxSessions,
      maxSessionsPerEndpoint: limits.maxSessionsPerEndpoint ?? DEFAULT_MCP_SESSION_LIMITS.maxSessionsPerEndpoint,
    };
    this.clock = limits.clock ?? monotonicClock;
    this.sweeper = setInterval(() => this.sweepIdle(), limits.sweepIntervalMs ?? Math.min(60_000, this.limits.idleTimeoutMs / 4));
    this.sweeper.unref();
    this.unsubscribe = options.bus.subscribe((event) => {
      if (event.type === 'endpoint.changed' && event.change === 'edited') void this.reregisterFor(event.endpoint_id);
    });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const endpoint = await this.authenticate(req);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      // Another endpoint's session is as unknown as a missing one; an expired one is gone.
      if (!session || session.endpointId !== endpoint.id) {
        sendRpcError(res, 404, rpcIdOf(body), -32001, 'Session not found: it ended (idle, DELETE or server restart); initialize a new session', {
          error: { code: 'not_found', message: 'no such MCP session; initialize a new one', field: 'Mcp-Session-Id' },
        });
        return;
      }
      this.touch(sessionId, session);
      const direct = session.callDirectly?.(req, res, body);
      if (direct) this.answeredDirectly += 1;
      await (direct ?? session.transport.handleRequest(req, res, body));
      return;
    }
    const kit = await loadSessionKit();
    if (req.method === 'POST' && kit.isInitializeRequest(body)) {
      await this.startSession(kit, endpoint, req, res, body);
      return;
    }
    // JSON-RPC gets a JSON-RPC answer. Claude Code probes with server/discover (protocol
    // 2026-07-28) before initialize; method-not-found sends it to the initialize handshake.
    const method = rpcMethodOf(body);
    if (method === 'server/discover') {
      sendRpcError(res, 200, rpcIdOf(body), -32601, 'Method not found: server/discover; this server speaks MCP with an initialize handshake');
      return;
    }
    sendRpcError(res, 400, rpcIdOf(body), -32600, 'Bad Request: an MCP session starts with an initialize request (POST without Mcp-Session-Id)', {
      error: { code: 'invalid_argument', message: 'an MCP session starts with an initialize request', field: 'Mcp-Session-Id' },
    });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.unsubscribe();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => undefined)));
  }

  /** tools/call requests answered without the SDK's transport so far (directToolCall.ts). */
  get directCalls(): number {
    return this.answeredDirectly;
  }

  /** Ends every session idle longer than the timeout; returns how many. */
  sweepIdle(): number {
    const cutoff = this.clock.nowMs() - this.limits.idleTimeoutMs;
    let ended = 0;
    for (const [id, session] of this.sessions) {
      if (session.lastSeenMs > cutoff) break; // LRU order: the rest are fresher
      this.end(id, session);
      ended += 1;
    }
    return ended;
  }

  private touch(id: string, session: McpSession): void {
    session.lastSeenMs = this.clock.nowMs();
    this.sessions.delete(id);
    this.sessions.set(id, session);
  }

  private end(id: string, session: McpSession): void {
    this.sessions.delete(id);
    void session.server.close().catch((error: unknown) => this.options.onError?.(error));
  }

  /** Makes room for one more session of this endpoint: ends the least recently used past a cap. */
  private makeRoom(endpointId: string): void {
    this.sweepIdle();
    const own = [...this.sessions].filter(([, session]) => session.endpointId === endpointId);
    if (own.length >= this.limits.maxSessionsPerEndpoint) this.end(own[0]![0], own[0]![1]);
    if (this.sessions.size >= this.limits.maxSessions) {
      const [id, session] = this.sessions.entries().next().value!;
      this.end(id, session);
    }
  }

  private async startSession(kit: SessionKit, endpoint: EndpointRecord, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const { transport } = await kit.openSession({
      endpoint,
      claims: this.options.claims,
      version: this.options.version,
      registrars: this.options.registrars ?? [],
      onError: (error) => this.options.onError?.(error),
      onInitialized: (id, { server, transport, reregister, callDirectly }) => {
        this.makeRoom(endpoint.id);
        const direct = this.options.directToolCalls === false ? undefined : callDirectly;
        this.sessions.set(id, { endpointId: endpoint.id, server, transport, reregister, callDirectly: direct, lastSeenMs: this.clock.nowMs() });
      },
      onClosed: (id) => {
        if (id) this.sessions.delete(id);
      },
    });
    await transport.handleRequest(req, res, body);
  }

  private async authenticate(req: IncomingMessage): Promise<EndpointRecord> {
    const header = req.headers.authorization ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!token) throw new LeaseholdError('unauthenticated', 'an endpoint bearer token is required (Authorization: Bearer …)', { field: 'Authorization' });
    const endpoint = await this.options.store.findEndpointByTokenHash(hashToken(token));
    if (!endpoint) throw new LeaseholdError('unauthenticated', 'the endpoint token is not valid', { field: 'Authorization' });
    if (endpoint.state === 'revoked') {
      throw new LeaseholdError('conflict', `endpoint "${endpoint.slug}" is revoked`, { details: { state: endpoint.state } });
    }
    return endpoint;
  }

  /**
   * Re-reads every live session's endpoint (team mode: the change relay listens again after
   * the database went away, and an edit made through another server meanwhile went unheard).
   */
  async resync(): Promise<void> {
    for (const endpointId of new Set([...this.sessions.values()].map((session) => session.endpointId))) await this.reregisterFor(endpointId);
  }

  private async reregisterFor(endpointId: string): Promise<void> {
    const live = [...this.sessions.values()].filter((session) => session.endpointId === endpointId);
    if (live.length === 0) return;
    try {
      const endpoint = await this.options.store.getEndpoint(endpointId);
      if (!endpoint) return;
      for (const session of live) session.reregister(endpoint.default_lease_ttl_seconds);
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}
