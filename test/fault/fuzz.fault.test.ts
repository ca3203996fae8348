// Fuzz over every REST route and every MCP tool (issue 10): junk in every place a caller can
// put it (malformed percent-escapes and U+0000 in path segments, junk bodies of every JSON
// type, U+0000 strings, numbers past 2^31 and 2^53, wrong types in every field). Asserts: no
// 5xx (and no MCP `internal`), every refusal carries a code, and no refused request changes a
// stored row. Runs on SQLite, and on PostgreSQL when LEASEHOLD_TEST_DATABASE_URL is set (where
// U+0000 and 32-bit integers used to answer 500). Seeded, so a failure reproduces.
import assert from 'node:assert/strict';
import { request } from 'undici';
import { connectMcp } from '../support/mcp.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage.ts';

const ROUTES: Array<[string, string]> = [
  ['POST', '/api/v1/endpoints'],
  ['GET', '/api/v1/endpoints/:x'],
  ['PATCH', '/api/v1/endpoints/:x'],
  ['POST', '/api/v1/endpoints/:x/revoke'],
  ['GET', '/api/v1/endpoints/:x/claims'],
  ['POST', '/api/v1/todos'],
  ['GET', '/api/v1/todos'],
  ['POST', '/api/v1/panes'],
  ['GET', '/api/v1/panes/:x'],
  ['DELETE', '/api/v1/panes/:x'],
  ['PUT', '/api/v1/panes/:x/display'],
  ['POST', '/api/v1/panes/:x/sessions'],
  ['GET', '/api/v1/panes/:x/verdict'],
  ['GET', '/api/v1/sessions/:x'],
  ['POST', '/api/v1/sessions/:x/release-all'],
  ['POST', '/api/v1/wait-leases'],
  ['GET', '/api/v1/wait-leases'],
  ['GET', '/api/v1/wait-leases/:x'],
  ['POST', '/api/v1/wait-leases/:x/renew'],
  ['POST', '/api/v1/wait-leases/:x/release'],
  ['POST', '/api/v1/wait-leases/:x/ceiling'],
  ['POST', '/api/v1/wait-leases/:x/notice-consumed'],
  ['POST', '/api/v1/wait-leases/hold'],
  ['GET', '/api/v1/ledger'],
  ['POST', '/api/v1/hook-events'],
  ['POST', '/api/v1/teardown-check'],
  ['GET', '/api/v1/status'],
];

const SEGMENTS = ['%E0%A4%A', '%', '%zz', 'a%00b', '%C0%80', 'x'.repeat(300), '..', 'kept'];

