// How the CLI speaks: tables for people, --json for scripts, and one way to fail.
import { LeaseholdError } from '../core/errors.ts';
import { LeaseholdApiError, ServerUnreachableError } from '../client/client.ts';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Ends the command with this exit code and nothing more to print (e.g. teardown-check's "no"). */
export class ExitWith extends Error {
  readonly exitCode: number;
  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'ExitWith';
    this.exitCode = exitCode;
  }
}

/** Exit codes: 1 refused or failed, 2 usage, 3 server unreachable. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return 2;
  if (error instanceof ServerUnreachableError) return 3;
  return 1;
}

export function describeError(error: unknown): string {
  if (error instanceof LeaseholdApiError || error instanceof LeaseholdError) {
    const field = error.field ? ` [field: ${error.field}]` : '';
    return `${error.message} (${error.code})${field}`;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

export function printTable(rows: Array<Record<string, string>>, columns: string[]): string {
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, index) => cell.padEnd(widths[index]!)).join('  ').trimEnd();
  return [line(columns), ...rows.map((row) => line(columns.map((column) => row[column] ?? '')))].join('\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
