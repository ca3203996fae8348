// What an MCP session is made of: the SDK's server and transport, with this endpoint's tools.
// mcpGateway.ts imports this module on the first /mcp request, not at server start: the SDK
// (its zod schemas of the whole protocol, the transport, @hono/node-server) is about 5 MB
// resident that a server whose agents never connect over MCP does not need.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpInstructions } from '../../core/mcpText.ts';
import type { ClaimService } from '../claims/claimService.ts';
import type { EndpointRecord } from '../claims/records.ts';
import { registerClaimTools } from './claimTools.ts';
import { directToolCall, sendToolResult } from './directToolCall.ts';
import { SessionTools, type ToolRegistrar } from './sessionTools.ts';

export { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export interface SessionParts {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  reregister: (endpointDefaultSeconds: number | null) => void;
  /**
   * Answers a plain tools/call with this session's tools without the SDK's transport
   * (directToolCall.ts); undefined when the request is not one, and the SDK's to answer.
   */
  callDirectly: (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void> | undefined;
}

export interface SessionOptions {
  endpoint: EndpointRecord;
  claims: ClaimService;
  version: string;
  registrars: ToolRegistrar[];
  onError: (error: unknown) => void;
  /** The SDK assigned the session its id (the gateway starts tracking it then). */
  onInitialized: (id: string, parts: SessionParts) => void;
  /** The transport closed (DELETE, or the gateway ended the session); its id, once it had one. */
  onClosed: (id: string | undefined) => void;
}

/** A new session's server and transport for one endpoint, connected; its initialize request is next. */
export async function openSession(options: SessionOptions): Promise<SessionParts> {
  const { endpoint } = options;
  const server = new McpServer(
    { name: 'leasehold', version: options.version },
    {
      instructions: mcpInstructions(endpoint.slug, endpoint.default_lease_ttl_seconds),
      capabilities: { tools: { listChanged: true } },
    },
  );
  const tools = new SessionTools(server, options.onError);
  const { reregister } = registerClaimTools(tools, endpoint, options.claims);
  for (const registrar of options.registrars) registrar(tools, endpoint);
  const parts: SessionParts = {
    server,
    reregister,
    callDirectly: (req, res, body) => {
      const call = directToolCall(req, body);
      if (!call) return undefined;
      return tools.call(call.name, call.args).then((result) => sendToolResult(res, parts.transport.sessionId!, call.id, result));
    },
    transport: new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // A request's answer is one JSON body, not an SSE stream per POST: one write of headers
      // and body instead of several, and no ReadableStream per call. Server-initiated
      // notifications (tools/list_changed) still reach the client on its GET stream.
      enableJsonResponse: true,
      onsessioninitialized: (id) => options.onInitialized(id, parts),
    }),
  };
  const { transport } = parts;
  // Before connect(): the SDK's server chains its own close handling onto this one.
  transport.onclose = () => options.onClosed(transport.sessionId);
  await server.connect(transport);
  return parts;
}
