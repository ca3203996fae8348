// The endpoint lease TTL input box: what a human may type and what it means. Pure (no vscode),
// so the rule is tested in plain Node; the input box shows `message` inline as they type.
import { MAX_LEASE_TTL_SECONDS, MIN_DEFAULT_LEASE_TTL_SECONDS } from '../../core/claimLease.ts';
import { formatDurationSeconds, parseDurationSeconds } from '../../core/duration.ts';

export type TtlInput =
  /** seconds: a whole number in range; null: "default" (the server default applies). */
  | { ok: true; seconds: number | null }
  | { ok: false; message: string };

export const TTL_RULE = `an endpoint's lease TTL must be between ${formatDurationSeconds(MIN_DEFAULT_LEASE_TTL_SECONDS)} (${MIN_DEFAULT_LEASE_TTL_SECONDS} s) and ${formatDurationSeconds(MAX_LEASE_TTL_SECONDS)} (${MAX_LEASE_TTL_SECONDS} s) inclusive; out-of-range values are refused, not clamped`;

export const TTL_PROMPT = 'Lease TTL: 90s, 15m, 1h, whole seconds, or "default" for the server default (60s..24h)';

/** Parses "90s" / "15m" / "1h" / "3600" / "default"; refuses out of range with the rule, never clamps. */
export function parseTtlInput(input: string): TtlInput {
  const text = input.trim().toLowerCase();
  if (text === 'default' || text === 'server default' || text === 'server') return { ok: true, seconds: null };
  const parsed = parseDurationSeconds(text);
  if (!parsed.ok) return { ok: false, message: `${parsed.message}, or "default"` };
  const { seconds } = parsed;
  if (seconds < MIN_DEFAULT_LEASE_TTL_SECONDS) {
    return { ok: false, message: `${formatDurationSeconds(seconds)} is too short: ${TTL_RULE}` };
  }
  if (seconds > MAX_LEASE_TTL_SECONDS) {
    return { ok: false, message: `${formatDurationSeconds(seconds)} (${seconds} s) is too long: ${TTL_RULE}` };
  }
  return { ok: true, seconds };
}

/** For showInputBox's validateInput: undefined when acceptable, else the message. */
export function validateTtlInput(input: string): string | undefined {
  const result = parseTtlInput(input);
  return result.ok ? undefined : result.message;
}

/** The text to pre-fill the box with for an endpoint's current default. */
export function ttlInputValue(defaultSeconds: number | null): string {
  return defaultSeconds === null ? 'default' : formatDurationSeconds(defaultSeconds);
}
