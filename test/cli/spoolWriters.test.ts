// The delivery spool under 200 concurrent writer processes (moved from test/unit: it is slow
// and spawns processes). The hook-level version, through the real `leasehold hook`, is in
// test/cli/hookSpool.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSpool } from '../../src/runtime/spool.ts';

const SPOOL_MODULE = fileURLToPath(new URL('../../src/runtime/spool.ts', import.meta.url));

function runNode(script: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('delivery spool: concurrent writer processes', function () {
  this.timeout(180_000);
  let dir: string;

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'leasehold-spool-')), 'spool');
  });
  afterEach(() => {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('200 concurrent hook processes lose nothing and leave no partial file', async () => {
    const writers = 200;
    const perWriter = 3;
    const script = `
      import { spoolEvent } from ${JSON.stringify(SPOOL_MODULE)};
      const [dir, writer] = process.argv.slice(1);
      for (let seq = 0; seq < ${perWriter}; seq++) spoolEvent(dir, { writer: Number(writer), seq, body: 'x'.repeat(8192) });
    `;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const runs = Array.from({ length: writers }, (_, writer) => runNode(script, [dir, String(writer)]));

    // While they write, every visible event file must already be complete JSON. A renamed-in
    // file never changes again, so each is checked once.
    let done = false;
    const all = Promise.all(runs).finally(() => (done = true));
    const checked = new Set<string>();
    while (!done) {
      for (const name of readdirSync(dir)) {
        if (name.startsWith('.') || checked.has(name)) continue;
        const text = readFileSync(join(dir, name), 'utf8');
        assert.doesNotThrow(() => JSON.parse(text), `partial file visible: ${name}`);
        checked.add(name);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const observations = checked.size;
    const results = await all;
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    assert.ok(observations > 0, 'the reader ran while writers were writing');

    const entries = readSpool(dir);
    assert.equal(entries.length, writers * perWriter);
    assert.equal(new Set(entries.map((entry) => entry.id)).size, writers * perWriter, 'ids are unique');
    const seen = new Set(entries.map((entry) => `${entry.event.writer}/${entry.event.seq}`));
    for (let writer = 0; writer < writers; writer++) {
      for (let seq = 0; seq < perWriter; seq++) assert.ok(seen.has(`${writer}/${seq}`), `missing ${writer}/${seq}`);
    }
    // Each writer's own events replay in the order it wrote them.
    for (let writer = 0; writer < writers; writer++) {
      const seqs = entries.filter((entry) => entry.event.writer === writer).map((entry) => entry.event.seq);
      assert.deepEqual(seqs, [0, 1, 2]);
    }
    assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith('.tmp-')), [], 'no tmp file left');
  });
});
