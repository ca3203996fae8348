// Wire shape of GET /api/v1/status: the server's health plus the hook delivery spool's state,
// shown by `leasehold status` and the extension's server tooltip.
import { z } from 'zod';

export const spoolStatusSchema = z.object({
  dir: z.string(),
  /** Entries waiting to be replayed. */
  pending: z.number().int(),
  /** Entries set aside because they can never be applied (see quarantine/ in the spool). */
  quarantined: z.number().int(),
  last_replay: z.object({ at: z.number(), applied: z.number().int(), quarantined: z.number().int() }).nullable(),
  last_error: z.object({ at: z.number(), message: z.string() }).nullable(),
});
export type SpoolStatus = z.infer<typeof spoolStatusSchema>;

export const serverStatusSchema = z.object({
  version: z.string(),
  pid: z.number().int(),
  storage: z.enum(['sqlite', 'postgres']),
  schema_version: z.number().int(),
  started_at: z.number(),
  spool: spoolStatusSchema,
});
export type ServerStatus = z.infer<typeof serverStatusSchema>;

function ago(atMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.round((nowMs - atMs) / 1000));
  return seconds < 60 ? `${seconds}s ago` : seconds < 3600 ? `${Math.round(seconds / 60)}m ago` : `${Math.round(seconds / 3600)}h ago`;
}

/**
 * The spool in a few lines, for people: the CLI's `leasehold status` and the extension's
 * server tooltip say the same thing. Quarantined entries and the last error are what a user
 * must act on, so they come with where to look.
 */
export function spoolSummaryLines(spool: SpoolStatus, nowMs: number): string[] {
  const lines = [`hook spool: ${spool.pending} pending, ${spool.quarantined} quarantined (${spool.dir})`];
  lines.push(spool.last_replay ? `last replay ${ago(spool.last_replay.at, nowMs)}: ${spool.last_replay.applied} applied, ${spool.last_replay.quarantined} quarantined` : 'no replay yet');
  if (spool.quarantined > 0) lines.push(`quarantined entries are kept in ${spool.dir}/quarantine; they were never applied`);
  if (spool.last_error) lines.push(`last error ${ago(spool.last_error.at, nowMs)}: ${spool.last_error.message}`);
  return lines;
}
