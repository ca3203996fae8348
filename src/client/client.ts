// The one typed client of the lease server's HTTP API, used by the CLI, the Claude Code hook
// and the extension. Errors arrive as LeaseholdApiError with the server's code and field.
import type { ServerStatus } from '../core/wire/status.ts';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { openEventStream, type EventStreamHandle, type EventStreamHandlers } from './eventStream.ts';
import type {
  CreateTodoRequest,
  EndpointView,
  PatchEndpointRequest,
  ClaimEventView,
  TodoView,
  VendEndpointRequest,
  VendEndpointResponse,
} from '../core/wire/claims.ts';
import type { LedgerRow } from '../core/waitLease/ledger.ts';
import type { TtlSuggestion } from '../core/waitLease/ttlSuggest.ts';
import type { ShellExecutionReport } from '../core/waitLease/wire.ts';
import type { DeviceView } from '../core/wire/devices.ts';
import type {
  AcquireRequest,
  GrantResponse,
  HoldRequest,
  LeaseViewWire,
  LowerCeilingResponse,
  PaneViewWire,
  RegisterPaneRequest,
  ReleaseResponse,
  RenewResponse,
  SessionBindingWire,
  TeardownCheckRequest,
  TeardownCheckResponse,
  VerdictWire,
} from '../core/waitLease/wire.ts';
import { readDiscovery } from '../runtime/discovery.ts';
import { unsafeRuntimeDir, untrustedServer } from '../runtime/trust.ts';
import { runtimeFiles } from '../runtime/paths.ts';

export class LeaseholdApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, field?: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'LeaseholdApiError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.details = details;
  }
}

/** The server could not be reached at all (not running, wrong port, timed out). */
export class ServerUnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ServerUnreachableError';
  }
}

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  timeoutMs?: number;
}

export interface Health {
  ok: boolean;
  version: string;
  pid: number;
  storage: 'sqlite' | 'postgres';
  schema_version: number;
  started_at: number;
}

export type Query = Record<string, string | number | boolean | undefined>;

export class LeaseholdClient {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** A client for the server this user's runtime dir names (server.json + token file). */
  static fromRuntimeDir(runtimeDir: string, options: { timeoutMs?: number } = {}): LeaseholdClient | undefined {
    // The token goes only to a live server of this user named by a runtime dir nobody else can write.
    if (unsafeRuntimeDir(runtimeDir) !== null) return undefined;
    const discovery = readDiscovery(runtimeDir);
    if (!discovery || untrustedServer(discovery) !== null) return undefined;
    let token: string | undefined;
    try {
      token = readFileSync(runtimeFiles.token(runtimeDir), 'utf8').trim();
    } catch {
      token = undefined;
    }
    return new LeaseholdClient({ baseUrl: discovery.url, token, timeoutMs: options.timeoutMs });
  }

