// The one typed client of the lease server's HTTP API, used by the CLI, the Claude Code hook
// and the extension. Errors arrive as LeaseholdApiError with the server's code and field.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type {
  CreateTodoRequest,
  EndpointView,
  PatchEndpointRequest,
  TodoView,
  VendEndpointRequest,
  VendEndpointResponse,
} from '../core/wire/claims.ts';
import { readDiscovery } from '../runtime/discovery.ts';
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
    const discovery = readDiscovery(runtimeDir);
    if (!discovery) return undefined;
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

  health(): Promise<Health> {
    return this.call('GET', '/api/v1/health');
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

  // Todos
  async createTodo(request: CreateTodoRequest): Promise<TodoView> {
    return (await this.call<{ todo: TodoView }>('POST', '/api/v1/todos', { body: request })).todo;
  }
  async listTodos(filter: { queue?: string; state?: TodoView['state']; mine?: boolean } = {}): Promise<TodoView[]> {
    return (await this.call<{ todos: TodoView[] }>('GET', '/api/v1/todos', { query: filter })).todos;
  }
}