/** A tiny seeded PRNG (mulberry32): the same seed gives the same requests. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELDS = ['slug', 'queue', 'title', 'name', 'pane', 'session_id', 'job_ref', 'id', 'lease_id', 'token', 'ttl_ms', 'shell_pid', 'shell_start_time', 'claim_epoch', 'state', 'reason', 'ops', 'target', 'default_lease_ttl_seconds', 'authorized_until', 'kind', 'job_type', 'scope', 'payload'];
const VALUES: unknown[] = ['a\u0000b', '\u0000', 2 ** 31, 2 ** 31 + 1, 2 ** 53 + 2, -1, 0, 1.5, 1e308, '', 'x'.repeat(5000), [], {}, null, true, 'valid-ish', { pid: 2 ** 40, start_time: '\u0000' }, [{ op: 'bind_session', session_id: '\u0000' }]];
const JUNK_BODIES = ['[]', 'null', '"x"', '42', 'true', '{', '{"a":', '\u0000'];

function junkBody(random: () => number): string | undefined {
  const roll = random();
  if (roll < 0.1) return undefined;
  if (roll < 0.3) return JUNK_BODIES[Math.floor(random() * JUNK_BODIES.length)];
  const body: Record<string, unknown> = {};
  const count = 1 + Math.floor(random() * 4);
  for (let n = 0; n < count; n++) body[FIELDS[Math.floor(random() * FIELDS.length)]!] = VALUES[Math.floor(random() * VALUES.length)];
  return JSON.stringify(body);
}

async function snapshot(t: TestServer): Promise<string> {
  const tables = (
    t.server.db.dialect === 'sqlite'
      ? await t.server.db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      : await t.server.db.all<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name')
  ).map((row) => row.name);
  const parts: string[] = [];
  // The clock domain and the machine heartbeat are the server's own, not something a request
  // writes; a device's last use is recorded (once a minute) for any authenticated request.
  const columns = (table: string) => (table === 'devices' ? 'id, human_id, machine_id, label, token_hash, created_at, revoked_at' : '*');
  for (const table of tables.filter((name) => !/clock|^machines$/.test(name))) {
    parts.push(`${table}: ${JSON.stringify(await t.server.db.all(`SELECT ${columns(table)} FROM ${table} ORDER BY 1`))}`);
  }
  return parts.join('\n');
}

for (const target of storageTargets) {
  describe(`fault: fuzz every REST route and MCP tool (${target.name})`, function () {
    this.timeout(120_000);
    let t: TestServer;
    beforeEach(async () => {
      t = await startTestServer(target, { hookReplayIntervalMs: 0 });
    });
    afterEach(() => t.stop());

    it('REST: no 5xx, every refusal has a code, no refused request changes a stored row', async () => {
      const random = prng(10);
      await t.client.vendEndpoint({ slug: 'kept' });
      await t.client.createTodo({ queue: 'q', title: 'kept' });
      await t.client.registerPane({ name: 'kept', source: 'cli' } as never);
      const problems: string[] = [];
      let refused = 0;
      for (let round = 0; round < 6; round++) {
        for (const [method, pattern] of ROUTES) {
          const segment = SEGMENTS[Math.floor(random() * SEGMENTS.length)]!;
          const path = pattern.replace(':x', segment);
          const query = method === 'GET' && random() < 0.5 ? `?state=%00&since=${2 ** 60}&queue=a%E0%A4%A` : '';
          const body = method === 'GET' ? undefined : junkBody(random);
          const before = await snapshot(t);
          const response = await request(`${t.server.url}${path}${query}`, {
            method: method as 'POST',
            headers: { authorization: `Bearer ${t.server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body,
          });
          const text = await response.body.text();
          const what = `${method} ${path}${query} ${body ?? ''}`.slice(0, 300);
          if (response.statusCode >= 500) problems.push(`${response.statusCode} ${what}: ${text.slice(0, 200)}`);
          if (response.statusCode >= 400) {
            refused++;
            const code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
            if (!code) problems.push(`no code: ${what}`);
            const after = await snapshot(t);
            if (after !== before) problems.push(`refused but changed a row: ${what}`);
          }
        }
      }
      assert.deepEqual(problems, []);
      assert.ok(refused > 100, `refused ${refused}`);
    });

    it('MCP: no internal error, every refusal has a code or names the argument, no refused call changes a stored row', async () => {
      const random = prng(11);
      const { token } = await t.client.vendEndpoint({ slug: 'fuzzer' });
      await t.client.createTodo({ queue: 'q', title: 'kept' });
      const mcp = await connectMcp(t.server.url, token);
      try {
        const tools = (await mcp.client.listTools()).tools.map((tool) => tool.name);
        assert.ok(tools.length >= 7);
        const problems: string[] = [];
        for (let round = 0; round < 5; round++) {
          for (const tool of tools) {
            const args: Record<string, unknown> = {};
            for (let n = 0; n < 3; n++) args[FIELDS[Math.floor(random() * FIELDS.length)]!] = VALUES[Math.floor(random() * VALUES.length)];
            if (random() < 0.5) Object.assign(args, { todo_id: 'a\u0000b', claim_epoch: 2 ** 31 + 5, queue: 'q\u0000' });
            const before = await snapshot(t);
            let result: { isError: boolean; value: any };
            try {
              result = await mcp.call(tool, args);
            } catch (error) {
              // The SDK's own argument validation (-32602) answers as a JSON-RPC error: a refusal.
              if (!/-32602|Invalid arguments|Input validation/i.test(String(error))) problems.push(`${tool}: ${String(error).slice(0, 200)}`);
              continue;
            }
            if (!result.isError) continue;
            const text = JSON.stringify(result.value);
            if (/"code":"internal"/.test(text)) problems.push(`internal from ${tool}: ${text.slice(0, 200)}`);
            if (/invalid byte sequence|out of range for type|SQLITE|constraint failed/i.test(text)) problems.push(`raw storage text from ${tool}: ${text.slice(0, 200)}`);
            if ((await snapshot(t)) !== before) problems.push(`refused ${tool} changed a row`);
          }
        }
        assert.deepEqual(problems, []);
      } finally {
        await mcp.close();
      }
    });
  });
}
