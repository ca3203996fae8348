// `leasehold serve` as a real process: runtime files, single instance, clean shutdown.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startLeaseServer, silentLogger } from '../../src/server/app.ts';
import { LeaseholdClient } from '../../src/client/client.ts';
import { tempDir } from '../support/storage.ts';
import { startServeProcess } from '../support/cli.ts';

describe('leasehold serve', () => {
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

  it('writes server.json and the token 0600, and a second start on the same data dir refuses naming pid and URL', async () => {
    const first = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
    try {
      const discovery = JSON.parse(readFileSync(join(runtimeDir, 'server.json'), 'utf8'));
      assert.deepEqual([discovery.pid, discovery.url, discovery.storage], [first.pid, first.url, 'sqlite']);
      assert.equal(typeof discovery.port, 'number');
      assert.equal(typeof discovery.version, 'string');
      for (const file of ['server.json', 'token']) assert.equal(statSync(join(runtimeDir, file)).mode & 0o777, 0o600, file);
      assert.equal(statSync(join(dataDir, 'leasehold.db')).isFile(), true, 'one SQLite file in the data dir');

      const token = readFileSync(join(runtimeDir, 'token'), 'utf8').trim();
      const health = await new LeaseholdClient({ baseUrl: first.url, token }).health();
      assert.equal(health.pid, first.pid);

      await assert.rejects(
        startLeaseServer({ storage: { kind: 'sqlite', dataDir }, runtimeDir: tempDir('runtime2'), logger: silentLogger }),
        (error: Error) => error.message.includes(`pid ${first.pid}`) && error.message.includes(first.url),
      );
    } finally {
      await first.stop();
    }
    // Clean shutdown removes the discovery file; the next start takes over the same data.
    assert.throws(() => statSync(join(runtimeDir, 'server.json')));
    const second = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
    await second.stop();
  });

  it('recovers a lock left by a crashed server', async () => {
    const first = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
    process.kill(first.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
    await second.stop();
  });
});
