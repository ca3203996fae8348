// The delivery spool is shared with the server, so it lives in src/runtime/spool.ts.
export { newEventId, readSpool, replaySpool, spoolEvent } from '../runtime/spool.ts';
export type { ReplayResult, SpoolEntry, SpooledEvent } from '../runtime/spool.ts';
