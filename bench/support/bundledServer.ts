// A lease server in a process of its own, run from an esbuild bundle as `leasehold serve` ships
// (dist/cli), not from .ts sources: Node's type stripping alone costs ~17 MB that no user pays.
// The memory benches (claimPeers' RSS figure, serverSettings) start it with the Node flags and
// environment under test; the hold loop's tick (holdTicks.ts) bundles its own entry.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LeaseholdClient } from '../../src/client/client.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Bundles a bench server entry (bench/support/mcpSessionServer.ts unless told); returns the bundle's path and how to remove it. */
export async function bundleServer(entry = 'bench/support/mcpSessionServer.ts'): Promise<{ path: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-bench-bundle-'));
  const path = join(dir, 'server.mjs');
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, entry)],
    outfile: path,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    logLevel: 'warning',
    banner: { js: "import { createRequire as __leaseholdCreateRequire } from 'node:module'; const require = __leaseholdCreateRequire(import.meta.url);" },
    external: ['pg-native'],
  });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface BundledServer {
  child: ChildProcess;
  url: string;
  /** The vended endpoint's token (slug `bench`). */
  endpointToken: string;
  human: LeaseholdClient;
  stop(): void;
}

/**
 * Starts the bundle with `flags` and `env` added and the variables named in `unset` removed
 * from this process's environment; resolves once it has printed where it listens.
 */
export async function startBundledServer(bundle: string, flags: readonly string[], env: Record<string, string>, unset: readonly string[] = []): Promise<BundledServer> {
  const environment: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of unset) delete environment[name];
  const child = spawn(process.execPath, [...flags, bundle, '{}'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: environment });
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('\n')) resolve(buffered.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
  const { url, token, humanToken } = JSON.parse(line) as { url: string; token: string; humanToken: string };
  return { child, url, endpointToken: token, human: new LeaseholdClient({ baseUrl: url, token: humanToken }), stop: () => child.kill('SIGTERM') };
}

/** The requests rssLoad makes. */
export const RSS_LOAD_REQUESTS = 11_000;

/** The load behind the RSS target: 10,000 todos and 1,000 wait-leases over HTTP, 8 at a time. */
export async function rssLoad(human: LeaseholdClient): Promise<void> {
  await inParallel(10_000, (index) => human.createTodo({ queue: `rss${index % 10}`, title: `todo ${index}` }));
  await inParallel(1000, (index) => human.acquireWaitLease({ pane: `pane${index % 100}`, job_ref: `job-${index}`, ttl_ms: 600_000 }));
}

export async function inParallel(count: number, make: (index: number) => Promise<unknown>, concurrency = 8): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await make(next++);
  }));
}

/** CPU time (user + system, ms) a process has used so far. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks (100/s on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
