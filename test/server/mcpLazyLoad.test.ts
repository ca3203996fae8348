// The MCP SDK's server side loads on the first /mcp request, not at server start (issue 11:
// resident memory of a server whose agents never connect over MCP), and that first request
// works: initialize, tools/call, in a fresh process.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

describe('MCP SDK loaded lazily', () => {
  it('a fresh server has not imported the SDK server; its first MCP session initializes and claims', () => {
    const script = fileURLToPath(new URL('../support/mcpLazyServer.ts', import.meta.url));
    const output = execFileSync(process.execPath, [script], { encoding: 'utf8', timeout: 30_000 });
    const seen = JSON.parse(output.trim().split('\n').at(-1)!) as { beforeMcp: number; afterMcp: number; claimed: boolean; isError: boolean };
    assert.equal(seen.beforeMcp, 0, 'no SDK server module before the first /mcp request');
    assert.ok(seen.afterMcp > 0, 'the SDK server loaded for the first session');
    assert.deepEqual([seen.isError, seen.claimed], [false, true]);
  });
});
