// A real MCP SDK client connected to a test server's /mcp with an endpoint token.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpTestClient {
  client: Client;
  listChangedCount(): number;
  waitForListChanged(count: number, timeoutMs?: number): Promise<void>;
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; value: any }>;
  close(): Promise<void>;
}

export async function connectMcp(serverUrl: string, endpointToken: string): Promise<McpTestClient> {
  const client = new Client({ name: 'leasehold-test', version: '0.0.0' });
  let changes = 0;
  const waiters: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1;
    for (const wake of waiters.splice(0)) wake();
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${endpointToken}` } },
  });
  await client.connect(transport);
  return {
    client,
    listChangedCount: () => changes,
    async waitForListChanged(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (changes < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} tools/list_changed notifications, got ${changes}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.find((item) => item.type === 'text');
      let value: unknown = text && 'text' in text ? text.text : undefined;
      try {
        value = JSON.parse(value as string);
      } catch {
        // plain text error from the SDK's own validation
      }
      return { isError: Boolean(result.isError), value };
    },
    close: () => client.close(),
  };
}
