// `leasehold ledger suggest` against a real `leasehold serve`: suggestions come from released
// leases' measured durations only, are shown, and are never applied.
import assert from 'node:assert/strict';
import { runCli, serveForSuite } from '../support/cli.ts';

describe('leasehold ledger suggest (real processes)', function () {
  this.timeout(60_000);
  const server = serveForSuite();
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { LEASEHOLD_RUNTIME_DIR: server.runtimeDir(), ...env } });

  it('suggests a TTL per job type from released leases only, and says it applies nothing', async () => {
    const empty = await cli(['ledger', 'suggest']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stdout, /nothing measured to suggest from/);
    for (let n = 0; n < 5; n++) {
      const acquired = await cli(['pane', 'wait-lease', 'acquire', '--pane', 'suggest', '--id', `unit-${n}`, '--ttl', '2h', '--job-type', 'test']);
      assert.equal(acquired.code, 0, acquired.stderr);
      const token = /LEASEHOLD_LEASE_TOKEN=(\S+)/.exec(acquired.stdout)![1]!;
      const released = await cli(['pane', 'wait-lease', 'release', '--pane', 'suggest', '--id', `unit-${n}`, '--reason', 'done'], { LEASEHOLD_LEASE_TOKEN: token });
      assert.equal(released.code, 0, released.stderr);
    }
    // An open lease with a long declared TTL is no measurement.
    await cli(['pane', 'wait-lease', 'acquire', '--pane', 'suggest', '--id', 'open', '--ttl', '2h', '--job-type', 'build']);
    const table = await cli(['ledger', 'suggest']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^JOB_TYPE\s+SAMPLES\s+P50\s+P95\s+MAX\s+SUGGESTED_TTL$/m);
    // Measured durations (about a CLI round trip each) round up to whole seconds, never to the 2h declared.
    assert.match(table.stdout, /^test\s+5\s+\S+\s+\S+\s+\S+\s+\d{1,2}s$/m, table.stdout);
    assert.doesNotMatch(table.stdout, /^build/m);
    assert.match(table.stdout, /nothing applies it/);
    const json = JSON.parse((await cli(['ledger', 'suggest', '--json', '--min-samples', '6'])).stdout) as Array<{ job_type: string; samples: number; suggested_ttl_ms: number | null }>;
    assert.deepEqual(json.map((row) => [row.job_type, row.samples, row.suggested_ttl_ms]), [['test', 5, null]]);
    const bad = await cli(['ledger', 'suggest', '--percentile', '101']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--percentile: must be a whole number from 50 to 100/);
  });
});
