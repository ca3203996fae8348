// Durations the settings take ("30m", "1h", seconds): parsed to ms for the server and hook env.
import { parseDurationSeconds } from '../../core/duration.ts';

/** A duration setting in ms, or the fallback (with the problem) when it is empty or not a duration. */
export function durationSettingMs(value: unknown, fallbackMs: number): { ms: number; problem?: string } {
  if (value === undefined || value === null || value === '') return { ms: fallbackMs };
  if (typeof value === 'number') {
    return Number.isInteger(value) && value > 0 ? { ms: value * 1000 } : { ms: fallbackMs, problem: `${value} is not a positive whole number of seconds` };
  }
  if (typeof value !== 'string') return { ms: fallbackMs, problem: 'expected a duration such as 30m' };
  const parsed = parseDurationSeconds(value);
  if (!parsed.ok) return { ms: fallbackMs, problem: parsed.message };
  if (parsed.seconds <= 0) return { ms: fallbackMs, problem: 'a duration must be longer than 0s' };
  return { ms: parsed.seconds * 1000 };
}
