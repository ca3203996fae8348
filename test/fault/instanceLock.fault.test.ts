// Fault suite, single instance (issue 10 item 5): a server.lock naming a live but unrelated
// process (pid reuse after a crash or a reboot) must not refuse every start; a lock naming
// the live server that owns the data still refuses, naming it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import { readProcessInfo } from '../../src/server/observe/processInfo.ts';
import { tempDir } from '../support/storage.ts';

describe('fault: the instance lock vs pid reuse', function () {
  this.timeout(30_000);
  let dataDir: string;
  let runtimeDir: string;
  beforeEach(() => {
    dataDir = tempDir('data');
    runtimeDir = tempDir('runtime');
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });
  const start = () => startLeaseServer({ storage: { kind: 'sqlite', dataDir }, runtimeDir, logger: silentLogger });

  for (const [what, lock] of [
    ['a live unrelated pid (pid 1, another start time)', () => ({ pid: 1, start: '0', url: 'http://127.0.0.1:9' })],
    ['this very pid, left by a predecessor that had it (a container restart)', () => ({ pid: process.pid, start: '1', url: null })],
    ['an old-format lock naming a live process', () => ({ pid: process.ppid, url: null })],
  ] as const) {
    it(`a lock naming ${what} is stale: the server starts and takes it`, async () => {
      writeFileSync(join(dataDir, 'server.lock'), JSON.stringify(lock()));
      const server = await start();
      try {
        const owner = JSON.parse(readFileSync(join(dataDir, 'server.lock'), 'utf8'));
        assert.equal(owner.pid, process.pid);
        assert.equal(owner.start, readProcessInfo(process.pid)!.startTime);
      } finally {
        await server.close();
      }
    });
  }

  for (const content of ['', 'garbage']) {
    it(`an ${content === '' ? 'empty' : 'unparseable'} lock is stale`, async () => {
      writeFileSync(join(dataDir, 'server.lock'), content);
      await (await start()).close();
    });
  }

  it('a lock naming a live holder with its true start time refuses, naming pid and URL', async () => {
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const startTime = readProcessInfo(holder.pid!)!.startTime;
      writeFileSync(join(dataDir, 'server.lock'), JSON.stringify({ pid: holder.pid, start: startTime, url: 'http://127.0.0.1:4242' }));
      await assert.rejects(start(), (error: Error) => error.message.includes(`pid ${holder.pid}`) && error.message.includes('http://127.0.0.1:4242'));
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
