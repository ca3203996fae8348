// Where the hook bundle (dist/cli/hook.js) is, for the command the installer writes into
// Claude Code's settings. Bundled code lives in dist/cli/ or dist/cli/chunks/; sources in
// src/cli/ (tests, `node src/...`) point at the built bundle of the same checkout.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CANDIDATES = ['./hook.js', '../hook.js', '../../dist/cli/hook.js', '../../../dist/cli/hook.js'];

export function locateHookBundle(from: string = import.meta.url): string | undefined {
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, from));
    if (existsSync(path)) return path;
  }
  return undefined;
}
