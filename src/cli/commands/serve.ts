// `leasehold serve`: run the lease server in the foreground until SIGINT/SIGTERM.
import type { Command } from 'commander';
import { defaultDataDir, defaultRuntimeDir } from '../../runtime/paths.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the lease server (embedded SQLite by default; PostgreSQL with --database-url or LEASEHOLD_DATABASE_URL)')
    .option('--data-dir <dir>', 'where the embedded database lives (env LEASEHOLD_DATA_DIR)')
    .option('--database-url <url>', 'PostgreSQL connection string for team mode (env LEASEHOLD_DATABASE_URL)')
    .option('--port <port>', 'port on 127.0.0.1 (default: a free one, published in server.json)', (value) => Number(value))
    .action(async (options: { dataDir?: string; databaseUrl?: string; port?: number }, command: Command) => {
      const { startLeaseServer } = await import('../../server/app.ts');
      const globals = command.optsWithGlobals() as { runtimeDir?: string };
      const databaseUrl = options.databaseUrl ?? process.env.LEASEHOLD_DATABASE_URL;
      const server = await startLeaseServer({
        storage: databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'sqlite', dataDir: options.dataDir ?? defaultDataDir() },
        runtimeDir: globals.runtimeDir ?? defaultRuntimeDir(),
        port: options.port,
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
