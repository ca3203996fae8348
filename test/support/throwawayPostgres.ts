// A throwaway PostgreSQL cluster for fault tests that stop and start the database (never the
// shared one at 5432): initdb + pg_ctl in a temp dir on a spare port. initdb refuses to run as
// root, so as root the cluster belongs to the `postgres` user (runuser). Port and parent dir
// come from LEASEHOLD_FAULT_PG_PORT (default 55433) and LEASEHOLD_FAULT_PG_TMP (default the
// system temp dir).
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** Why a throwaway cluster cannot be made here, or null when it can. */
export function throwawayPostgresUnavailable(): string | null {
  if (!postgresBin()) return 'initdb/pg_ctl not found under /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0 && !postgresUser()) return 'running as root and there is no postgres user to run initdb as';
  return null;
}

export interface ThrowawayCluster {
  url: string;
  port: number;
  dir: string;
  start(): void;
  /** Fast shutdown: sessions are terminated, as in a real restart. */
  stop(): void;
  log(): string;
  destroy(): void;
}

export function createThrowawayCluster(): ThrowawayCluster {
  const bin = postgresBin()!;
  const port = Number(process.env.LEASEHOLD_FAULT_PG_PORT ?? 55433);
  const dir = mkdtempSync(join(process.env.LEASEHOLD_FAULT_PG_TMP ?? tmpdir(), 'leasehold-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const user = postgresUser()!;
    chownSync(dir, user.uid, user.gid);
  }
  const run = (tool: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe', cwd: dir })
      : execFileSync(join(bin, tool), args, { stdio: 'pipe', cwd: dir });
  const data = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c max_connections=100`;
  const cluster: ThrowawayCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start: () => void run('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']),
    stop: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    log: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
    destroy: () => {
      try {
        cluster.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
