// Soak: mixed claim (MCP) + hook + REST load against a real `leasehold serve` while a chaos
// loop kill -9s it, SIGSTOPs/SIGCONTs it and restarts it, then an exact count. Must print
// 0 lost, 0 duplicated for todos and for hook events.
//
//   bash scripts/with-node.sh node bench/soak.ts [--seconds 120] [--todos 600] [--workers 6] [--seed 1]
//
// Claims: workers call claim_next (3 s lease) and complete over the real MCP SDK client,
// reconnecting after each restart; a claim whose holder was cut off lapses and is requeued by
// the reaper, and the fencing token keeps its old holder from completing it. Hooks: events go
// through the hook's own delivery code (src/claude/hookDelivery.ts: HTTP with retries, then
// the spool), in process rather than one `leasehold hook` process per event, so the chaos,
// not process start-up, is what the machine spends its time on. Counts come from the database
// file after a clean final stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LeaseholdClient } from '../src/client/client.ts';
import { deliverHookEvent } from '../src/claude/hookDelivery.ts';
import { newEventId } from '../src/runtime/spool.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '120' }, todos: { type: 'string', default: '600' }, workers: { type: 'string', default: '6' }, seed: { type: 'string', default: '1' } } });
const SECONDS = Number(values.seconds);
const TODOS = Number(values.todos);
const WORKERS = Number(values.workers);
let seed = Number(values.seed);
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CLI = fileURLToPath(new URL('../bin/leasehold.cjs', import.meta.url));

const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-soak-data-'));
const runtimeDir = mkdtempSync(join(tmpdir(), 'leasehold-soak-run-'));
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const chosen = (probe.address() as { port: number }).port;
    probe.close(() => resolve(chosen));
  });
});
const url = `http://127.0.0.1:${port}`;
const chaos = { kill9: 0, stopCont: 0, term: 0, restarts: 0 };
let server: ChildProcess | undefined;

async function startServer(): Promise<void> {
  for (;;) {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], { env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (chunk) => (log += chunk));
    const up = await new Promise<boolean>((resolve) => {
      child.stdout!.on('data', (chunk) => String(chunk).includes(url) && resolve(true));
      child.once('exit', () => resolve(false));
    });
    if (up) {
      server = child;
      chaos.restarts++;
      return;
    }
    if (/refuse|damaged|integrity/.test(log)) throw new Error(`the server refused to start: ${log}`);
    await sleep(200); // the port or the lock of the killed one is not free yet
  }
}

const exited = (child: ChildProcess) => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())));

await startServer();
const token = () => readFileSync(join(runtimeDir, 'token'), 'utf8').trim();
const rest = new LeaseholdClient({ baseUrl: url, token: token() });
const endpoint = await rest.vendEndpoint({ slug: 'soak' });
for (let n = 0; n < TODOS; n++) {
  // The human's write budget refuses a burst (429); the setup waits as told rather than failing.
  for (;;) {
    try {
      await rest.createTodo({ queue: 'soak', title: `todo ${n}` });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'rate_limited') throw error;
      await sleep(1_000);
    }
  }
}

let running = true;
const acked = new Map<string, number>(); // todo id → completes the server acknowledged
const hookSent: string[] = [];
const hookOutcomes = { delivered: 0, spooled: 0, refused: 0 };
let lastSpoolReason = '';

