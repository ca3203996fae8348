// The lease server's memory settings (src/runtime/serverMemory.ts): what a spawn adds, what a
// user's own values keep, and when `leasehold serve` re-executes itself.
import assert from 'node:assert/strict';
import { missingServerSettings, reexecWithServerSettings, serverSpawnSettings } from '../../src/runtime/serverMemory.ts';

describe('server memory settings', () => {
  it('a plain environment gets the semi-space flag, MALLOC_ARENA_MAX=2 and a fixed 32 KB mmap threshold', () => {
    assert.deepEqual(serverSpawnSettings({}), { flags: ['--max-semi-space-size=2'], env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768' } });
  });

  it("the user's values stay: a flag in execArgv or NODE_OPTIONS (either spelling), an arena count in the env", () => {
    assert.deepEqual(missingServerSettings(['--max-semi-space-size=8'], {}).flags, []);
    assert.deepEqual(missingServerSettings([], { NODE_OPTIONS: '--no-warnings --max_semi_space_size=4' }).flags, []);
    assert.deepEqual(missingServerSettings([], { MALLOC_ARENA_MAX: '8' }).env, { MALLOC_MMAP_THRESHOLD_: '32768' }, 'each variable is kept or added on its own');
    assert.deepEqual(missingServerSettings([], { MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '0' }).env, {});
    assert.deepEqual(missingServerSettings(['--max-semi-space-size-x'], {}).flags, ['--max-semi-space-size=2'], 'another flag is not this one');
  });

  it('serve re-executes with what is missing, argv and env kept, and never twice', () => {
    const calls: Array<{ file: string; args: readonly string[]; env: NodeJS.ProcessEnv }> = [];
    const fake = (env: NodeJS.ProcessEnv, execArgv: string[] = ['--no-warnings'], platform = 'linux') =>
      ({
        env,
        execArgv,
        platform,
        execPath: '/usr/bin/node',
        argv: ['/usr/bin/node', '/opt/leasehold/bin/leasehold.cjs', 'serve', '--port', '0'],
        execve: (file: string, args: readonly string[], execEnv: NodeJS.ProcessEnv) => void calls.push({ file, args, env: execEnv }),
      }) as unknown as NodeJS.Process;
    reexecWithServerSettings(fake({ PATH: '/bin' }));
    assert.deepEqual(calls, [
      {
        file: '/usr/bin/node',
        args: ['/usr/bin/node', '--no-warnings', '--max-semi-space-size=2', '/opt/leasehold/bin/leasehold.cjs', 'serve', '--port', '0'],
        env: { PATH: '/bin', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768', LEASEHOLD_SERVE_EXECED: '1' },
      },
    ]);
    reexecWithServerSettings(fake({ LEASEHOLD_SERVE_EXECED: '1' }, []));
    reexecWithServerSettings(fake({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768' }, ['--max-semi-space-size=2']));
    reexecWithServerSettings(fake({}, [], 'win32'));
    assert.equal(calls.length, 1, 'already re-executed, nothing missing, or Windows: the process runs as it is');
    const failing = { ...fake({}), execve: () => { throw new Error('EACCES'); } } as unknown as NodeJS.Process;
    assert.doesNotThrow(() => reexecWithServerSettings(failing), 'a failed execve leaves the server to run as it is');
  });
});
