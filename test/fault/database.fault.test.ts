// Fault suite, the embedded database at start (issue 10 item 6): a zero-length leasehold.db,
// a damaged WAL after kill -9 and a garbage page in the middle are each refused at start,
// naming the file and what to do; the server never silently starts empty over a file that
// held data, and nothing is overwritten.
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LeaseholdClient } from '../../src/client/client.ts';
import { silentLogger, startLeaseServer } from '../../src/server/app.ts';
import { startServeProcess } from '../support/cli.ts';
import { damagedWalHeader } from '../../src/server/db/sqliteIntegrity.ts';
import { tempDir } from '../support/storage.ts';

describe('fault: the embedded database is checked at start', function () {
  this.timeout(60_000);
  let dataDir: string;
  let runtimeDir: string;
  let file: string;
  beforeEach(() => {
    dataDir = tempDir('data');
    runtimeDir = tempDir('runtime');
    file = join(dataDir, 'leasehold.db');
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });
  const start = () => startLeaseServer({ storage: { kind: 'sqlite', dataDir }, runtimeDir, logger: silentLogger });
  const refusedNaming = (pattern: RegExp) => (error: Error) => {
    assert.match(error.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `));
    assert.match(error.message, pattern);
    assert.match(error.message, /nothing was overwritten.*Restore .* from a backup.*mv /);
    return true;
  };

  async function withData(todos = 1): Promise<void> {
    const server = await start();
    await server.claims.vendEndpoint(server.human, { slug: 'keeper' });
    for (let n = 0; n < todos; n++) await server.claims.createTodo(server.human, { queue: 'q', title: `todo ${n} ${'x'.repeat(200)}` });
    await server.close();
  }

  it('a zero-length leasehold.db that held data is refused', async () => {
    await withData();
    truncateSync(file, 0);
    rmSync(`${file}-wal`, { force: true });
    await assert.rejects(start(), refusedNaming(/the database file is empty \(0 bytes\).*held data/));
    assert.equal(statSync(file).size, 0, 'untouched');
  });

  it('a fresh data dir still starts (no marker, no file)', async () => {
    await (await start()).close();
  });

  it('a garbage page in the middle fails the integrity check', async () => {
    await withData(400);
    const pages = statSync(file).size / 4096;
    assert.ok(pages > 6, `enough pages (${pages})`);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, Math.floor(pages / 2) * 4096);
    closeSync(fd);
    await assert.rejects(start(), refusedNaming(/failed its integrity check|cannot be read as a SQLite database/));
  });

  it('a damaged WAL after kill -9 is refused instead of starting empty', async () => {
    const serve = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
    const client = new LeaseholdClient({ baseUrl: serve.url, token: readFileSync(join(runtimeDir, 'token'), 'utf8').trim() });
    await client.vendEndpoint({ slug: 'keeper' });
    process.kill(serve.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(statSync(`${file}-wal`).size > 0, 'the data is in the WAL');
    assert.equal(damagedWalHeader(`${file}-wal`), null, 'the log kill -9 left is sound (its torn tail, if any, is normal)');
    const fd = openSync(`${file}-wal`, 'r+');
    writeSync(fd, Buffer.alloc(8, 0x5a), 0, 8, 16); // the header's salts: SQLite would then ignore the whole log
    closeSync(fd);
    await assert.rejects(start(), refusedNaming(/write-ahead log .*-wal is damaged \(its header checksum does not match\)/));
  });
});
