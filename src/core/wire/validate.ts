// zod → LeaseholdError: the first issue names the field and the rule.
import type { z } from 'zod';
import { LeaseholdError } from '../errors.ts';

export function parseWire<Schema extends z.ZodType>(schema: Schema, value: unknown, what = 'request'): z.infer<Schema> {
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