async function mcpSession(): Promise<Client> {
  for (;;) {
    try {
      const client = new Client({ name: 'soak', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${endpoint.token}` } } }));
      return client;
    } catch {
      await sleep(200);
    }
  }
}

async function claimWorker(): Promise<void> {
  let client = await mcpSession();
  while (running || acked.size < TODOS) {
    try {
      const claimed = (await client.callTool({ name: 'claim_next', arguments: { queue: 'soak', lease_ttl_seconds: 3 } })) as { structuredContent?: { todo_id?: string; claim_epoch?: number; claimed?: boolean } };
      const value = claimed.structuredContent;
      if (!value?.todo_id) {
        if (!running) return; // queue empty and the chaos is over: the rest are others' live claims
        await sleep(100);
        continue;
      }
      if (random() < 0.05) await sleep(4_000); // a slow worker: its lease lapses, the reaper requeues
      const done = (await client.callTool({ name: 'complete', arguments: { todo_id: value.todo_id, claim_epoch: value.claim_epoch } })) as { isError?: boolean };
      if (!done.isError) acked.set(value.todo_id, (acked.get(value.todo_id) ?? 0) + 1);
    } catch {
      await client.close().catch(() => undefined);
      await sleep(100);
      client = await mcpSession();
    }
  }
}

async function hookLoad(): Promise<void> {
  for (let i = 0; running; i++) {
    const session = `soak-${i}`;
    const id = newEventId();
    hookSent.push(session);
    const outcome = await deliverHookEvent({ id, ops: [{ op: 'bind_session', session_id: session, pane_hint: { env_pane: `pane-${i % 16}`, ancestry: [] } }] } as never, { runtimeDir });
    hookOutcomes[outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'spooled' ? 'spooled' : 'refused']++;
    if (outcome.kind === 'spooled') lastSpoolReason = outcome.lastError;
    await sleep(20);
  }
}

async function chaosLoop(): Promise<void> {
  const end = Date.now() + SECONDS * 1000;
  while (Date.now() < end) {
    await sleep(1_500 + random() * 2_500);
    const child = server!;
    const roll = random();
    if (roll < 0.45) {
      chaos.kill9++;
      child.kill('SIGKILL');
      await exited(child);
      await startServer();
    } else if (roll < 0.8) {
      chaos.stopCont++;
      child.kill('SIGSTOP');
      await sleep(500 + random() * 2_500);
      child.kill('SIGCONT');
    } else {
      chaos.term++;
      child.kill('SIGTERM');
      await exited(child);
      await startServer();
    }
  }
  running = false;
}

const started = Date.now();
await Promise.all([chaosLoop(), hookLoad(), ...Array.from({ length: WORKERS }, () => claimWorker())]);
// Drain: claims cut off by the chaos lapse (3 s) and are requeued; the spool is replayed.
const spool = join(runtimeDir, 'spool');
const deadline = Date.now() + 60_000;
while (Date.now() < deadline) {
  const pending = readdirSync(spool, { withFileTypes: true }).filter((entry) => entry.name.endsWith('.json')).length;
  const done = (await rest.listTodos({ queue: 'soak', state: 'done' })).length;
  if (pending === 0 && done === TODOS) break;
  if (done < TODOS) await claimWorker().catch(() => undefined);
  await sleep(500);
}
const status = await rest.status();
server!.kill('SIGTERM');
await exited(server!);

const db = new DatabaseSync(join(dataDir, 'leasehold.db'), { readOnly: true });
const completions = db.prepare("SELECT todo_id, count(*) AS n FROM claim_events WHERE kind = 'completed' GROUP BY todo_id").all() as Array<{ todo_id: string; n: number }>;
const doneTodos = Number((db.prepare("SELECT count(*) AS n FROM todos WHERE queue = 'soak' AND state = 'done'").get() as { n: number }).n);
const bound = new Set((db.prepare('SELECT session_id FROM pane_sessions').all() as Array<{ session_id: string }>).map((row) => row.session_id));
const hookRows = Number((db.prepare('SELECT count(*) AS n FROM hook_events').get() as { n: number }).n);
db.close();

const result = {
  seconds: Math.round((Date.now() - started) / 1000),
  chaos,
  todos: {
    created: TODOS,
    completed_once: completions.filter((row) => row.n === 1).length,
    lost: TODOS - doneTodos,
    duplicated: completions.filter((row) => row.n > 1).length + [...acked.values()].filter((n) => n > 1).length,
    acknowledged_completes: [...acked.values()].reduce((a, b) => a + b, 0),
  },
  hook_events: {
    sent: hookSent.length,
    ...hookOutcomes,
    last_spool_reason: lastSpoolReason,
    applied_once: hookSent.filter((session) => bound.has(session)).length,
    lost: hookSent.filter((session) => !bound.has(session)).length,
    // hook_events keeps one row per applied id: more rows than ids sent would be a double apply.
    duplicated: Math.max(0, hookRows - hookSent.length),
  },
  spool_at_end: status.spool,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
rmSync(dataDir, { recursive: true, force: true });
rmSync(runtimeDir, { recursive: true, force: true });
process.exit(result.todos.lost === 0 && result.todos.duplicated === 0 && result.hook_events.lost === 0 && result.hook_events.duplicated === 0 ? 0 : 1);
