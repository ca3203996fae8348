// SqliteDb builds row objects from node:sqlite's arrays (src/server/db/sqliteDb.ts): each row
// must read exactly as node:sqlite's own object would, whatever the statement, and whatever
// Node flags the server runs with.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkSqliteRows } from '../support/sqliteRowCheck.ts';

describe('SQLite rows', () => {
  it('reads every statement as node:sqlite objects would: names, values, NULLs, repeated names, RETURNING, wide rows, odd names', async () => {
    await checkSqliteRows();
  });

  it('reads them the same where code may not be made from strings (--disallow-code-generation-from-strings, as NODE_OPTIONS may set)', () => {
    const check = fileURLToPath(new URL('../support/sqliteRowCheck.ts', import.meta.url));
    const child = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', check], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.status, 0, child.stderr);
  });
});
