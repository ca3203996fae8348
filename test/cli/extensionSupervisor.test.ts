// The extension's server supervisor with real processes (no VS Code): spawns the bundled
// `leasehold serve` detached, a second window's supervisor adopts the same server, and a
// killed server is restarted. Needs the build (dist/cli/leasehold.js).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServerState } from '../../src/extension/model/serverStatus.ts';
import { RestartPolicy } from '../../src/extension/server/restartPolicy.ts';
import { chooseServerRuntime } from '../../src/extension/server/runtime.ts';
import { ServerSupervisor } from '../../src/extension/server/supervisor.ts';
import { isProcessAlive } from '../../src/runtime/discovery.ts';
import { tempDir } from '../support/storage.ts';

const cliScript = resolve('dist/cli/leasehold.js');

function supervisor(runtimeDir: string, dataDir: string, states: ServerState[]) {
  return new ServerSupervisor({
    runtimeDir,
    cliScript,
    launch: () => ({ args: ['--data-dir', dataDir], env: {} }),
    chooseRuntime: () =>
      chooseServerRuntime({ execPath: process.execPath, nodeVersion: process.versions.node, isElectron: false, setting: '', versionOf: async () => undefined, findNodeOnPath: async () => undefined }),
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    onState: (state) => states.push(state),
    policy: new RestartPolicy({ initialDelayMs: 100 }),
  });
}

async function until(description: string, probe: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('extension server supervisor (real processes)', function () {
  this.timeout(60_000);
  const runtimeDir = tempDir('ext-runtime');
  const dataDir = tempDir('ext-data');
  const pids = new Set<number>();

  before(function () {
    if (!existsSync(cliScript)) this.skip();
  });

  after(() => {
    for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGTERM');
    rmSync(runtimeDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('spawns a detached server, shares it with a second window, and restarts it after a crash', async () => {
    const firstStates: ServerState[] = [];
    const first = supervisor(runtimeDir, dataDir, firstStates);
    await first.ensureRunning();
    const running = first.state;
    assert.equal(running.kind, 'running', JSON.stringify(running));
    if (running.kind !== 'running') return;
    pids.add(running.pid);
    assert.equal(running.adopted, false);
    assert.ok(existsSync(join(runtimeDir, 'server.log')));
    assert.equal((await first.client!.health()).ok, true);
    if (process.platform === 'linux') {
      // Spawned with the server's memory settings (src/runtime/serverMemory.ts), so serve did not re-execute.
      const cmdline = readFileSync(`/proc/${running.pid}/cmdline`, 'utf8').split('\0');
      const environ = readFileSync(`/proc/${running.pid}/environ`, 'utf8').split('\0');
      assert.ok(cmdline.includes('--max-semi-space-size=2'), cmdline.join(' '));
      assert.ok(environ.includes('MALLOC_ARENA_MAX=2'));
      assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=32768'));
      assert.ok(!environ.some((entry) => entry.startsWith('LEASEHOLD_SERVE_EXECED=')), 'no re-exec needed');
    }

    const second = supervisor(runtimeDir, dataDir, []);
    await second.ensureRunning();
    assert.equal(second.state.kind, 'running');
    assert.equal(second.state.kind === 'running' && second.state.pid, running.pid, 'several windows share one server');
    assert.equal(second.state.kind === 'running' && second.state.adopted, true);

    process.kill(running.pid, 'SIGKILL');
    await until('a restarted server', () => first.state.kind === 'running' && first.state.pid !== running.pid);
    if (first.state.kind === 'running') pids.add(first.state.pid);
    assert.ok(firstStates.some((state) => state.kind === 'restarting'));
    first.dispose();
    second.dispose();
  });
});
