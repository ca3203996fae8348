// Human durations: "90s", "15m", "1h", "1h30m", or bare seconds ("86400").

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const DURATION_PATTERN = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

export type DurationParse = { ok: true; seconds: number } | { ok: false; message: string };

/** Parses a duration into whole seconds; says what is wrong otherwise. */
export function parseDurationSeconds(input: string): DurationParse {
  const text = input.trim().toLowerCase();
  if (text === '') return { ok: false, message: 'a duration is required, e.g. 90s, 15m, 1h or 3600' };
  if (/^\d+$/.test(text)) return { ok: true, seconds: Number(text) };
  const match = DURATION_PATTERN.exec(text);
  if (!match || match.slice(1).every((part) => part === undefined)) {
    return { ok: false, message: `"${input}" is not a duration; use e.g. 90s, 15m, 1h, 1h30m or whole seconds` };
  }
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  return {
    ok: true,
    seconds: days * UNIT_SECONDS.d + hours * UNIT_SECONDS.h + minutes * UNIT_SECONDS.m + seconds,
  };
}

/** Compact human form: 300 → "5m", 5400 → "1h30m", 90 → "1m30s". */
export function formatDurationSeconds(totalSeconds: number): string {
  const seconds = Math.max(0, Math.round(totalSeconds));
  if (seconds === 0) return '0s';
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) {
      parts.push(`${count}${unit}`);
      rest -= count * size;
    }
  }
  return parts.join('');
}
