// `leasehold serve` as a real process: runtime files, single instance, clean shutdown.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startLeaseServer, silentLogger } from '../../src/server/app.ts';
import { LeaseholdClient } from '../../src/client/client.ts';
import { tempDir } from '../support/storage.ts';
import { CLI_PATH, runCli, startServeProcess } from '../support/cli.ts';

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

  describe('memory settings (src/runtime/serverMemory.ts)', () => {
    const procFile = (pid: number, name: string) => readFileSync(`/proc/${pid}/${name}`, 'utf8').split('\0');
    before(function () {
      if (process.platform !== 'linux') this.skip();
    });

    it('started without them, serve re-executes itself once: same pid, the flag and the MALLOC_ variables', async () => {
      const server = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir, MALLOC_ARENA_MAX: undefined, MALLOC_MMAP_THRESHOLD_: undefined, NODE_OPTIONS: undefined });
      try {
        const cmdline = procFile(server.pid, 'cmdline');
        const environ = procFile(server.pid, 'environ');
        assert.ok(cmdline.includes('--max-semi-space-size=2'), cmdline.join(' '));
        assert.ok(environ.includes('MALLOC_ARENA_MAX=2'));
        assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=32768'));
        assert.ok(environ.includes('LEASEHOLD_SERVE_EXECED=1'));
        assert.equal(JSON.parse(readFileSync(join(runtimeDir, 'server.json'), 'utf8')).pid, server.pid, 'the pid its parent spawned serves');
      } finally {
        await server.stop();
      }
    });

    it('keeps values the user chose, and re-executes for none when all are given', async () => {
      const server = await startServeProcess([], {
        LEASEHOLD_DATA_DIR: dataDir,
        LEASEHOLD_RUNTIME_DIR: runtimeDir,
        MALLOC_ARENA_MAX: '4',
        MALLOC_MMAP_THRESHOLD_: '65536',
        NODE_OPTIONS: '--max-semi-space-size=4',
      });
      try {
        const environ = procFile(server.pid, 'environ');
        assert.ok(environ.includes('MALLOC_ARENA_MAX=4'));
        assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=65536'));
        assert.ok(!procFile(server.pid, 'cmdline').includes('--max-semi-space-size=2'));
        assert.ok(!environ.some((entry) => entry.startsWith('LEASEHOLD_SERVE_EXECED=')));
      } finally {
        await server.stop();
      }
    });

    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      it(`the re-executed server stops on ${signal} with exit code 0, and removes server.json`, async () => {
        const child = spawn(process.execPath, [CLI_PATH, 'serve'], {
          env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir, MALLOC_ARENA_MAX: undefined },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, sig) => resolve([code, sig])));
        // The signal lands the moment server.json appears, while the server may still be starting:
        // it must stop cleanly then too (it was killed by the signal, leaving server.json behind).
        const deadline = Date.now() + 15_000;
        while (!existsSync(join(runtimeDir, 'server.json'))) {
          assert.ok(Date.now() < deadline, 'timed out waiting for server.json');
          await new Promise((resolve) => setImmediate(resolve));
        }
        assert.ok(procFile(child.pid!, 'environ').includes('LEASEHOLD_SERVE_EXECED=1'));
        child.kill(signal);
        assert.deepEqual(await exited, [0, null]);
        assert.equal(existsSync(join(runtimeDir, 'server.json')), false);
      });
    }

    it('a usage error still exits 2 with its message, once', async () => {
      const result = await runCli(['serve', '--port', 'abc'], { env: { MALLOC_ARENA_MAX: undefined } });
      assert.equal(result.code, 2);
      assert.equal(result.stderr.match(/--port: must be a whole number/g)?.length, 1, result.stderr);
    });
  });
});