  async call<T>(method: string, path: string, options: { body?: unknown; query?: Query } = {}): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await request(url, {
        method: method as 'GET',
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (error) {
      throw new ServerUnreachableError(`cannot reach the lease server at ${this.baseUrl}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.body.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (response.statusCode >= 400) {
      const error = (parsed as { error?: { code?: string; message?: string; field?: string; details?: Record<string, unknown> } } | undefined)?.error;
      throw new LeaseholdApiError(
        response.statusCode,
        error?.code ?? 'http_error',
        error?.message ?? `HTTP ${response.statusCode}`,
        error?.field,
        error?.details,
      );
    }
    return parsed as T;
  }

  /** Follows GET /api/v1/events (Server-Sent Events) until closed or the stream ends. */
  openEventStream(handlers: EventStreamHandlers): EventStreamHandle {
    return openEventStream(this.baseUrl, this.token, handlers);
  }

  health(): Promise<Health> {
    return this.call('GET', '/api/v1/health');
  }

  /** The server's health and the hook delivery spool's state (pending, quarantined, last replay, last error). */
  status(): Promise<ServerStatus> {
    return this.call('GET', '/api/v1/status');
  }

  // Endpoints
  async listEndpoints(): Promise<EndpointView[]> {
    return (await this.call<{ endpoints: EndpointView[] }>('GET', '/api/v1/endpoints')).endpoints;
  }
  async getEndpoint(ref: string): Promise<EndpointView> {
    return (await this.call<{ endpoint: EndpointView }>('GET', `/api/v1/endpoints/${encodeURIComponent(ref)}`)).endpoint;
  }
  vendEndpoint(request: VendEndpointRequest): Promise<VendEndpointResponse> {
    return this.call('POST', '/api/v1/endpoints', { body: request });
  }
  async editEndpoint(ref: string, patch: PatchEndpointRequest): Promise<EndpointView> {
    return (await this.call<{ endpoint: EndpointView }>('PATCH', `/api/v1/endpoints/${encodeURIComponent(ref)}`, { body: patch })).endpoint;
  }
  async revokeEndpoint(ref: string): Promise<EndpointView> {
    return (await this.call<{ endpoint: EndpointView }>('POST', `/api/v1/endpoints/${encodeURIComponent(ref)}/revoke`)).endpoint;
  }
  async endpointClaims(ref: string): Promise<TodoView[]> {
    return (await this.call<{ claims: TodoView[] }>('GET', `/api/v1/endpoints/${encodeURIComponent(ref)}/claims`)).claims;
  }

  // Devices (team mode: one token per machine of a human)
  async listDevices(): Promise<DeviceView[]> {
    return (await this.call<{ devices: DeviceView[] }>('GET', '/api/v1/devices')).devices;
  }
  async revokeDevice(id: string): Promise<DeviceView> {
    return (await this.call<{ device: DeviceView }>('POST', `/api/v1/devices/${encodeURIComponent(id)}/revoke`)).device;
  }

  // Todos
  async createTodo(request: CreateTodoRequest): Promise<TodoView> {
    return (await this.call<{ todo: TodoView }>('POST', '/api/v1/todos', { body: request })).todo;
  }
  /** Hands a claimed todo back to its queue; the old holder's next fenced call fails with claim_ended. */
  async requeueTodo(todoId: string): Promise<TodoView> {
    return (await this.call<{ todo: TodoView }>('POST', `/api/v1/todos/${encodeURIComponent(todoId)}/requeue`)).todo;
  }
  async listTodos(filter: { queue?: string; state?: TodoView['state']; mine?: boolean } = {}): Promise<TodoView[]> {
    return (await this.call<{ todos: TodoView[] }>('GET', '/api/v1/todos', { query: filter })).todos;
  }

  // Panes and sessions
  /** A todo's claim events, oldest first. */
  async todoEvents(todoId: string): Promise<ClaimEventView[]> {
    return (await this.call<{ events: ClaimEventView[] }>('GET', `/api/v1/todos/${encodeURIComponent(todoId)}/events`)).events;
  }

  async registerPane(request: RegisterPaneRequest): Promise<PaneViewWire> {
    return (await this.call<{ pane: PaneViewWire }>('POST', '/api/v1/panes', { body: request })).pane;
  }
  async listPanes(): Promise<PaneViewWire[]> {
    return (await this.call<{ panes: PaneViewWire[] }>('GET', '/api/v1/panes')).panes;
  }
  async getPane(name: string): Promise<PaneViewWire> {
    return (await this.call<{ pane: PaneViewWire }>('GET', `/api/v1/panes/${encodeURIComponent(name)}`)).pane;
  }
  async closePane(name: string): Promise<PaneViewWire> {
    return (await this.call<{ pane: PaneViewWire }>('DELETE', `/api/v1/panes/${encodeURIComponent(name)}`)).pane;
  }
  async setPaneDisplay(name: string, state: 'idle' | 'working' | 'blocked' | 'done' | 'unknown'): Promise<PaneViewWire> {
    return (await this.call<{ pane: PaneViewWire }>('PUT', `/api/v1/panes/${encodeURIComponent(name)}/display`, { body: { state } })).pane;
  }
  bindSession(pane: string, sessionId: string): Promise<SessionBindingWire> {
    return this.call('POST', `/api/v1/panes/${encodeURIComponent(pane)}/sessions`, { body: { session_id: sessionId } });
  }
  getSession(sessionId: string): Promise<SessionBindingWire> {
    return this.call('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}`);
  }
  releaseSession(sessionId: string, reason?: string): Promise<{ released: string[] }> {
    return this.call('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/release-all`, { body: reason === undefined ? {} : { reason } });
  }
  paneVerdict(pane: string): Promise<VerdictWire> {
    return this.call('GET', `/api/v1/panes/${encodeURIComponent(pane)}/verdict`);
  }

  // Wait-leases
  acquireWaitLease(request: AcquireRequest & { session_id?: string }): Promise<GrantResponse> {
    return this.call('POST', '/api/v1/wait-leases', { body: request });
  }
  holdWaitLease(request: HoldRequest & { session_id?: string }): Promise<GrantResponse> {
    return this.call('POST', '/api/v1/wait-leases/hold', { body: request });
  }
  renewWaitLease(leaseId: string, body: { token: string; ttl_ms: number; evidence?: unknown; authorized_until?: number }): Promise<RenewResponse> {
    return this.call('POST', `/api/v1/wait-leases/${encodeURIComponent(leaseId)}/renew`, { body });
  }
  releaseWaitLease(leaseId: string, token: string, reason?: string): Promise<ReleaseResponse> {
    return this.call('POST', `/api/v1/wait-leases/${encodeURIComponent(leaseId)}/release`, { body: reason === undefined ? { token } : { token, reason } });
  }
  lowerWaitLeaseCeiling(leaseId: string, token: string, authorizedUntil: number): Promise<LowerCeilingResponse> {
    return this.call('POST', `/api/v1/wait-leases/${encodeURIComponent(leaseId)}/ceiling`, { body: { token, authorized_until: authorizedUntil } });
  }
  releaseWaitLeaseByOwner(leaseId: string, reason?: string): Promise<ReleaseResponse> {
    return this.call('POST', `/api/v1/wait-leases/${encodeURIComponent(leaseId)}/release-by-owner`, { body: reason === undefined ? {} : { reason } });
  }
  async listWaitLeases(filter: { pane?: string; state?: LeaseViewWire['state']; session_id?: string; limit?: number } = {}): Promise<LeaseViewWire[]> {
    return (await this.call<{ leases: LeaseViewWire[] }>('GET', '/api/v1/wait-leases', { query: filter })).leases;
  }
  async getWaitLease(leaseId: string): Promise<LeaseViewWire> {
    return (await this.call<{ lease: LeaseViewWire }>('GET', `/api/v1/wait-leases/${encodeURIComponent(leaseId)}`)).lease;
  }
  async consumeExpiredNotice(leaseId: string): Promise<LeaseViewWire> {
    return (await this.call<{ lease: LeaseViewWire }>('POST', `/api/v1/wait-leases/${encodeURIComponent(leaseId)}/notice-consumed`)).lease;
  }
  teardownCheck(request: TeardownCheckRequest): Promise<TeardownCheckResponse> {
    return this.call('POST', '/api/v1/teardown-check', { body: request });
  }
  /** A shell-integration report for a pane (the extension's): feeds the inferred tier. */
  reportShellExecution(pane: string, report: ShellExecutionReport): Promise<{ pane: string; generation: number; ended: string[] }> {
    return this.call('POST', `/api/v1/panes/${encodeURIComponent(pane)}/shell-executions`, { body: report });
  }
  /** Measured-TTL suggestions per job type: shown, never applied. */
  async ledgerSuggestions(filter: { kind?: 'declared' | 'inferred'; since?: number; percentile?: number; min_samples?: number } = {}): Promise<TtlSuggestion[]> {
    return (await this.call<{ suggestions: TtlSuggestion[] }>('GET', '/api/v1/ledger/suggestions', { query: filter })).suggestions;
  }
  async ledger(filter: { job_type?: string; kind?: string; end_reason?: 'released' | 'expired' | 'orphaned'; since?: number; limit?: number } = {}): Promise<LedgerRow[]> {
    return (await this.call<{ rows: LedgerRow[] }>('GET', '/api/v1/ledger', { query: filter })).rows;
  }
}
