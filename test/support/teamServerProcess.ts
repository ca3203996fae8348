// One lease server as its own process, for team-mode tests that need real separate machines
// on one database: the test starts it under `unshare --pid --fork --mount-proc`, so it sees
// only the processes of its own pid namespace. TEST SEAM: LH_TEAM_BOOT_ID replaces the boot id
// of its lease clock (namespaces share the kernel's /proc/sys/kernel/random/boot_id), so two
// processes on this host look like two machines booted separately. Everything else is the
// real server: the Linux boot-time clock, /proc process reads, PostgreSQL, HTTP.
//
// stdout: one JSON line {url, token, human, machine, pid} when listening, then one JSON line
// per command read on stdin: "spawn" starts `sleep 600` in this namespace ({spawned: pid as
// seen here}), "kill <pid>" kills one ({killed}).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { silentLogger, startLeaseServer, stderrLogger } from '../../src/server/app.ts';
import { LinuxBootTimeClock } from '../../src/server/clock/leaseClock.ts';

const env = process.env;
const number = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);

const server = await startLeaseServer({
  storage: { kind: 'postgres', url: env.LH_TEAM_DB_URL!, schema: env.LH_TEAM_SCHEMA },
  runtimeDir: env.LH_TEAM_RUNTIME_DIR!,
  logger: env.LH_TEAM_VERBOSE ? stderrLogger : silentLogger,
  leaseClock: new LinuxBootTimeClock({ bootId: env.LH_TEAM_BOOT_ID }),
  identity: env.LH_TEAM_IDENTITY ?? env.LH_TEAM_HUMAN,
  writeRateLimit: { capacity: 100_000, refillPerSecond: 100_000 },
  holdIntervalMs: number('LH_TEAM_HOLD_MS', 200),
  clockTickMs: number('LH_TEAM_CLOCK_TICK_MS', 200),
  waitLeaseBackstopMs: number('LH_TEAM_SWEEP_MS', 200),
  machineBeatMs: number('LH_TEAM_BEAT_MS', 200),
  machineSilentAfterMs: number('LH_TEAM_SILENT_MS', 2000),
  reaperBackstopMs: number('LH_TEAM_REAPER_MS', 500),
});

const children = new Map<number, ChildProcess>();
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
say({ url: server.url, token: server.token, human: server.human, machine: server.machines.identity.id, device: server.deviceId, notice: server.identityNotice, pid: process.pid });

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === 'spawn') {
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.set(child.pid!, child);
    say({ spawned: child.pid });
  } else if (command === 'kill') {
    const pid = Number(argument);
    children.get(pid)?.kill('SIGKILL');
    children.delete(pid);
    say({ killed: pid });
  }
});

const stop = async () => {
  for (const child of children.values()) child.kill('SIGKILL');
  await server.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
