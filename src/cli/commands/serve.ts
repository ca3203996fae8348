// `leasehold serve`: run the lease server in the foreground until SIGINT/SIGTERM.
import type { Command } from 'commander';
import { defaultDataDir, defaultRuntimeDir } from '../../runtime/paths.ts';
import { UsageError } from '../output.ts';
import { identityProblem } from '../../core/identity.ts';
import { readSecretFile, warnSecretOnCommandLine } from '../connect.ts';
import { parseDurationMs, parseWholeNumber } from './waitLeaseArgs.ts';
import { DEFAULT_HARD_MAX_TTL_MS, validateHardMaxTtlByJobType } from '../../core/waitLease/grant.ts';
import { reexecWithServerSettings } from '../../runtime/serverMemory.ts';

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

/**
 * --hard-max-ttl-for "test=30m,build=2h" (repeatable), else LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE in
 * the same form. Durations become ms here; which types exist and that each only tightens the
 * global cap is core's rule (validateHardMaxTtlByJobType), applied when the server starts.
 */
export function hardMaxTtlByJobTypeOf(flags: readonly string[] | undefined): Record<string, number> | undefined {
  const fromFlag = flags !== undefined && flags.length > 0;
  const text = fromFlag ? flags.join(',') : process.env.LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE;
  if (text === undefined || text.trim() === '') return undefined;
  const source = fromFlag ? '--hard-max-ttl-for' : 'LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE';
  const caps: Record<string, number> = {};
  for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const match = /^([^=\s]+)=(.+)$/.exec(entry);
    if (!match) throw new UsageError(`${source}: each entry is JOB_TYPE=DURATION, e.g. test=30m (got ${JSON.stringify(entry)})`);
    caps[match[1]!] = parseDurationMs(match[2]!, `${source} ${match[1]}`);
  }
  return caps;
}

/** A whole number from the environment, or undefined when unset or empty. */
function envWholeNumber(name: string): number | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : parseWholeNumber(value, name);
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
    .option(
      '--hard-max-ttl-for <type=duration>',
      'a tighter hard max TTL for one job type, e.g. test=30m; repeatable or comma-separated (env LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE); never looser than --hard-max-ttl',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--no-inference', "do not infer wait-leases from the panes' process trees and Claude Code's session files")
    .option('--chain-cap <duration>', 'unattended authority per job-ref chain, renewals included; reached: CHAIN_CAP_REACHED, page now (env LEASEHOLD_CHAIN_CAP_MS in ms; default 4h)')
    .option('--identical-renewal-limit <k>', 'K: this many renewals in a row with the same evidence and no progress escalate to a page, NO_PROGRESS (env LEASEHOLD_IDENTICAL_RENEWAL_LIMIT; default 12)')
    .action(async (options: { dataDir?: string; databaseUrl?: string; databaseUrlFile?: string; port?: number; hardMaxTtl?: string; identity?: string; hardMaxTtlFor?: string[]; chainCap?: string; identicalRenewalLimit?: string; inference?: boolean }, command: Command) => {
      // Before anything else: the server's memory settings need a process started with them
      // (src/runtime/serverMemory.ts); this replaces the process once, keeping its pid and stdio.
      reexecWithServerSettings();
      // Listened for from here on, not only once the server runs: server.json is written during
      // start, and a SIGINT/SIGTERM landing between that and a later listener would kill the
      // process by default, leaving server.json behind. A signal during start stops it right after.
      const stopRequested = new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      const hardMaxTtlMs = hardMaxTtlMsOf(options.hardMaxTtl);
      if (hardMaxTtlMs !== undefined && hardMaxTtlMs <= 0) throw new UsageError('--hard-max-ttl: must be positive');
      const hardMaxTtlMsByJobType = hardMaxTtlByJobTypeOf(options.hardMaxTtlFor);
      if (hardMaxTtlMsByJobType !== undefined) {
        // Refused before anything starts, in the flag's words; the server applies the same core rule.
        try {
          validateHardMaxTtlByJobType(hardMaxTtlMsByJobType, hardMaxTtlMs ?? DEFAULT_HARD_MAX_TTL_MS);
        } catch (error) {
          throw new UsageError(`--hard-max-ttl-for: ${(error as Error).message}`);
        }
      }
      const chainCapMs = options.chainCap !== undefined ? parseDurationMs(options.chainCap, '--chain-cap') : envWholeNumber('LEASEHOLD_CHAIN_CAP_MS');
      if (chainCapMs !== undefined && chainCapMs <= 0) throw new UsageError('--chain-cap: must be positive');
      const identicalRenewalLimit =
        options.identicalRenewalLimit !== undefined ? parseWholeNumber(options.identicalRenewalLimit, '--identical-renewal-limit') : envWholeNumber('LEASEHOLD_IDENTICAL_RENEWAL_LIMIT');
      if (identicalRenewalLimit !== undefined && identicalRenewalLimit < 1) throw new UsageError('--identical-renewal-limit: must be at least 1');
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
        hardMaxTtlMsByJobType,
        chainCapMs,
        identicalRenewalLimit,
        ...(options.inference === false ? { inference: false as const } : {}),
      });
      if (server.identityNotice) process.stdout.write(`${server.identityNotice}\n`);
      process.stdout.write(`Leasehold lease server ${server.url} (pid ${process.pid}, ${databaseUrl ? 'PostgreSQL' : 'SQLite'}, schema v${server.schemaVersion})\n`);
      await stopRequested;
      await server.close();
    });
}
