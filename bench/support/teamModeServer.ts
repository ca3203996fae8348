// One team-mode lease server in its own process for bench/teamMode.ts, with its workers in
// the same process (as bench/claims.ts runs them: service calls, no HTTP), so two of these
// are two servers contending on one PostgreSQL database. Prints {url, token} once listening;
// then answers one JSON line per stdin command:
//   fill <queue> <n>         adds n todos
//   work <queue> <workers>   that many endpoints claim_next + complete until the queue is empty
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import type { EndpointRecord } from '../../src/server/claims/records.ts';
import { vendWorker } from '../../test/support/server.ts';

const env = process.env;
const server = await startLeaseServer({
  storage: { kind: 'postgres', url: env.LH_BENCH_DB_URL!, schema: env.LH_BENCH_SCHEMA },
  runtimeDir: env.LH_BENCH_RUNTIME_DIR!,
  logger: silentLogger,
  clock: systemClock,
  identity: 'bench',
  singleInstance: false,
  writeRateLimit: { capacity: 1_000_000, refillPerSecond: 1_000_000 },
});
const name = env.LH_BENCH_NAME ?? 'x';
process.stdout.write(`${JSON.stringify({ url: server.url, token: server.token })}\n`);

async function work(queue: string, workers: number): Promise<{ completed: number; seconds: number }> {
  const endpoints: EndpointRecord[] = [];
  for (let index = 0; index < workers; index++) {
    endpoints.push(await vendWorker(server, { slug: `${name}-${queue}-${index}` }));
  }
  let completed = 0;
  const started = performance.now();
  await Promise.all(
    endpoints.map(async (endpoint) => {
      for (;;) {
        const claim = await server.claims.claimNext(endpoint, queue);
        if (!claim) return;
        await server.claims.complete(endpoint, claim.todo_id, claim.claim_epoch);
        completed += 1;
      }
    }),
  );
  return { completed, seconds: (performance.now() - started) / 1000 };
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, queue, count] = line.trim().split(/\s+/);
  const answer = async () => {
    if (command === 'fill') {
      for (let index = 0; index < Number(count); index++) await server.claims.createTodo(server.human, { queue: queue!, title: `t${index}` });
      return { filled: Number(count) };
    }
    if (command === 'work') return work(queue!, Number(count));
    return { error: `unknown command ${command}` };
  };
  void answer().then((value) => process.stdout.write(`${JSON.stringify(value)}\n`));
});
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
