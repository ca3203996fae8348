// The claim clock's anchor on embedded storage (src/core/claimClock.ts): the last boot-clock
// reading and the claim time it stood for, so a restart in the same boot continues claim time
// on the boot clock (a wall step while the server was down extends nothing), and a reboot never
// starts it before the last claim time. One row. Team mode judges claims on the database clock
// and leaves it empty. (No semicolons inside comments: the runner splits on them.)
import type { Migration } from './migration.ts';

function schema(types: { bigint: string; bool: string }): string {
  return `
CREATE TABLE claim_clock (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  boot_id TEXT,
  counts_suspend ${types.bool} NOT NULL,
  boot_ms ${types.bigint} NOT NULL CHECK (boot_ms >= 0),
  wall_ms ${types.bigint} NOT NULL,
  claim_ms ${types.bigint} NOT NULL
);
`;
}

export const claimClockMigration: Migration = {
  version: 6,
  name: 'claim_clock',
  sqlite: schema({ bigint: 'INTEGER', bool: 'INTEGER' }),
  postgres: schema({ bigint: 'BIGINT', bool: 'BOOLEAN' }),
};
