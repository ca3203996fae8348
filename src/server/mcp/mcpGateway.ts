// /mcp: streamable HTTP MCP for endpoints (endpoint bearer token). One McpServer per session,
// built for the calling endpoint: its instructions state its default lease at initialize, its
// tools are the verbs its scope grants, and an edit of its default re-registers the
// lease-bearing tools on every live session (clients get notifications/tools/list_changed).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { LeaseholdError } from '../../core/errors.ts';
import { mcpInstructions } from '../../core/mcpText.ts';
import { hashToken } from '../auth/tokens.ts';
import type { ClaimService } from '../claims/claimService.ts';
import type { ClaimStore } from '../claims/claimStore.ts';
import type { EndpointRecord } from '../claims/records.ts';
import type { ChangeBus } from '../events.ts';
import { registerClaimTools } from './claimTools.ts';

/** Adds more tools to a session (the wait-lease verbs register themselves this way). */
export type ToolRegistrar = (server: McpServer, endpoint: EndpointRecord) => void;

export interface McpGatewayOptions {
  claims: ClaimService;
  store: ClaimStore;
  bus: ChangeBus;
  version: string;
  registrars?: ToolRegistrar[];
  onError?: (error: unknown) => void;
}

interface McpSession {
  endpointId: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  reregister: (endpointDefaultSeconds: number | null) => void;
}

export class McpGateway {
  private readonly sessions = new Map<string, McpSession>();
  private readonly unsubscribe: () => void;

  private readonly options: McpGatewayOptions;

  constructor(options: McpGatewayOptions) {
    this.options = options;
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
      // Another endpoint's session is as unknown as a missing one.
      if (!session || session.endpointId !== endpoint.id) {
        throw new LeaseholdError('not_found', 'no such MCP session; initialize a new one', { field: 'Mcp-Session-Id' });
      }
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      throw new LeaseholdError('invalid_argument', 'an MCP session starts with an initialize request (POST without Mcp-Session-Id)', {
        field: 'Mcp-Session-Id',
      });
    }
    await this.startSession(endpoint, req, res, body);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => undefined)));
  }

  private async startSession(endpoint: EndpointRecord, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = new McpServer(
      { name: 'leasehold', version: this.options.version },
      {
        instructions: mcpInstructions(endpoint.slug, endpoint.default_lease_ttl_seconds),
        capabilities: { tools: { listChanged: true } },
      },
    );
    const { reregister } = registerClaimTools(server, endpoint, this.options.claims);
    for (const registrar of this.options.registrars ?? []) registrar(server, endpoint);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { endpointId: endpoint.id, server, transport, reregister });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
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
