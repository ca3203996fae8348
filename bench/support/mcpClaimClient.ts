// The MCP client of bench/claims.ts's out-of-process variant: a real deployment's client
// (Claude Code) is another process, so this one is too. argv[2]: the server URL; the endpoint
// token comes on stdin (never on a command line). Runs `count` (argv[3]) claim_next + complete
// through the real SDK client and prints the claim_next latencies (ms) as one JSON line.
import { performance } from 'node:perf_hooks';
import { connectMcp } from '../../test/support/mcp.ts';

const [url, countText] = process.argv.slice(2);
let token = '';
for await (const chunk of process.stdin) token += String(chunk);
const session = await connectMcp(url!, token.trim());
const latencies: number[] = [];
for (let index = 0; index < Number(countText); index++) {
  const before = performance.now();
  const claim = await session.call('claim_next', { queue: 'bench' });
  latencies.push(performance.now() - before);
  if (!claim.value?.claimed) throw new Error(`claim_next claimed nothing: ${JSON.stringify(claim.value)}`);
  await session.call('complete', { todo_id: claim.value.todo_id, claim_epoch: claim.value.claim_epoch });
}
await session.close();
process.stdout.write(`${JSON.stringify(latencies)}\n`);
