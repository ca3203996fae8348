// Option parsing shared by the pane / wait-lease / consumer commands: durations in ms,
// absolute instants, and which pane a command is about.
import { formatDurationSeconds, parseDurationSeconds } from '../../core/duration.ts';
import { UsageError } from '../output.ts';

/** "250ms", "90s", "15m", "1h30m" or whole seconds → milliseconds. */
export function parseDurationMs(input: string, flag: string): number {
  const text = input.trim().toLowerCase();
  const msMatch = /^(\d+)ms$/.exec(text);
  if (msMatch) return Number(msMatch[1]);
  const parsed = parseDurationSeconds(text);
  if (!parsed.ok) throw new UsageError(`${flag}: ${parsed.message} (or milliseconds as 500ms)`);
  return parsed.seconds * 1000;
}

export function parseWholeNumber(input: string, flag: string): number {
  if (!/^\d+$/.test(input.trim())) throw new UsageError(`${flag}: must be a whole number (got ${JSON.stringify(input)})`);
  return Number(input.trim());
}

/** An absolute instant: epoch ms, an ISO date, or +DURATION from now. */
export function parseInstantMs(input: string, flag: string, nowMs = Date.now()): number {
  const text = input.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (text.startsWith('+')) return nowMs + parseDurationMs(text.slice(1), flag);
  // Date.parse alone reads "-1" as the year 2001: only an ISO date (YYYY-MM-DD[THH:MM...]) is a date here.
  const parsed = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(parsed)) throw new UsageError(`${flag}: must be epoch milliseconds, an ISO date or +DURATION (got ${JSON.stringify(input)})`);
  return parsed;
}

/** --ttl 15m or --ttl-ms N; the TTL is mandatory. */
export function ttlMsOf(options: { ttl?: string; ttlMs?: string }): number {
  if (options.ttl !== undefined && options.ttlMs !== undefined) throw new UsageError('give --ttl or --ttl-ms, not both');
  if (options.ttlMs !== undefined) return parseWholeNumber(options.ttlMs, '--ttl-ms');
  if (options.ttl !== undefined) return parseDurationMs(options.ttl, '--ttl');
  throw new UsageError('a TTL is required (--ttl 15m or --ttl-ms N): a wait-lease is never open-ended');
}

/** --pane NAME, else LEASEHOLD_PANE. */
export function paneOf(options: { pane?: string }): string {
  const pane = options.pane ?? process.env.LEASEHOLD_PANE;
  if (!pane) throw new UsageError('which pane? pass --pane NAME or set LEASEHOLD_PANE');
  return pane;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms}ms` : formatDurationSeconds(Math.ceil(ms / 1000));
}
