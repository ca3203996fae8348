// Lease tokens: opaque bearer secrets issued at acquire; every later write presents one.
// Core does no crypto and no I/O: random bytes and the hash function come from the caller.

/** Fills a buffer of `length` cryptographically random bytes (the server passes node:crypto's). */
export type RandomBytes = (length: number) => Uint8Array;
/** One-way hash of a token as stored (the server passes e.g. sha256 hex). */
export type TokenHasher = (token: string) => string;

export const LEASE_TOKEN_BYTES = 32;
export const LEASE_TOKEN_PREFIX = 'wlt_';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function base64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out += BASE64URL[(chunk >> (18 - 6 * c)) & 63];
  }
  return out;
}

/** A new token from injected randomness; the prefix makes a leaked token recognisable. */
export function newLeaseToken(randomBytes: RandomBytes): string {
  const bytes = randomBytes(LEASE_TOKEN_BYTES);
  if (bytes.length !== LEASE_TOKEN_BYTES) {
    throw new Error(`random source returned ${bytes.length} bytes, expected ${LEASE_TOKEN_BYTES}`);
  }
  return LEASE_TOKEN_PREFIX + base64url(bytes);
}

/** The token generator the server injects into its services. */
export interface LeaseTokenGenerator {
  newToken(): string;
}

export function tokenGenerator(randomBytes: RandomBytes): LeaseTokenGenerator {
  return { newToken: () => newLeaseToken(randomBytes) };
}

/** Compares two hashes without an early exit, so timing does not reveal a matching prefix. */
export function hashesEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) difference |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return difference === 0;
}

/** Does a presented token match the stored hash? */
export function tokenMatchesHash(presentedToken: string, storedHash: string, hash: TokenHasher): boolean {
  return hashesEqual(hash(presentedToken), storedHash);
}
