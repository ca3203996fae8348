// Every command takes optional arguments so the trees, the tooltip links and tests can call it
// without UI; these read the shapes they may come in. Pure.
import { isJsonObjectValue } from './json.ts';

/** An endpoint reference (id or slug) from a tree node, `{endpoint}`, or a plain string. */
export function endpointRefOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  if (!isJsonObjectValue(arg)) return undefined;
  const endpoint = arg.endpoint;
  if (typeof endpoint === 'string' && endpoint !== '') return endpoint;
  if (isJsonObjectValue(endpoint) && typeof endpoint.id === 'string') return endpoint.id;
  if (typeof arg.slug === 'string') return arg.slug;
  return undefined;
}

/** A wait-lease id from a Panes tree node, a tooltip link `{leaseId}`, or a plain string. */
export function leaseIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  if (!isJsonObjectValue(arg)) return undefined;
  if (typeof arg.leaseId === 'string') return arg.leaseId;
  if (typeof arg.lease_id === 'string') return arg.lease_id;
  return undefined;
}

/** A TTL given as an argument: "15m", 900 (seconds), "default" or null. undefined when absent. */
export function ttlArgOf(arg: unknown, key = 'ttl'): string | undefined {
  if (!isJsonObjectValue(arg) || !(key in arg)) return undefined;
  const value = arg[key];
  if (value === null) return 'default';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return undefined;
}

export function stringArg(arg: unknown, key: string): string | undefined {
  if (!isJsonObjectValue(arg)) return undefined;
  const value = arg[key];
  return typeof value === 'string' ? value : undefined;
}

export type HooksScope = 'user' | 'project' | 'local';
export function scopeArgOf(arg: unknown): HooksScope | undefined {
  const value = typeof arg === 'string' ? arg : stringArg(arg, 'scope');
  return value === 'user' || value === 'project' || value === 'local' ? value : undefined;
}
