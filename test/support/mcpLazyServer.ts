// Child process of test/server/mcpLazyLoad.test.ts: a lease server in a fresh process, which
// records every import of the MCP SDK's server side. Prints one JSON line of what it saw
// before the first /mcp request and after an MCP session claimed a todo.
import { registerHooks } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sdkServerImports: string[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (/@modelcontextprotocol\/sdk\/dist\/[^/]+\/(server\/|types\.js$)/.test(resolved.url)) sdkServerImports.push(resolved.url);
    return resolved;
  },
});

const { silentLogger, startLeaseServer } = await import('../../src/server/app.ts');
const dir = mkdtempSync(join(tmpdir(), 'leasehold-mcp-lazy-'));
const server = await startLeaseServer({ storage: { kind: 'sqlite', dataDir: dir }, runtimeDir: dir, logger: silentLogger, singleInstance: false });
const beforeMcp = sdkServerImports.length;
// The SDK client (test/support/mcp.ts) shares modules with the server side: imported only now.
const { connectMcp } = await import('./mcp.ts');
const vended = await server.claims.vendEndpoint(server.human, { slug: 'lazy' });
await server.claims.createTodo(server.human, { queue: 'q', title: 't' });
const session = await connectMcp(server.url, vended.token);
const claim = await session.call('claim_next', { queue: 'q' });
await session.close();
await server.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ beforeMcp, afterMcp: sdkServerImports.filter((url) => url.endsWith('/server/streamableHttp.js')).length, claimed: claim.value?.claimed === true, isError: claim.isError })}\n`);
