import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newEventId, readSpool, replaySpool, spoolEvent } from '../../../src/claude/spool.ts';
import type { SpooledEvent } from '../../../src/claude/spool.ts';

const SPOOL_MODULE = fileURLToPath(new URL('../../../src/claude/spool.ts', import.meta.url));

function runNode(script: string, args: string[]): Promise<{ code: number | null; stderr: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr, pid: child.pid as number }));
  });
}

describe('delivery spool', function () {
  this.timeout(120_000);
  let dir: string;

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'leasehold-spool-')), 'spool');
  });
  afterEach(() => {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('creates the spool private to the user: directory 0700, event files 0600', () => {
    spoolEvent(dir, { kind: 'acquire' });
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const [file] = readdirSync(dir);
    assert.equal(statSync(join(dir, file)).mode & 0o777, 0o600);
  });

  it('keeps a pre-assigned id so a retried delivery is recognised by the server', () => {
    const id = newEventId();
    const spooled = spoolEvent(dir, { id, kind: 'release' });
    assert.equal(spooled.id, id);
    assert.deepEqual(readSpool(dir).map((entry) => entry.event), [{ id, kind: 'release' }]);
  });

  it('refuses an id that could escape the directory', () => {
    assert.throws(() => spoolEvent(dir, { id: '../evil' }), /spool event id/);
  });

  it('orders events by creation time even when written out of order', () => {
    const base = Date.now();
    const later = newEventId(base + 5);
    const earlier = newEventId(base);
    spoolEvent(dir, { id: later, n: 2 });
    spoolEvent(dir, { id: earlier, n: 1 });
    assert.deepEqual(readSpool(dir).map((entry) => entry.event.n), [1, 2]);
  });

  it('replays in order and deletes each event only after it was applied', async () => {
    for (let n = 1; n <= 5; n++) spoolEvent(dir, { n });
    const applied: unknown[] = [];
    const result = await replaySpool(dir, async (event) => {
      applied.push(event.n);
      // While being applied, the event is claimed: no longer in the queue, not yet gone.
      assert.ok(!readSpool(dir).some((entry) => entry.event.n === event.n));
    });
    assert.deepEqual(applied, [1, 2, 3, 4, 5]);
    assert.equal(result.applied.length, 5);
    assert.deepEqual(readSpool(dir), []);
  });

  it('stops at the first failure and keeps that event and everything after it, in order', async () => {
    for (let n = 1; n <= 5; n++) spoolEvent(dir, { n });
    const applied: unknown[] = [];
    const first = await replaySpool(dir, async (event) => {
      if (event.n === 3) throw new Error('server said 503');
      applied.push(event.n);
    });
    assert.deepEqual(applied, [1, 2]);
    assert.equal(first.failed?.error, 'server said 503');
    assert.deepEqual(readSpool(dir).map((entry) => entry.event.n), [3, 4, 5]);

    const second = await replaySpool(dir, async (event) => {
      applied.push(Number(event.n));
    });
    assert.deepEqual(applied, [1, 2, 3, 4, 5]);
    assert.equal(second.failed, undefined);
  });

  it('skips a half-written tmp file, and removes it once it is clearly abandoned', async () => {
    spoolEvent(dir, { n: 1 });
    const tmp = join(dir, `.tmp-${newEventId()}-dead`);
    writeFileSync(tmp, '{"id":"x","n":');
    const applied: unknown[] = [];
    await replaySpool(dir, async (event) => {
      applied.push(event.n);
    });
    assert.deepEqual(applied, [1]);
    assert.ok(readdirSync(dir).includes(tmp.split('/').pop() as string), 'a fresh tmp file may still be being written');

    const old = (Date.now() - 3_600_000) / 1000;
    utimesSync(tmp, old, old);
    await replaySpool(dir, async () => undefined);
    assert.ok(!readdirSync(dir).some((name) => name.startsWith('.tmp-')));
  });

  it('quarantines a damaged event file instead of blocking the queue behind it', async () => {
    spoolEvent(dir, { n: 1 });
    writeFileSync(join(dir, `${newEventId()}.json`), 'not json');
    spoolEvent(dir, { n: 3 });
    const applied: unknown[] = [];
    const result = await replaySpool(dir, async (event) => {
      applied.push(event.n);
    });
    assert.deepEqual(applied, [1, 3]);
    assert.equal(result.quarantined.length, 1);
    assert.equal(readdirSync(join(dir, 'quarantine')).length, 1);
    assert.match(result.quarantined[0]!.reason, /not JSON/);
  });

  it('replays an event whose replayer died after claiming it', async () => {
    const dead = await runNode('', []);
    const id = newEventId();
    mkdirSync(join(dir, 'processing'), { recursive: true });
    writeFileSync(join(dir, 'processing', `${id}.json.${dead.pid}`), JSON.stringify({ id, n: 7 }));
    const applied: unknown[] = [];
    await replaySpool(dir, async (event) => {
      applied.push(event.n);
    });
    assert.deepEqual(applied, [7]);
  });

  it('two replayers racing in separate processes apply every event exactly once, in order', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 150; n++) ids.push(spoolEvent(dir, { n }).id);
    const log = join(dir, '..', 'applied.log');
    const script = `
      import { appendFileSync } from 'node:fs';
      import { replaySpool } from ${JSON.stringify(SPOOL_MODULE)};
      const [dir, log] = process.argv.slice(1);
      for (let round = 0; round < 20; round++) {
        await replaySpool(dir, async (event) => { appendFileSync(log, event.id + '\\n'); });
        await new Promise((r) => setTimeout(r, 2));
      }
    `;
    const results = await Promise.all([runNode(script, [dir, log]), runNode(script, [dir, log])]);
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const appliedIds = readFileSync(log, 'utf8').trim().split('\n');
    assert.deepEqual(appliedIds, ids);
    assert.deepEqual(readSpool(dir), []);
  });

  it('answers busy instead of interleaving when another replay is running', async () => {
    spoolEvent(dir, { n: 1 });
    spoolEvent(dir, { n: 2 });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = replaySpool(dir, async (event: SpooledEvent) => {
      if (event.n === 1) await gate;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const concurrent = await replaySpool(dir, async () => assert.fail('must not apply while the other replay holds the lock'));
    assert.equal(concurrent.busy, true);
    release();
    assert.equal((await slow).applied.length, 2);
  });
});
