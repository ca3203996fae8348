// The MCP claim_next figure of bench/claimPeers.ts, measured in a process of its own: five
// rounds each of Leasehold (client in-process, as issue 11's target has it; and the client in a
// process of its own, as Claude Code is) and the SDK alone, interleaved. In the bench's own
// process, after pg-boss, BullMQ and the 8-worker runs, the same calls cost more for every
// contender, the SDK alone included (0.64 -> 0.85 ms, 2026-12-07): the state those runs leave
// (a process near 400 MB resident, the peers' clients) is the bench's, not a lease server's. Prints the round
// figures (ms) as the last line, as JSON.
import { sqliteTarget } from '../../test/support/storage.ts';
import { MCP_CLAIMS, mcpLatency } from '../claims.ts';
import { mcpSdkFloor } from './mcpSdkFloor.ts';

export interface McpRounds {
  leasehold: number[];
  childClient: number[];
  sdkAlone: number[];
}

const rounds: McpRounds = { leasehold: [], childClient: [], sdkAlone: [] };
for (let round = 0; round < 5; round++) {
  rounds.leasehold.push(await mcpLatency(sqliteTarget));
  rounds.childClient.push(await mcpLatency(sqliteTarget, 'child'));
  rounds.sdkAlone.push(await mcpSdkFloor(MCP_CLAIMS));
}
process.stdout.write(`${JSON.stringify(rounds)}\n`);
process.exit(0);
