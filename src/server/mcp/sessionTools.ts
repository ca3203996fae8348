// One MCP session's tools, called through Leasehold's own tools/call handler so that every
// refusal reaches the agent in one shape: the project's error envelope. The SDK would answer
// a schema failure with its own "MCP error -32602: Input validation error … at <field>" text
// (no code, no value received) and an unknown tool with bare text; here both become
// { error: { code, message, field, details } }, like every service refusal.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { LeaseholdError } from '../../core/errors.ts';
import type { EndpointRecord } from '../claims/records.ts';
import { parseWire } from '../../core/wire/validate.ts';

interface SessionTool {
  schema: z.ZodObject;
  run: (args: never) => Promise<unknown>;
}

export function toolResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value as Record<string, unknown> };
}

function refusal(error: LeaseholdError): CallToolResult {
  const body = error.toBody();
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as unknown as Record<string, unknown> };
}

/** The value the caller sent at a refused field ("a.b" paths; a list of unknown keys names several). */
function receivedAt(args: unknown, field: string): unknown {
  if (args === null || typeof args !== 'object') return args;
  const keys = field.split(', ');
  if (keys.length > 1) return Object.fromEntries(keys.map((key) => [key, (args as Record<string, unknown>)[key]]));
  let value: unknown = args;
  for (const part of field.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Validates tool arguments; a refusal is invalid_argument naming the field, the rule and the value received. */
export function parseToolArguments<Schema extends z.ZodObject>(schema: Schema, args: unknown): z.infer<Schema> {
  try {
    return parseWire(schema, args ?? {}, 'arguments');
  } catch (error) {
    if (!(error instanceof LeaseholdError) || error.field === undefined) throw error;
    const received = receivedAt(args ?? {}, error.field);
    const shown = received === undefined ? 'nothing' : JSON.stringify(received);
    throw new LeaseholdError('invalid_argument', `${error.message} (received ${shown})`, {
      field: error.field,
      details: { received: received === undefined ? null : received },
    });
  }
}

/** Adds more tools to a session (the wait-lease verbs register themselves this way). */
export type ToolRegistrar = (tools: SessionTools, endpoint: EndpointRecord) => void;

export class SessionTools {
  private readonly tools = new Map<string, SessionTool>();
  private readonly server: McpServer;
  private readonly onError: (error: unknown) => void;

  constructor(server: McpServer, onError: (error: unknown) => void) {
    this.server = server;
    this.onError = onError;
  }

  register<Schema extends z.ZodObject>(name: string, description: string, schema: Schema, run: (args: z.infer<Schema>) => Promise<unknown>): RegisteredTool {
    // The SDK keeps the listing (and tools/list_changed on update); calls come through call().
    const registered = this.server.registerTool(name, { description, inputSchema: schema }, (() => {
      throw new Error(`tool ${name} is called through SessionTools`);
    }) as never);
    this.tools.set(name, { schema, run: run as SessionTool['run'] });
    // Registering the first tool installs the SDK's tools/call handler; replace it with ours.
    this.server.server.setRequestHandler(CallToolRequestSchema, (request) => this.call(request.params.name, request.params.arguments));
    return registered;
  }

  async call(name: string, args: unknown): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (!tool) {
      return refusal(
        new LeaseholdError('not_found', `no tool "${name}" on this endpoint; its scope grants: ${[...this.tools.keys()].join(', ') || 'none'}`, {
          field: 'name',
          details: { received: name },
        }),
      );
    }
    try {
      return toolResult(await tool.run(parseToolArguments(tool.schema, args) as never));
    } catch (error) {
      if (error instanceof LeaseholdError) return refusal(error);
      // Raw driver text (SQL, paths) never reaches the agent; the log keeps it.
      this.onError(error);
      return refusal(new LeaseholdError('internal', 'internal error; the server log has the details'));
    }
  }
}
