// Finds the server a command talks to: --server/--token, then LEASEHOLD_URL/LEASEHOLD_TOKEN,
// then the runtime dir's discovery and token files.
import { readFileSync } from 'node:fs';
import { LeaseholdClient } from '../client/client.ts';
import { readDiscovery } from '../runtime/discovery.ts';
import { defaultRuntimeDir, runtimeFiles } from '../runtime/paths.ts';
import { UsageError } from './output.ts';

export interface ConnectionOptions {
  server?: string;
  token?: string;
  runtimeDir?: string;
}

export function runtimeDirOf(options: ConnectionOptions): string {
  return options.runtimeDir ?? defaultRuntimeDir();
}

export function connect(options: ConnectionOptions, timeoutMs?: number): LeaseholdClient {
  const runtimeDir = runtimeDirOf(options);
  // An empty variable means unset (a shell's `LEASEHOLD_URL= cmd`), not a URL.
  const baseUrl = options.server || process.env.LEASEHOLD_URL || readDiscovery(runtimeDir)?.url;
  if (!baseUrl) {
    throw new UsageError(
      `no lease server found: ${runtimeFiles.discovery(runtimeDir)} does not exist. Start one with \`leasehold serve\` (or open VS Code with the Leasehold extension), or pass --server URL.`,
    );
  }
  let token = options.token || process.env.LEASEHOLD_TOKEN || undefined;
  if (!token) {
    try {
      token = readFileSync(runtimeFiles.token(runtimeDir), 'utf8').trim();
    } catch {
      token = undefined;
    }
  }
  return new LeaseholdClient({ baseUrl, token, timeoutMs });
}
