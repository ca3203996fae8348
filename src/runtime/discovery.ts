// Runtime files shared by the server (writer) and its clients (readers).
// server.json: how clients find the running server. Written atomically, mode 0600.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { runtimeFiles } from './paths.ts';

export const discoverySchema = z.object({
  pid: z.number().int(),
  port: z.number().int(),
  url: z.string(),
  version: z.string(),
  storage: z.enum(['sqlite', 'postgres']),
  data_dir: z.string().nullable(),
  started_at: z.number(),
});
export type Discovery = z.infer<typeof discoverySchema>;

/** Writes a file atomically (tmp then rename) with mode 0600, creating its dir 0700. */
export function writePrivateFile(path: string, contents: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function writeDiscovery(runtimeDir: string, discovery: Discovery): void {
  writePrivateFile(runtimeFiles.discovery(runtimeDir), `${JSON.stringify(discovery, null, 2)}\n`);
}

export function readDiscovery(runtimeDir: string): Discovery | undefined {
  try {
    return discoverySchema.parse(JSON.parse(readFileSync(runtimeFiles.discovery(runtimeDir), 'utf8')));
  } catch {
    return undefined;
  }
}

/** Removes server.json only if it still names this process (a successor may own it). */
export function removeDiscovery(runtimeDir: string, pid = process.pid): void {
  if (readDiscovery(runtimeDir)?.pid === pid) rmSync(runtimeFiles.discovery(runtimeDir), { force: true });
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
