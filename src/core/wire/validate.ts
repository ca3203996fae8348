// zod → LeaseholdError: the first issue names the field and the rule.
import type { z } from 'zod';
import { LeaseholdError } from '../errors.ts';

/** The path of the first string holding U+0000, which no store keeps (PostgreSQL text refuses it), or undefined. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key.includes('\u0000')) return path ? `${path}.${key}` : key;
    const found = nulPath(child, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Refuses U+0000 anywhere in a value (body, query, path parameter), naming where. One rule for both stores. */
export function refuseNul(value: unknown, what: string): void {
  const path = nulPath(value, '');
  if (path !== undefined) fail(path || what, `${path || what}: must not contain the NUL character (U+0000)`);
}

/** The largest whole number an INTEGER column holds on both stores (PostgreSQL's is 32-bit). */
export const MAX_STORED_INT = 2_147_483_647;

export function parseWire<Schema extends z.ZodType>(schema: Schema, value: unknown, what = 'request'): z.infer<Schema> {
  refuseNul(value, what);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return fail(keys, `${what} has unknown key(s) ${keys}${path ? ` in ${path}` : ''}; they are refused, not ignored`);
  }
  const field = path || what;
  const message = issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
  return fail(field, message);
}

function fail(field: string, message: string): never {
  throw new LeaseholdError('invalid_argument', message, { field });
}
