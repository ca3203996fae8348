// `leasehold serve --hard-max-ttl-for TYPE=DUR`: a per-job-type cap that can only tighten the
// global one, as a user sets it (real serve process, real CLI).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tempDir } from '../support/storage.ts';
import { runCli, serveForSuite } from '../support/cli.ts';

describe('leasehold serve --hard-max-ttl-for (real processes)', function () {
  this.timeout(60_000);
  const server = serveForSuite(['--hard-max-ttl', '1h', '--hard-max-ttl-for', 'test=10m']);
  const cli = (args: string[]) => runCli(args, { env: { LEASEHOLD_RUNTIME_DIR: server.runtimeDir() } });

  it('clamps a lease of that type; other types keep the global cap', async () => {
    const capped = await cli(['pane', 'wait-lease', 'acquire', '--pane', 'caps', '--id', 'unit', '--ttl', '30m', '--job-type', 'test']);
    assert.equal(capped.code, 0, capped.stderr);
    assert.match(capped.stderr, /10m of authority \(clamped by hard_max\)/);
    const free = await cli(['pane', 'wait-lease', 'acquire', '--pane', 'caps', '--id', 'compile', '--ttl', '30m', '--job-type', 'build']);
    assert.match(free.stderr, /30m of authority\. /);
  });

  it('refuses a looser per-type cap, an unknown type and a malformed entry before starting', async () => {
    const dataDir = tempDir('data');
    const runtimeDir = tempDir('runtime');
    try {
      const env = { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir };
      const looser = await runCli(['serve', '--hard-max-ttl', '1h', '--hard-max-ttl-for', 'build=2h'], { env });
      assert.equal(looser.code, 2);
      assert.match(looser.stderr, /--hard-max-ttl-for: hard_max_ttl_by_job_type\.build .* can only tighten it/);
      const unknown = await runCli(['serve', '--hard-max-ttl-for', 'lint=5m'], { env });
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /"lint" is not a job type/);
      const malformed = await runCli(['serve'], { env: { ...env, LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE: 'test:5m' } });
      assert.equal(malformed.code, 2);
      assert.match(malformed.stderr, /LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE: each entry is JOB_TYPE=DURATION/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });
});
