// Bearer tokens: random, shown once, stored only as a SHA-256 hash. They are 256-bit random
// strings, so a fast hash is enough (no password stretching needed).
import { createHash, randomBytes } from 'node:crypto';

export type TokenKind = 'human' | 'endpoint' | 'lease';

const TOKEN_PREFIX: Record<TokenKind, string> = { human: 'lhh_', endpoint: 'lhe_', lease: 'lhl_' };

export function generateToken(kind: TokenKind): string {
  return TOKEN_PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Short random ids with a type prefix: ep_…, td_…, wl_… */
export function generateId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x')}`;
}
