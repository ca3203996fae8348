// `leasehold serve`: run the lease server in the foreground until SIGINT/SIGTERM.
import type { Command } from 'commander';
import { defaultDataDir, defaultRuntimeDir } from '../../runtime/paths.ts';
import { UsageError } from '../output.ts';
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

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the lease server (embedded SQLite by default; PostgreSQL with --database-url or LEASEHOLD_DATABASE_URL)')
    .option('--data-dir <dir>', 'where the embedded database lives (env LEASEHOLD_DATA_DIR)')
    .option('--database-url <url>', 'PostgreSQL connection string for team mode (env LEASEHOLD_DATABASE_URL)')
    .option('--port <port>', 'port on 127.0.0.1 (default: a free one, published in server.json)', (value) => Number(value))
    .option('--hard-max-ttl <duration>', 'most authority one wait-lease grant may carry, e.g. 1h (env LEASEHOLD_HARD_MAX_TTL_MS in ms; default 1h)')
    .action(async (options: { dataDir?: string; databaseUrl?: string; port?: number; hardMaxTtl?: string }, command: Command) => {
      const hardMaxTtlMs = hardMaxTtlMsOf(options.hardMaxTtl);
      if (hardMaxTtlMs !== undefined && hardMaxTtlMs <= 0) throw new UsageError('--hard-max-ttl: must be positive');
      const { startLeaseServer } = await import('../../server/app.ts');
      const globals = command.optsWithGlobals() as { runtimeDir?: string };
      const databaseUrl = options.databaseUrl ?? process.env.LEASEHOLD_DATABASE_URL;
      const server = await startLeaseServer({
        storage: databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'sqlite', dataDir: options.dataDir ?? defaultDataDir() },
        runtimeDir: globals.runtimeDir ?? defaultRuntimeDir(),
        port: options.port,
        hardMaxTtlMs,
      });
      process.stdout.write(`Leasehold lease server ${server.url} (pid ${process.pid}, ${databaseUrl ? 'PostgreSQL' : 'SQLite'}, schema v${server.schemaVersion})\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
    });
}
