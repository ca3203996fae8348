// Finds the server a command talks to: --server, then LEASEHOLD_URL, then the runtime dir's
// discovery file; and the token: LEASEHOLD_TOKEN, --token-file, the runtime dir's token file,
// or (warned about: `ps` shows it) --token. The human token goes to what server.json names only
// when the runtime dir is this user's alone and server.json names a live server of this user.
import { readFileSync, statSync } from 'node:fs';
import { LeaseholdClient } from '../client/client.ts';
import { discoverySchema } from '../runtime/discovery.ts';
import { defaultRuntimeDir, runtimeFiles } from '../runtime/paths.ts';
import { unsafeRuntimeDir, untrustedServer } from '../runtime/trust.ts';
import { UsageError } from './output.ts';

export interface ConnectionOptions {
  server?: string;
  token?: string;
  tokenFile?: string;
  runtimeDir?: string;
}

export function runtimeDirOf(options: ConnectionOptions): string {
  return options.runtimeDir ?? defaultRuntimeDir();
}

/** A secret from a file: must be this user's and readable by nobody else (like ssh keys). */
export function readSecretFile(path: string, flag: string): string {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    throw new UsageError(`${flag}: ${path} has mode ${(stat.mode & 0o777).toString(8)}; a secret file must be readable by you alone. Fix: chmod 600 ${path}`);
  }
  const value = readFileSync(path, 'utf8').trim();
  if (value === '') throw new UsageError(`${flag}: ${path} is empty`);
  return value;
}

/** Says once, on stderr, that a secret arrived on the command line, where `ps` shows it to every user. */
export function warnSecretOnCommandLine(flag: string, instead: string): void {
  process.stderr.write(`leasehold: warning: ${flag} on the command line is visible to every user of this machine (ps, /proc); use ${instead} instead.\n`);
}

/** The runtime dir's server URL, refusing an unsafe dir, an unreadable server.json and a server that is not this user's. */
function discoveredUrl(runtimeDir: string): string {
  const unsafe = unsafeRuntimeDir(runtimeDir);
  if (unsafe) throw new UsageError(unsafe);
  const path = runtimeFiles.discovery(runtimeDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    throw new UsageError(
      `no lease server found: ${path} does not exist. Start one with \`leasehold serve\` (or open VS Code with the Leasehold extension), or pass --server URL.`,
    );
  }
  let discovery;
  try {
    discovery = discoverySchema.parse(JSON.parse(text));
  } catch {
    throw new UsageError(`${path} is damaged (not the server's JSON). Restart the server (\`leasehold serve\`, or Leasehold: Restart Server in VS Code), which rewrites it, or pass --server URL.`);
  }
  const untrusted = untrustedServer(discovery);
  if (untrusted) throw new UsageError(`no lease server of yours is running: ${untrusted} (${path}). Start one with \`leasehold serve\`, or pass --server URL.`);
  return discovery.url;
}

export function connect(options: ConnectionOptions, timeoutMs?: number): LeaseholdClient {
  const runtimeDir = runtimeDirOf(options);
  // An empty variable means unset (a shell's `LEASEHOLD_URL= cmd`), not a URL.
  const baseUrl = options.server || process.env.LEASEHOLD_URL || discoveredUrl(runtimeDir);
  let token = options.token || process.env.LEASEHOLD_TOKEN || undefined;
  if (!token && options.tokenFile) token = readSecretFile(options.tokenFile, '--token-file');
  if (!token) {
    try {
      token = readFileSync(runtimeFiles.token(runtimeDir), 'utf8').trim();
    } catch {
      token = undefined;
    }
  }
  return new LeaseholdClient({ baseUrl, token, timeoutMs });
}
