// MCP claim_next with tools/call answered directly (src/server/mcp/directToolCall.ts) and with
// every request left to the SDK's transport (mcpDirectToolCalls: false), and the SDK alone, in
// five interleaved rounds in one process; the figure of each is the middle round's.
// Run: `npm run bench -- mcpDirect`.
import { fileURLToPath } from 'node:url';
import { sqliteTarget } from '../test/support/storage.ts';
import { MCP_CLAIMS, mcpLatency } from './claims.ts';
import { fmtMs, median, report, reportRounds } from './stats.ts';
import { mcpSdkFloor } from './support/mcpSdkFloor.ts';

export async function benchMcpDirect(): Promise<void> {
  const rounds = { direct: [] as number[], sdkTransport: [] as number[], sdkAlone: [] as number[] };
  for (let round = 0; round < 5; round++) {
    rounds.direct.push(await mcpLatency(sqliteTarget));
    rounds.sdkTransport.push(await mcpLatency(sqliteTarget, 'in-process', { mcpDirectToolCalls: false }));
    rounds.sdkAlone.push(await mcpSdkFloor(MCP_CLAIMS));
  }
  report('MCP claim_next median, SQLite, tools/call answered', {
    directly: fmtMs(median(rounds.direct)),
    'by the SDK transport': fmtMs(median(rounds.sdkTransport)),
    'SDK alone (no-op tools)': fmtMs(median(rounds.sdkAlone)),
  });
  reportRounds('  rounds (ms)', rounds);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchMcpDirect();
  process.exit(0);
}
