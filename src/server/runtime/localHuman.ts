// A local install's human: created at first start; its token lives only in the runtime dir
// (0600) and as a hash in the database. A missing or stale token file (a cleared runtime
// dir) gets a fresh token.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Clock } from '../../core/clock.ts';
import { generateId, generateToken, hashToken } from '../auth/tokens.ts';
import type { ClaimStore } from '../claims/claimStore.ts';
import type { HumanRecord } from '../claims/records.ts';
import { writePrivateFile } from '../../runtime/discovery.ts';
import { runtimeFiles } from '../../runtime/paths.ts';

export function localHumanName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'local';
  }
}

export async function ensureLocalHuman(
  store: ClaimStore,
  runtimeDir: string,
  clock: Clock,
  name = localHumanName(),
): Promise<{ human: HumanRecord; token: string }> {
  const tokenPath = runtimeFiles.token(runtimeDir);
  let saved: string | undefined;
  try {
    saved = readFileSync(tokenPath, 'utf8').trim();
  } catch {
    saved = undefined;
  }
  const existing = await store.findHumanByName(name);
  if (existing && saved) {
    const owner = await store.findHumanByTokenHash(hashToken(saved));
    if (owner?.id === existing.id) return { human: existing, token: saved };
  }
  const token = generateToken('human');
  let human = existing;
  if (human) {
    await store.setHumanTokenHash(human.id, hashToken(token));
  } else {
    human = { id: generateId('hu'), name, created_at: clock.nowMs() };
    await store.insertHuman({ ...human, token_hash: hashToken(token) });
  }
  writePrivateFile(tokenPath, `${token}\n`);
  return { human, token };
}
