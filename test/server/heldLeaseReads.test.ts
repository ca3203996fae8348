// The hold loop's work list (WaitLeaseStore.heldLeases). A tick reads each lease's (id, stamp)
// (PostgreSQL's xmin; SQLite's version, which a trigger moves for a write that leaves it alone)
// and reads again in full only the rows written since it last saw them, so these check that
// nothing written is missed: not a write that bypasses the version column, not the loop's own
// renewals, not a lease that ended. The same checks run on both storages.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import type { SqlValue } from '../../src/server/db/sql.ts';
import { WaitLeaseStore } from '../../src/server/waitLeases/waitLeaseStore.ts';
import { storageTargets } from '../support/storage.ts';
import { exited, startSleeper } from '../support/processes.ts';
import { startTestServer, stopWaitLeaseMaintenance, type TestServer } from '../support/server.ts';

const MIN = 60_000;

for (const target of storageTargets) {
  describe(`held-lease reads on ${target.name}`, () => {
    let t: TestServer;
    let child: ChildProcess;
    let grants: Array<{ lease_id: string; token: string }>;
    let ids: string[];
    let errors: string[];
    beforeEach(async () => {
      errors = [];
      const logger = { info: () => undefined, error: (message: string, fields?: Record<string, unknown>) => errors.push(`${message} ${JSON.stringify(fields ?? {})}`) };
      t = await startTestServer(target, { logger });
      await stopWaitLeaseMaintenance(t);
      child = await startSleeper();
      grants = [];
      for (const job of ['a', 'b', 'c']) grants.push(await t.client.holdWaitLease({ pane: 'P', job_ref: job, ttl_ms: 10 * MIN, target: { pid: child.pid! } }));
      ids = grants.map((grant) => grant.lease_id);
      assert.deepEqual(await t.server.holdLoop.runOnce(), { checked: 3, renewed: 0, released: 0, degraded: 0 });
    });
    afterEach(async () => {
      child.kill('SIGKILL');
      await t.stop();
    });

    const store = () => t.server.waitLeases.store;
    /** The work list as a store that has read nothing before reads it. */
    const freshRead = () => new WaitLeaseStore(store().db).heldLeases(t.server.waitLeases.machineId);

    it('a write that leaves the version column alone is still seen by the next tick', async () => {
      // An edit the version does not show (by hand, or a writer that forgot): the lease now has
      // a minute left, so the next tick must renew it, and only it.
      await store().db.run('UPDATE wait_leases SET expires_at_boot_ms = expires_at_boot_ms - ? WHERE id = ?', [9 * MIN, ids[1]!]);
      assert.deepEqual(await t.server.holdLoop.runOnce(), { checked: 3, renewed: 1, released: 0, degraded: 0 });
      const view = await t.client.getWaitLease(ids[1]!);
      assert.deepEqual([view.renew_count, view.remaining_ms], [1, 10 * MIN]);
    });

    if (target.name === 'sqlite') {
      it('an edit by hand in another connection (a sqlite3 shell) that leaves the version alone is seen by the next tick', async () => {
        const [{ file }] = await store().db.all<{ file: string }>("SELECT file FROM pragma_database_list WHERE name = 'main'");
        const shell = new DatabaseSync(file!);
        try {
          shell.prepare('UPDATE wait_leases SET expires_at_boot_ms = expires_at_boot_ms - ? WHERE id = ?').run(9 * MIN, ids[2]!);
        } finally {
          shell.close();
        }
        assert.deepEqual(await t.server.holdLoop.runOnce(), { checked: 3, renewed: 1, released: 0, degraded: 0 });
        assert.deepEqual((await t.client.getWaitLease(ids[2]!)).renew_count, 1);
      });
    }

    it("the loop's own renewals read back exactly as a fresh read of the rows", async () => {
      t.leaseClock.advance(6 * MIN);
      assert.equal((await t.server.holdLoop.runOnce()).renewed, 3);
      const remembered = await store().heldLeases(t.server.waitLeases.machineId);
      assert.deepEqual(remembered, await freshRead());
      assert.deepEqual(remembered.map((lease) => [lease.record.renewCount, lease.version]), [[1, 1], [1, 1], [1, 1]]);
      // And a second renewal decides from the first one's values.
      t.leaseClock.advance(6 * MIN);
      assert.equal((await t.server.holdLoop.runOnce()).renewed, 3);
      assert.deepEqual(await store().heldLeases(t.server.waitLeases.machineId), await freshRead());
      assert.deepEqual((await t.client.getWaitLease(ids[0]!)).renew_count, 2);
    });

    it("one tick's write gives each lease its own values where the leases differ and the shared ones where they agree", async () => {
      // Two more holds, on another process and with other TTLs: their deadlines, renew counts,
      // evidence and progress markers differ from the first three's; the renewal time is shared.
      const other = await startSleeper();
      try {
        const longer = await t.client.holdWaitLease({ pane: 'Q', job_ref: 'd', ttl_ms: 12 * MIN, target: { pid: other.pid! } });
        const longest = await t.client.holdWaitLease({ pane: 'Q', job_ref: 'e', ttl_ms: 14 * MIN, target: { pid: other.pid! } });
        // Lease a is renewed once on its own first (its deadline moved by hand), so its count is ahead of the rest.
        await store().db.run('UPDATE wait_leases SET expires_at_boot_ms = expires_at_boot_ms - ? WHERE id = ?', [9 * MIN, ids[0]!]);
        assert.equal((await t.server.holdLoop.runOnce()).renewed, 1);
        t.leaseClock.advance(8 * MIN);
        assert.equal((await t.server.holdLoop.runOnce()).renewed, 5);
        const leaseIds = [...ids, longer.lease_id, longest.lease_id];
        const views = await Promise.all(leaseIds.map((id) => t.client.getWaitLease(id)));
        const records = await Promise.all(leaseIds.map(async (id) => (await new WaitLeaseStore(store().db).getLease(id))!.record));
        assert.deepEqual(
          views.map((view, index) => [view.renew_count, view.remaining_ms, (records[index]!.lastEvidence as { pid?: number } | null)?.pid]),
          [
            [2, 10 * MIN, child.pid],
            [1, 10 * MIN, child.pid],
            [1, 10 * MIN, child.pid],
            [1, 12 * MIN, other.pid],
            [1, 14 * MIN, other.pid],
          ],
        );
        assert.equal(new Set(records.map((record) => JSON.stringify(record.renewedAt))).size, 1, 'one renewal time for the tick');
        assert.deepEqual(await store().heldLeases(t.server.waitLeases.machineId), await freshRead());
      } finally {
        other.kill('SIGKILL');
      }
    });

    it('a renewal leaves a column it does not change as the row holds it (the observer, rewritten by hand with other spacing)', async () => {
      // The observer written by hand as equivalent JSON with other spacing (and the version left
      // alone): the tick reads the row again, renews from it, and does not write that column.
      // (Whether a renewal compares with the row's text as read or with the record serialized
      // again, the observer is the same: this holds for either; the fresh-read checks below hold
      // the values as read to the rows.)
      const [{ observer }] = await store().db.all<{ observer: string }>('SELECT observer FROM wait_leases WHERE id = ?', [ids[0]!]);
      const spaced = JSON.stringify(JSON.parse(observer), null, 1);
      await store().db.run('UPDATE wait_leases SET observer = ? WHERE id = ?', [spaced, ids[0]!]);
      t.leaseClock.advance(6 * MIN);
      assert.equal((await t.server.holdLoop.runOnce()).renewed, 3);
      const rows = await store().db.all<{ id: string; observer: string; renew_count: number }>('SELECT id, observer, renew_count FROM wait_leases ORDER BY id', []);
      const byId = new Map(rows.map((row) => [row.id, row]));
      assert.equal(byId.get(ids[0]!)!.observer, spaced);
      assert.deepEqual(ids.map((id) => byId.get(id)!.renew_count), [1, 1, 1]);
      assert.deepEqual(await store().heldLeases(t.server.waitLeases.machineId), await freshRead());
    });

    it('a lease the tick released before writing its renewals leaves the work list', async () => {
      const other = await startSleeper();
      const ended = await t.client.holdWaitLease({ pane: 'Q', job_ref: 'gone', ttl_ms: 10 * MIN, target: { pid: other.pid! } });
      other.kill('SIGKILL');
      await exited(other);
      t.leaseClock.advance(6 * MIN);
      assert.deepEqual(await t.server.holdLoop.runOnce(), { checked: 4, renewed: 3, released: 1, degraded: 0 });
      const held = await store().heldLeases(t.server.waitLeases.machineId);
      assert.deepEqual(held, await freshRead());
      assert.ok(!held.some((lease) => lease.record.id === ended.lease_id));
    });

    it('renewals in more than one batch: the tick renews every lease, and the work list reads as the rows', async () => {
      // Five due leases in batches of two: on PostgreSQL three statements, the last sent while
      // the first may still be writing; on SQLite one transaction as before.
      for (const job of ['d', 'e']) ids.push((await t.client.holdWaitLease({ pane: 'P', job_ref: job, ttl_ms: 10 * MIN, target: { pid: child.pid! } })).lease_id);
      store().postgresBatchRows = 2;
      const changed: string[] = [];
      const unsubscribe = t.server.bus.subscribe((event) => {
        if (event.type === 'lease.changed' && event.change === 'renewed') changed.push(event.lease_id);
      });
      // The batched statements the tick sends (PostgreSQL's one form of the write).
      const db = store().db;
      const all = db.all.bind(db);
      let statements = 0;
      db.all = ((sql: string, params?: readonly SqlValue[]) => {
        if (sql.startsWith('UPDATE wait_leases AS w')) statements += 1;
        return all(sql, params);
      }) as typeof db.all;
      try {
        t.leaseClock.advance(6 * MIN);
        assert.deepEqual(await t.server.holdLoop.runOnce(), { checked: 5, renewed: 5, released: 0, degraded: 0 });
      } finally {
        unsubscribe();
        db.all = all;
      }
      assert.equal(statements, target.name === 'postgres' ? 3 : 0, 'PostgreSQL: batches of 2, 2 and 1; SQLite: one transaction of UPDATEs');
      assert.deepEqual(changed.sort(), [...ids].sort(), 'one lease.changed for each renewal');
      const views = await Promise.all(ids.map((id) => t.client.getWaitLease(id)));
      assert.deepEqual(views.map((view) => [view.renew_count, view.remaining_ms]), ids.map(() => [1, 10 * MIN]));
      assert.deepEqual(await store().heldLeases(t.server.waitLeases.machineId), await freshRead());
    });

    if (target.name === 'postgres') {
      it('a batch the database refuses leaves only its own leases to the next tick, and the tick says how many it renewed', async () => {
        for (const job of ['d', 'e']) ids.push((await t.client.holdWaitLease({ pane: 'P', job_ref: job, ttl_ms: 10 * MIN, target: { pid: child.pid! } })).lease_id);
        store().postgresBatchRows = 2;
        // The tick writes its leases in id order: the second batch holds the third and fourth.
        const sorted = [...ids].sort();
        const refused = sorted.slice(2, 4);
        await store().db.execScript(`
          CREATE FUNCTION refuse_one_renewal() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.id = '${refused[0]}' THEN RAISE EXCEPTION 'renewal refused by the test'; END IF; RETURN NEW; END $$;
          CREATE TRIGGER refuse_one_renewal BEFORE UPDATE ON wait_leases FOR EACH ROW EXECUTE FUNCTION refuse_one_renewal();`);
        t.leaseClock.advance(6 * MIN);
        assert.deepEqual(await t.server.holdLoop.runOnce(), { checked: 5, renewed: 3, released: 0, degraded: 0 });
        // The driver's words go to the log as a storage error; the loop reports that its write failed.
        assert.match(errors.join('\n'), /storage error.*renewal refused by the test/);
        assert.match(errors.join('\n'), /hold loop failed/);
        const counts = async () => Object.fromEntries(await Promise.all(sorted.map(async (id) => [id, (await t.client.getWaitLease(id)).renew_count] as const)));
        assert.deepEqual(await counts(), Object.fromEntries(sorted.map((id) => [id, refused.includes(id) ? 0 : 1])));
        assert.deepEqual(await store().heldLeases(t.server.waitLeases.machineId), await freshRead());
        // With the database willing again, the next tick renews the two it left, and only them.
        await store().db.execScript('DROP TRIGGER refuse_one_renewal ON wait_leases; DROP FUNCTION refuse_one_renewal();');
        assert.deepEqual(await t.server.holdLoop.runOnce(), { checked: 5, renewed: 2, released: 0, degraded: 0 });
        assert.deepEqual(await counts(), Object.fromEntries(sorted.map((id) => [id, 1])));
      });

      it("a lease's first renewal, though its row grows, stays on its page: no row moves, so no index takes a new entry", async () => {
        // Seventy leases held together fill pages as a burst of holds does; their first renewal
        // writes each row longer (the renewal time, its boot id, the evidence), in two batches
        // at once as a large tick does. A row version on another page is an entry in every index.
        for (let index = 0; index < 67; index++) {
          ids.push((await t.client.holdWaitLease({ pane: `P${index % 7}`, job_ref: `burst-${index}`, ttl_ms: 10 * MIN, target: { pid: child.pid! } })).lease_id);
        }
        store().postgresBatchRows = 35;
        const pages = async () => new Map((await store().db.all<{ id: string; page: number }>('SELECT id, (ctid::text::point)[0] AS page FROM wait_leases', [])).map((row) => [row.id, row.page]));
        const before = await pages();
        t.leaseClock.advance(6 * MIN);
        assert.equal((await t.server.holdLoop.runOnce()).renewed, 70);
        const after = await pages();
        assert.deepEqual(ids.filter((id) => after.get(id) !== before.get(id)), [], 'rows moved to another page');
      });
    }

    it('a lease that ended, by its holder or by the loop, leaves the work list', async () => {
      await t.client.releaseWaitLease(grants[2]!.lease_id, grants[2]!.token);
      assert.deepEqual((await store().heldLeases(t.server.waitLeases.machineId)).map((lease) => lease.record.id).sort(), [...ids.slice(0, 2)].sort());
      child.kill('SIGKILL');
      await exited(child);
      assert.equal((await t.server.holdLoop.runOnce()).released, 2);
      assert.deepEqual(await store().heldLeases(t.server.waitLeases.machineId), []);
    });
  });
}
