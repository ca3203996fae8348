// `leasehold serve`: run the lease server in the foreground until SIGINT/SIGTERM.
import type { Command } from 'commander';
import { defaultDataDir, defaultRuntimeDir } from '../../runtime/paths.ts';
import { UsageError } from '../output.ts';
import { identityProblem } from '../../core/identity.ts';
import { readSecretFile, warnSecretOnCommandLine } from '../connect.ts';
import { parseDurationMs, parseWholeNumber } from './waitLeaseArgs.ts';

/** --hard-max-ttl (a duration), else LEASEHOLD_HARD_MAX_TTL_MS (ms), else the server default (1h). */
function hardMaxTtlMsOf(flag: string | undefined): number | undefined {
  if (flag !== undefined) return parseDurationMs(flag, '--hard-max-ttl');
  const env = process.env.LEASEHOLD_HARD_MAX_TTL_MS;
  if (env === undefined || env === '') return undefined;
  const ms = parseWholeNumber(env, 'LEASEHOLD_HARD_MAX_TTL_MS');
  if (ms <= 0) throw new UsageError('LEASEHOLD_HARD_MAX_TTL_MS: must be a positive whole number of milliseconds');
  return ms;
}

/** --identity, else LEASEHOLD_IDENTITY; a name the rule refuses is a usage error naming where it came from. */
function identityOf(flag: string | undefined): string | undefined {
  const value = flag ?? (process.env.LEASEHOLD_IDENTITY || undefined);
  if (value === undefined) return undefined;
  const problem = identityProblem(value, flag !== undefined ? '--identity' : 'LEASEHOLD_IDENTITY');
  if (problem) throw new UsageError(problem);
  return value;
}

/** True when a connection string carries a password (postgres://user:secret@host or ?password=). */
function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}

/** A PostgreSQL connection string the pg driver can use, or a usage error naming where it came from. */
function checkDatabaseUrl(url: string, source: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['postgres:', 'postgresql:'].includes(parsed.protocol) || parsed.hostname === '') {
    throw new UsageError(`${source}: must be a PostgreSQL URL such as postgres://user@host:5432/dbname (got something else)`);
  }
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the lease server (embedded SQLite by default; PostgreSQL with --database-url or LEASEHOLD_DATABASE_URL)')
    .option('--data-dir <dir>', 'where the embedded database lives (env LEASEHOLD_DATA_DIR)')
    .option('--database-url <url>', 'PostgreSQL connection string for team mode; one with a password is visible to other users in `ps`, so prefer env LEASEHOLD_DATABASE_URL or --database-url-file')
    .option('--database-url-file <path>', 'read the PostgreSQL connection string from a file readable by you alone (mode 600)')
    .option('--port <port>', 'port on 127.0.0.1, 0-65535 (default: a free one, published in server.json)', (value) => {
      const port = parseWholeNumber(value, '--port');
      if (port > 65_535) throw new UsageError(`--port: must be a whole number 0-65535 (got ${JSON.stringify(value)})`);
      return port;
    })
    .option('--identity <name>', 'team mode: the identity (human) this server acts as; the same name on each of your machines makes them one human (env LEASEHOLD_IDENTITY; default: this machine\'s last, else user@host)')
    .option('--hard-max-ttl <duration>', 'most authority one wait-lease grant may carry, e.g. 1h (env LEASEHOLD_HARD_MAX_TTL_MS in ms; default 1h)')
    .action(async (options: { dataDir?: string; databaseUrl?: string; databaseUrlFile?: string; port?: number; hardMaxTtl?: string; identity?: string }, command: Command) => {
      const hardMaxTtlMs = hardMaxTtlMsOf(options.hardMaxTtl);
      if (hardMaxTtlMs !== undefined && hardMaxTtlMs <= 0) throw new UsageError('--hard-max-ttl: must be positive');
      const { startLeaseServer } = await import('../../server/app.ts');
      const globals = command.optsWithGlobals() as { runtimeDir?: string };
      if (options.databaseUrl !== undefined && options.databaseUrlFile !== undefined) throw new UsageError('--database-url and --database-url-file: give one, not both');
      if (options.databaseUrl !== undefined && hasPassword(options.databaseUrl)) {
        warnSecretOnCommandLine('--database-url with a password', 'LEASEHOLD_DATABASE_URL or --database-url-file');
        // Overwrites argv in /proc/<pid>/cmdline (libuv reuses its memory), so the password
        // stops showing in `ps` for the server's lifetime; the warning stands for the moment before.
        process.title = 'leasehold serve';
      }
      const databaseUrl = options.databaseUrl ?? (options.databaseUrlFile ? readSecretFile(options.databaseUrlFile, '--database-url-file') : undefined) ?? (process.env.LEASEHOLD_DATABASE_URL || undefined);
      if (databaseUrl !== undefined) checkDatabaseUrl(databaseUrl, options.databaseUrl !== undefined ? '--database-url' : options.databaseUrlFile !== undefined ? '--database-url-file' : 'LEASEHOLD_DATABASE_URL');
      const server = await startLeaseServer({
        storage: databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'sqlite', dataDir: options.dataDir ?? defaultDataDir() },
        runtimeDir: globals.runtimeDir ?? defaultRuntimeDir(),
        port: options.port,
        hardMaxTtlMs,
        identity: identityOf(options.identity),
      });
      if (server.identityNotice) process.stdout.write(`${server.identityNotice}\n`);
      process.stdout.write(`Leasehold lease server ${server.url} (pid ${process.pid}, ${databaseUrl ? 'PostgreSQL' : 'SQLite'}, schema v${server.schemaVersion})\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
    });
}
