// Small statistics helpers for benchmarks: medians and percentiles from one run.
import { readFileSync } from 'node:fs';
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const median = (values: number[]) => percentile(values, 50);

export function fmtMs(value: number): string {
  return value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(1)} ms`;
}

export function report(label: string, figures: Record<string, string | number>): void {
  const parts = Object.entries(figures).map(([key, value]) => `${key}=${value}`);
  process.stdout.write(`${label.padEnd(48)} ${parts.join('  ')}\n`);
}

/** Each contender's round figures (ms), one report line: what a middle-round figure was taken from. */
export function reportRounds(label: string, rounds: Record<string, readonly number[]>): void {
  report(label, Object.fromEntries(Object.entries(rounds).map(([name, figures]) => [name, figures.map((ms) => ms.toFixed(2)).join(' ')])));
}

export function rssMb(pid: number = process.pid): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return Number.NaN;
  }
}
