// Storage of humans, endpoints, todos and claim transitions, written once over the Db seam.
// Every claim transition is a single conditional UPDATE (the fencing check lives in its
// WHERE clause) plus its event row, in one transaction. The hot transitions (claim_next,
// heartbeat, release, complete) also read the caller's endpoint row in that same transaction
// and apply only while the row is as the caller resolved its lease from: on PostgreSQL all of
// it is one statement (one round trip), on SQLite one transaction (coalesced by the group
// commit). On PostgreSQL, transitions of one kind asked for while one is in flight are
// coalesced too: one statement claims (or completes, or releases) for every caller of the
// batch, each checked against its own endpoint row, its own lease and its own fencing epoch.
import type { LeaseSource } from '../../core/claimLease.ts';
import { LeaseholdError } from '../../core/errors.ts';
import { TODO_LIST_ORDER } from '../../core/todoList.ts';
import type { Verb } from '../../core/verbs.ts';
import { Batcher, type BatchOutcome } from '../db/batcher.ts';
import { first, type Db, type SqlExecutor, type SqlValue } from '../db/sql.ts';
import type { AuthenticatedHuman, ClaimEventKind, ClaimEventRecord, DeviceRecord, EndpointRecord, HumanRecord, TodoRecord } from './records.ts';

interface EndpointRow extends Omit<EndpointRecord, 'scope' | 'friend'> {
  scope: string;
  friend: number | boolean;
}
interface TodoRow extends Omit<TodoRecord, 'payload'> {
  payload: string;
}

const ENDPOINT_COLUMNS =
  'id, human_id, slug, name, scope, friend, state, default_lease_ttl_seconds, created_at, revoked_at';
const TODO_COLUMNS =
  'id, queue, title, payload, state, attempts, holder_endpoint_id, claim_epoch, lease_expires_at, created_by, created_at, updated_at, completed_at';

const DEVICE_COLUMNS = 'id, human_id, machine_id, label, created_at, last_used_at, revoked_at';

// Every transition reads its endpoint row; an endpoint's scope is one of a few stored texts,
// so each is parsed once (and frozen, as it is shared).
const scopeByText = new Map<string, Verb[]>();
function parseScope(text: string): Verb[] {
  let scope = scopeByText.get(text);
  if (!scope) {
    scope = Object.freeze(JSON.parse(text) as Verb[]) as Verb[];
    if (scopeByText.size < 1024) scopeByText.set(text, scope);
  }
  return scope;
}

function toEndpoint(row: EndpointRow): EndpointRecord {
  return { ...row, scope: parseScope(row.scope), friend: Boolean(row.friend) };
}

function toTodo(row: TodoRow): TodoRecord {
  return { ...row, payload: row.payload === 'null' ? null : (JSON.parse(row.payload) as unknown) };
}

export interface LeaseGrant {
  leaseMs: number;
  leaseSeconds: number;
  source: LeaseSource;
}

export interface ClaimMutation {
  todoId: string;
  endpointId: string;
  claimEpoch: number;
  now: number;
}

/**
 * A transition checked against the endpoint row it was resolved from: `endpoint` is the row as
 * stored when the transition ran (undefined when gone; on PostgreSQL the caller's own copy when
 * the fields a transition depends on were unchanged); `applied` is false when that row no
 * longer matched the expected one, and then nothing was written.
 */
export interface CheckedTransition {
  endpoint: EndpointRecord | undefined;
  applied: boolean;
  todo: TodoRecord | undefined;
}

/** The endpoint fields a transition depends on (its state, and the default its lease came from) are as expected. */
export function endpointUnchanged(stored: EndpointRecord, expected: EndpointRecord): boolean {
  return stored.state === expected.state && stored.default_lease_ttl_seconds === expected.default_lease_ttl_seconds;
}

// What each transition writes, and the checks it makes, each stated once as SQL over the
// operands each statement has (`?` parameters, or a batch's columns).
const claimedSet = (holder: string, expiresAt: string, now: string) =>
  `state = 'claimed', holder_endpoint_id = ${holder}, claim_epoch = claim_epoch + 1, attempts = attempts + 1, lease_expires_at = ${expiresAt}, updated_at = ${now}`;
/** A todo handed back to its queue (released, requeued, reaped, its endpoint revoked). */
const REQUEUED_SET = `state = 'queued', holder_endpoint_id = NULL, lease_expires_at = NULL`;
const END_CLAIM_SET: Record<'released' | 'completed', (now: string) => string> = {
  released: () => REQUEUED_SET,
  completed: (now) => `state = 'done', lease_expires_at = NULL, completed_at = ${now}`,
};
/** The fencing check of heartbeat, release and complete: a live claim the caller holds under this epoch (`t`: the todos alias and its dot, or ''). */
const fencedBy = (t: string, todoId: string, endpointId: string, epoch: string, now: string) =>
  `${t}id = ${todoId} AND ${t}state = 'claimed' AND ${t}holder_endpoint_id = ${endpointId} AND ${t}claim_epoch = ${epoch} AND ${t}lease_expires_at > ${now}`;
const FENCED = fencedBy('', '?', '?', '?', '?');
/** The endpoint row `e` is as the caller resolved its lease from: the SQL twin of endpointUnchanged. */
const endpointMatches = (e: string, state: string, defaultTtl: string) => `${e}.state = ${state} AND ${e}.default_lease_ttl_seconds IS NOT DISTINCT FROM ${defaultTtl}`;
const EVENT_COLUMNS = 'todo_id, endpoint_id, kind, claim_epoch, lease_ttl_seconds, lease_source, lease_expires_at, at';

// PostgreSQL: the endpoint read and the guard that it is unchanged, as CTEs.
const PG_ENDPOINT_GUARD = `ep AS (SELECT ${ENDPOINT_COLUMNS} FROM endpoints WHERE id = ?),
  unchanged AS (SELECT 1 FROM ep WHERE ${endpointMatches('ep', '?', '?')})`;
// Parameters in a SELECT list have no type to infer, hence the casts.
const PG_EVENT_OF_CHANGED = `INSERT INTO claim_events (${EVENT_COLUMNS})
    SELECT id, ?::text, ?::text, claim_epoch, ?::integer, ?::text, lease_expires_at, ?::bigint FROM changed`;
// The endpoint row comes back as one JSON column, and only when it is not as the caller resolved
// its lease from (ep_changed; NULL when it is): a row of ten columns more on every transition cost
// the driver more than the statement. No row at all: the endpoint is gone.
const PG_ENDPOINT_IF_CHANGED = (matches: string) => `CASE WHEN ${matches} THEN NULL ELSE row_to_json(e) END AS ep_changed`;
const PG_CHECKED_RESULT = `SELECT ${PG_ENDPOINT_IF_CHANGED('EXISTS (SELECT 1 FROM unchanged)')}, c.* FROM ep e LEFT JOIN changed c ON true`;
/** A column list written with a table alias (`t.id, t.queue, …`): the todo's by default. */
const qualified = (alias: string, columns: string = TODO_COLUMNS) => columns.split(', ').map((column) => `${alias}.${column}`).join(', ');

// Batched transitions (PostgreSQL): the callers arrive as arrays, one element each (ord is
// the caller's place); `ok` keeps the callers whose endpoint row is as they resolved their lease
// from (the batch twin of PG_ENDPOINT_GUARD); every caller whose endpoint is there gets back a
// row: its endpoint's columns (the record's, not token_hash) if they changed, its changed todo if any.
const PG_BATCH_GUARD = `ok AS (SELECT r.* FROM req r JOIN endpoints e ON e.id = r.endpoint_id WHERE ${endpointMatches('e', 'r.exp_state', 'r.exp_default')})`;
const PG_BATCH_RESULT = `SELECT r.ord AS req_ord, ${PG_ENDPOINT_IF_CHANGED(endpointMatches('e', 'r.exp_state', 'r.exp_default'))}, ${qualified('c')}
  FROM req r JOIN (SELECT ${ENDPOINT_COLUMNS} FROM endpoints) e ON e.id = r.endpoint_id LEFT JOIN changed c ON c.ord = r.ord ORDER BY r.ord`;
// Each queue's oldest queued todos (SKIP LOCKED: other servers may be claiming) go to that
// queue's callers in the order they asked.
const PG_CLAIM_NEXT_BATCH = `WITH req AS (
    SELECT * FROM unnest(?::int[], ?::text[], ?::text[], ?::int[], ?::text[], ?::bigint[], ?::bigint[], ?::int[], ?::text[])
      AS r(ord, endpoint_id, exp_state, exp_default, queue, lease_expires_at, now, lease_ttl_seconds, lease_source)),
  ${PG_BATCH_GUARD},
  numbered AS (SELECT ok.*, row_number() OVER (PARTITION BY ok.queue ORDER BY ok.ord) AS n FROM ok),
  wanted AS (SELECT queue, count(*) AS n FROM ok GROUP BY queue),
  picked AS (SELECT p.id, w.queue, row_number() OVER (PARTITION BY w.queue ORDER BY p.seq) AS n
             FROM wanted w CROSS JOIN LATERAL (
               SELECT id, seq FROM todos WHERE queue = w.queue AND state = 'queued' ORDER BY seq LIMIT w.n FOR UPDATE SKIP LOCKED) p),
  changed AS (UPDATE todos t SET ${claimedSet('q.endpoint_id', 'q.lease_expires_at', 'q.now')}
              FROM picked JOIN numbered q ON q.queue = picked.queue AND q.n = picked.n
              WHERE t.id = picked.id AND t.state = 'queued'
              RETURNING ${qualified('t')}, q.ord, q.endpoint_id AS event_endpoint_id, q.lease_ttl_seconds AS event_ttl, q.lease_source AS event_source, q.now AS event_at),
  event AS (INSERT INTO claim_events (${EVENT_COLUMNS})
            SELECT id, event_endpoint_id, 'claimed', claim_epoch, event_ttl, event_source, lease_expires_at, event_at FROM changed ORDER BY ord)
  ${PG_BATCH_RESULT}`;
// release / complete for many callers: each one's fencing check (FENCED, per caller).
const pgEndClaimBatch = (kind: 'released' | 'completed') => `WITH req AS (
    SELECT * FROM unnest(?::int[], ?::text[], ?::text[], ?::int[], ?::text[], ?::int[], ?::bigint[])
      AS r(ord, endpoint_id, exp_state, exp_default, todo_id, claim_epoch, now)),
  ${PG_BATCH_GUARD},
  changed AS (UPDATE todos t SET ${END_CLAIM_SET[kind]('ok.now')}, updated_at = ok.now
              FROM ok WHERE ${fencedBy('t.', 'ok.todo_id', 'ok.endpoint_id', 'ok.claim_epoch', 'ok.now')}
              RETURNING ${qualified('t')}, ok.ord, ok.endpoint_id AS event_endpoint_id, ok.now AS event_at),
  event AS (INSERT INTO claim_events (${EVENT_COLUMNS})
            SELECT id, event_endpoint_id, '${kind}', claim_epoch, NULL, NULL, lease_expires_at, event_at FROM changed ORDER BY ord)
  ${PG_BATCH_RESULT}`;
/** The parameters of FENCED. */
const fencedParams = (claim: ClaimMutation): SqlValue[] => [claim.todoId, claim.endpointId, claim.claimEpoch, claim.now];
/** The parameters of `SET ${END_CLAIM_SET[kind]('?')}, updated_at = ? WHERE ${FENCED}`. */
const endClaimParams = (kind: 'released' | 'completed', claim: ClaimMutation): SqlValue[] => [...(kind === 'completed' ? [claim.now] : []), claim.now, ...fencedParams(claim)];
/** A statement text for each way a claim ends, each built once. */
const perEndKind = (text: (kind: 'released' | 'completed') => string): Record<'released' | 'completed', string> => ({ released: text('released'), completed: text('completed') });
const PG_END_CLAIM_BATCH = perEndKind(pgEndClaimBatch);
const CLAIMED_SET = claimedSet('?', '?', '?');
// Statement texts built once: each connection's statement cache is keyed by the text, and a
// text built per call is hashed and compared in full at every lookup. The endpoint reads serve
// both dialects; then SQLite's one-at-a-time transitions, then PostgreSQL's single statements.
const ENDPOINT_BY_ID = `SELECT ${ENDPOINT_COLUMNS} FROM endpoints WHERE id = ?`;
/** Every endpoint request's authentication (REST and MCP). */
const ENDPOINT_BY_TOKEN = `SELECT ${ENDPOINT_COLUMNS} FROM endpoints WHERE token_hash = ?`;
const TODO_BY_ID = `SELECT ${TODO_COLUMNS} FROM todos WHERE id = ?`;
// SQLite's one-row transitions read their row back with TODO_BY_ID (changedTodo), not RETURNING.
const CLAIM_TODO = `UPDATE todos SET ${CLAIMED_SET} WHERE id = ? AND state = 'queued'`;
const EXTEND_LEASE = `UPDATE todos SET lease_expires_at = ?, updated_at = ? WHERE ${FENCED}`;
const END_CLAIM = perEndKind((kind) => `UPDATE todos SET ${END_CLAIM_SET[kind]('?')}, updated_at = ? WHERE ${FENCED}`);
/** The SQLite reaper's requeue of one lapsed claim (a burst may hold thousands). */
const REAP_ONE = `UPDATE todos SET ${REQUEUED_SET}, updated_at = ? WHERE id = ? AND state = 'claimed' AND claim_epoch = ?`;
const INSERT_EVENT = `INSERT INTO claim_events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
const PG_CLAIM_NEXT = `WITH ${PG_ENDPOINT_GUARD},
  pick AS (SELECT id FROM todos WHERE queue = ?::text AND state = 'queued' AND EXISTS (SELECT 1 FROM unchanged)
           ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED),
  changed AS (UPDATE todos SET ${CLAIMED_SET} WHERE id = (SELECT id FROM pick) AND state = 'queued' RETURNING ${TODO_COLUMNS}),
  event AS (${PG_EVENT_OF_CHANGED})
${PG_CHECKED_RESULT}`;
const PG_END_CLAIM = perEndKind((kind) => `WITH ${PG_ENDPOINT_GUARD},
  changed AS (UPDATE todos SET ${END_CLAIM_SET[kind]('?')}, updated_at = ? WHERE ${FENCED} AND EXISTS (SELECT 1 FROM unchanged)
              RETURNING ${TODO_COLUMNS}),
  event AS (${PG_EVENT_OF_CHANGED})
${PG_CHECKED_RESULT}`);
/** heartbeat: also the todo's expiry just before (a bare heartbeat may shorten a longer lease). */
const PG_HEARTBEAT = `WITH ${PG_ENDPOINT_GUARD},
  previous AS (SELECT lease_expires_at FROM todos WHERE id = ?),
  changed AS (UPDATE todos SET lease_expires_at = ?, updated_at = ? WHERE ${FENCED} AND EXISTS (SELECT 1 FROM unchanged)
              RETURNING ${TODO_COLUMNS}),
  event AS (${PG_EVENT_OF_CHANGED})
SELECT ${PG_ENDPOINT_IF_CHANGED('EXISTS (SELECT 1 FROM unchanged)')}, c.*, (SELECT lease_expires_at FROM previous) AS previous_lease_expires_at FROM ep e LEFT JOIN changed c ON true`;

/** A checked transition's result row (PostgreSQL): the todo's columns are NULL when nothing changed. */
type CheckedRow = Partial<TodoRow> & { ep_changed: EndpointRow | null };

/** The todo of a transition's result row, whose other columns are not the todo's. */
function todoOfRow(row: TodoRow): TodoRecord {
  return toTodo({
    id: row.id,
    queue: row.queue,
    title: row.title,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts,
    holder_endpoint_id: row.holder_endpoint_id,
    claim_epoch: row.claim_epoch,
    lease_expires_at: row.lease_expires_at,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
  });
}

/**
 * A checked transition from its result row: the endpoint row as stored when it differs from the
 * caller's (ep_changed, JSON), beside the changed todo's columns; no row: the endpoint is gone.
 */
function checkedRow(row: CheckedRow | undefined, expected: EndpointRecord): CheckedTransition {
  if (!row) return { endpoint: undefined, applied: false, todo: undefined };
  // The statement's own guard (endpointMatches) decided: ep_changed is its verdict, not rechecked here.
  if (row.ep_changed) return { endpoint: toEndpoint(row.ep_changed), applied: false, todo: undefined };
  return { endpoint: expected, applied: true, todo: row.id === null || row.id === undefined ? undefined : todoOfRow(row as TodoRow) };
}

interface ClaimNextRequest {
  queue: string;
  expected: EndpointRecord;
  lease: LeaseGrant;
  now: number;
}
interface EndClaimRequest {
  claim: ClaimMutation;
  expected: EndpointRecord;
}
type EndClaimKind = 'released' | 'completed';

/**
 * SQLite: a one-row UPDATE of todo `todoId`, then that row as it now is; undefined when the
 * UPDATE matched nothing. RETURNING would say the same, but SQLite buffers its rows in a
 * temporary b-tree opened and freed on every call; the read-back, in the same write-locked
 * transaction, is cheaper.
 */
async function changedTodo(tx: SqlExecutor, update: string, params: readonly SqlValue[], todoId: string): Promise<TodoRow | undefined> {
  const { changes } = await tx.run(update, params);
  return changes > 0 ? first<TodoRow>(tx, TODO_BY_ID, [todoId]) : undefined;
}

/** Runs each request on its own: a batch of one, or the requests of a batch statement that failed (so one bad request fails alone). */
async function oneByOne<Req, Res>(requests: readonly Req[], single: (request: Req) => Promise<Res>): Promise<BatchOutcome<Res>[]> {
  const settled = await Promise.allSettled(requests.map(single));
  return settled.map((outcome) => (outcome.status === 'fulfilled' ? { ok: true, value: outcome.value } : { ok: false, error: outcome.reason as unknown }));
}

/**
 * After a batch statement failed: a database that is unreachable fails every call of the batch
 * at once (each alone would wait for a connection again, doubling the wait for its 503); any
 * other failure (a value one call sent, a deadlock) is retried call by call.
 */
function afterBatchFailure<Req, Res>(error: unknown, requests: readonly Req[], single: (request: Req) => Promise<Res>): Promise<BatchOutcome<Res>[]> {
  if (error instanceof LeaseholdError && error.code === 'unavailable') return Promise.resolve(requests.map(() => ({ ok: false, error })));
  return oneByOne(requests, single);
}

/** A batch's first columns: each caller's endpoint row as it resolved its lease from (PG_BATCH_GUARD's req.endpoint_id, exp_state, exp_default). */
const EXPECTED_ENDPOINT_COLUMNS: ReadonlyArray<(request: { expected: EndpointRecord }) => SqlValue> = [
  (request) => request.expected.id,
  (request) => request.expected.state,
  (request) => request.expected.default_lease_ttl_seconds,
];

/** Batches at once per kind of transition: one on the wire while the next gathers, one more for a second connection. */
const PG_BATCHES_IN_FLIGHT = 2;

export class ClaimStore {
  readonly db: Db;
  private readonly pgClaimNext: Batcher<ClaimNextRequest, CheckedTransition>;
  private readonly pgEndClaim: Record<EndClaimKind, Batcher<EndClaimRequest, CheckedTransition>>;

  constructor(db: Db) {
    this.db = db;
    const options = { maxInFlight: PG_BATCHES_IN_FLIGHT };
    this.pgClaimNext = new Batcher((requests) => this.claimNextBatch(requests), options);
    this.pgEndClaim = {
      released: new Batcher((requests) => this.endClaimBatch('released', requests), options),
      completed: new Batcher((requests) => this.endClaimBatch('completed', requests), options),
    };
  }

  /** PostgreSQL: batches and requests per kind of coalesced transition so far (all zero on SQLite, whose group commit coalesces instead). */
  batchStats(): Record<'claim_next' | EndClaimKind, { batches: number; requests: number }> {
    return { claim_next: { ...this.pgClaimNext.stats }, released: { ...this.pgEndClaim.released.stats }, completed: { ...this.pgEndClaim.completed.stats } };
  }

  // Humans ---------------------------------------------------------------------------

  async insertHuman(human: HumanRecord & { token_hash: string }): Promise<void> {
    await this.db.run('INSERT INTO humans (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)', [
      human.id,
      human.name,
      human.token_hash,
      human.created_at,
    ]);
  }

  /** The human by this name, made now if there is none (two servers starting at once may race: one insert wins). */
  async findOrInsertHuman(candidate: HumanRecord & { token_hash: string }): Promise<{ human: HumanRecord; inserted: boolean }> {
    const { changes } = await this.db.run('INSERT INTO humans (id, name, token_hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING', [
      candidate.id,
      candidate.name,
      candidate.token_hash,
      candidate.created_at,
    ]);
    return { human: (await this.findHumanByName(candidate.name))!, inserted: changes > 0 };
  }

  findHumanByTokenHash(tokenHash: string): Promise<HumanRecord | undefined> {
    return first<HumanRecord>(this.db, 'SELECT id, name, created_at FROM humans WHERE token_hash = ?', [tokenHash]);
  }

  findHumanByName(name: string): Promise<HumanRecord | undefined> {
    return first<HumanRecord>(this.db, 'SELECT id, name, created_at FROM humans WHERE name = ?', [name]);
  }

  async setHumanTokenHash(humanId: string, tokenHash: string): Promise<void> {
    await this.db.run('UPDATE humans SET token_hash = ? WHERE id = ?', [tokenHash, humanId]);
  }

  findHumanById(humanId: string): Promise<HumanRecord | undefined> {
    return first<HumanRecord>(this.db, 'SELECT id, name, created_at FROM humans WHERE id = ?', [humanId]);
  }

  // Devices (one token per human per machine) -----------------------------------------

  /** The human behind a live device token, else a human's own (pre-device) token. */
  async authenticate(tokenHash: string): Promise<AuthenticatedHuman | undefined> {
    const device = await first<HumanRecord & { device_id: string }>(
      this.db,
      `SELECT h.id, h.name, h.created_at, d.id AS device_id FROM devices d JOIN humans h ON h.id = d.human_id
       WHERE d.token_hash = ? AND d.revoked_at IS NULL`,
      [tokenHash],
    );
    return device ?? this.findHumanByTokenHash(tokenHash);
  }

  findDeviceByTokenHash(tokenHash: string): Promise<DeviceRecord | undefined> {
    return first<DeviceRecord>(this.db, `SELECT ${DEVICE_COLUMNS} FROM devices WHERE token_hash = ? AND revoked_at IS NULL`, [tokenHash]);
  }

  /** This machine's newest device, revoked or not: whose server ran here last. */
  latestDeviceOfMachine(machineId: string): Promise<DeviceRecord | undefined> {
    return first<DeviceRecord>(this.db, `SELECT ${DEVICE_COLUMNS} FROM devices WHERE machine_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`, [machineId]);
  }

  async listDevices(humanId: string): Promise<Array<DeviceRecord & { machine_label: string | null }>> {
    return this.db.all(
      `SELECT ${qualified('d', DEVICE_COLUMNS)}, m.label AS machine_label
       FROM devices d LEFT JOIN machines m ON m.id = d.machine_id WHERE d.human_id = ? ORDER BY d.created_at, d.id`,
      [humanId],
    );
  }

  /**
   * Issues this machine's device token: the one live device of this machine id from now on.
   * Older live devices of the same machine are revoked (their token file was replaced, so the
   * token is lost); no other machine's device is touched.
   */
  issueDevice(device: Omit<DeviceRecord, 'last_used_at' | 'revoked_at'> & { token_hash: string }): Promise<void> {
    return this.db.transaction(async (tx) => {
      await tx.run('UPDATE devices SET revoked_at = ? WHERE machine_id = ? AND revoked_at IS NULL', [device.created_at, device.machine_id]);
      await tx.run(`INSERT INTO devices (id, human_id, machine_id, label, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`, [
        device.id,
        device.human_id,
        device.machine_id,
        device.label,
        device.token_hash,
        device.created_at,
      ]);
    });
  }

  /** Revokes one live device of this human; undefined when there is none by that id (or it is another human's). */
  async revokeDevice(humanId: string, deviceId: string, now: number): Promise<DeviceRecord | undefined> {
    const rows = await this.db.all<DeviceRecord>(
      `UPDATE devices SET revoked_at = ? WHERE id = ? AND human_id = ? AND revoked_at IS NULL RETURNING ${DEVICE_COLUMNS}`,
      [now, deviceId, humanId],
    );
    return rows[0];
  }

  async touchDevice(deviceId: string, now: number): Promise<void> {
    await this.db.run('UPDATE devices SET last_used_at = ? WHERE id = ?', [now, deviceId]);
  }

  // Endpoints ------------------------------------------------------------------------

  async insertEndpoint(endpoint: EndpointRecord & { token_hash: string }): Promise<void> {
    await this.db.run(
      `INSERT INTO endpoints (${ENDPOINT_COLUMNS}, token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        endpoint.id,
        endpoint.human_id,
        endpoint.slug,
        endpoint.name,
        JSON.stringify(endpoint.scope),
        endpoint.friend,
        endpoint.state,
        endpoint.default_lease_ttl_seconds,
        endpoint.created_at,
        endpoint.revoked_at,
        endpoint.token_hash,
      ],
    );
  }

  async listEndpoints(humanId: string): Promise<EndpointRecord[]> {
    const rows = await this.db.all<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM endpoints WHERE human_id = ? ORDER BY created_at, slug`,
      [humanId],
    );
    return rows.map(toEndpoint);
  }

  /** Reach by slug or id, within one human's endpoints only. */
  async findEndpoint(humanId: string, ref: string): Promise<EndpointRecord | undefined> {
    const row = await first<EndpointRow>(
      this.db,
      `SELECT ${ENDPOINT_COLUMNS} FROM endpoints WHERE human_id = ? AND (id = ? OR slug = ?)`,
      [humanId, ref, ref],
    );
    return row && toEndpoint(row);
  }

  async getEndpoint(endpointId: string): Promise<EndpointRecord | undefined> {
    const row = await first<EndpointRow>(this.db, ENDPOINT_BY_ID, [endpointId]);
    return row && toEndpoint(row);
  }

  async findEndpointByTokenHash(tokenHash: string): Promise<EndpointRecord | undefined> {
    const row = await first<EndpointRow>(this.db, ENDPOINT_BY_TOKEN, [tokenHash]);
    return row && toEndpoint(row);
  }

  /** Sets the default on an active endpoint; undefined when it is not active (or gone). */
  async setDefaultLease(endpointId: string, seconds: number | null): Promise<EndpointRecord | undefined> {
    const rows = await this.db.all<EndpointRow>(
      `UPDATE endpoints SET default_lease_ttl_seconds = ? WHERE id = ? AND state = 'active' RETURNING ${ENDPOINT_COLUMNS}`,
      [seconds, endpointId],
    );
    return rows[0] && toEndpoint(rows[0]);
  }

  /**
   * Revokes an active endpoint and, in the same transaction, requeues every todo it holds
   * (event kind 'revoked'), so nothing stays held by a credential that can no longer act.
   */
  revokeEndpoint(endpointId: string, now: number): Promise<{ endpoint: EndpointRecord; requeued: TodoRecord[] } | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.all<EndpointRow>(
        `UPDATE endpoints SET state = 'revoked', revoked_at = ? WHERE id = ? AND state = 'active' RETURNING ${ENDPOINT_COLUMNS}`,
        [now, endpointId],
      );
      if (!rows[0]) return undefined;
      const held = await tx.all<TodoRow>(
        `UPDATE todos SET ${REQUEUED_SET}, updated_at = ?
         WHERE holder_endpoint_id = ? AND state = 'claimed' RETURNING ${TODO_COLUMNS}`,
        [now, endpointId],
      );
      const requeued: TodoRecord[] = [];
      for (const row of held) requeued.push((await this.recorded(tx, row, 'revoked', endpointId, null, now))!);
      return { endpoint: toEndpoint(rows[0]), requeued };
    });
  }

  // Todos ----------------------------------------------------------------------------

  async insertTodo(todo: TodoRecord): Promise<void> {
    // PostgreSQL numbers seq with its sequence; SQLite (one writer) takes the next integer.
    const seq = this.db.dialect === 'postgres' ? '' : ', seq';
    const seqValue = this.db.dialect === 'postgres' ? '' : ', (SELECT COALESCE(MAX(seq), 0) + 1 FROM todos)';
    await this.db.run(`INSERT INTO todos (${TODO_COLUMNS}${seq}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${seqValue})`, [
      todo.id,
      todo.queue,
      todo.title,
      JSON.stringify(todo.payload ?? null),
      todo.state,
      todo.attempts,
      todo.holder_endpoint_id,
      todo.claim_epoch,
      todo.lease_expires_at,
      todo.created_by,
      todo.created_at,
      todo.updated_at,
      todo.completed_at,
    ]);
  }

  async getTodo(todoId: string): Promise<TodoRecord | undefined> {
    const row = await first<TodoRow>(this.db, TODO_BY_ID, [todoId]);
    return row && toTodo(row);
  }

  /**
   * Todos in core's TODO_LIST_ORDER, at most `limit` in all: one part per state, each cut at the
   * limit, in one statement (one snapshot: a todo that changes state meanwhile is listed once).
   */
  async listTodos(filter: { queue?: string; state?: TodoRecord['state']; holderIds?: string[]; limit?: number }): Promise<TodoRecord[]> {
    if (filter.holderIds?.length === 0) return [];
    const limit = filter.limit ?? 500;
    const where = ['state = ?'];
    const filterParams: string[] = [];
    if (filter.queue) {
      where.push('queue = ?');
      filterParams.push(filter.queue);
    }
    if (filter.holderIds) {
      where.push(`holder_endpoint_id IN (${filter.holderIds.map(() => '?').join(', ')})`);
      filterParams.push(...filter.holderIds);
    }
    const parts: string[] = [];
    const params: (string | number)[] = [];
    TODO_LIST_ORDER.forEach(({ state, newestFirst }, part) => {
      if (filter.state && filter.state !== state) return;
      // A part of a compound SELECT takes ORDER BY and LIMIT only as a subquery (SQLite); each
      // part is read in seq's index order, either way, and list_order carries that order out.
      parts.push(`SELECT * FROM (SELECT ${part} AS list_part, ${newestFirst ? '-seq' : 'seq'} AS list_order, ${TODO_COLUMNS} FROM todos
        WHERE ${where.join(' AND ')} ORDER BY seq${newestFirst ? ' DESC' : ''} LIMIT ?) AS part_${part}`);
      params.push(state, ...filterParams, limit);
    });
    const rows = await this.db.all<TodoRow>(
      `SELECT ${TODO_COLUMNS} FROM (${parts.join(' UNION ALL ')}) AS listed ORDER BY list_part, list_order LIMIT ?`,
      [...params, limit],
    );
    return rows.map(toTodo);
  }

  // Claim transitions ----------------------------------------------------------------

  /** Claims one given queued todo. */
  claimTodo(todoId: string, endpointId: string, lease: LeaseGrant, now: number): Promise<TodoRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.all<TodoRow>(
        `UPDATE todos SET state = 'claimed', holder_endpoint_id = ?, claim_epoch = claim_epoch + 1,
           attempts = attempts + 1, lease_expires_at = ?, updated_at = ?
         WHERE id = ? AND state = 'queued' RETURNING ${TODO_COLUMNS}`,
        [endpointId, now + lease.leaseMs, now, todoId],
      );
      return this.recorded(tx, rows[0], 'claimed', endpointId, lease, now);
    });
  }

  /**
   * Claims the oldest queued todo of a queue for `expected` (several servers may race: SKIP
   * LOCKED), only while the endpoint row is still as expected.
   */
  claimNext(queue: string, expected: EndpointRecord, lease: LeaseGrant, now: number): Promise<CheckedTransition> {
    if (this.db.dialect === 'postgres') return this.pgClaimNext.submit({ queue, expected, lease, now });
    return this.checkedTransaction(expected, async (tx) => {
      // The pick and the claim as two statements in one (write-locked) transaction: SQLite runs
      // an UPDATE whose WHERE holds a subquery on the same table in two passes, at twice the cost.
      const next = await first<{ id: string }>(tx, `SELECT id FROM todos WHERE queue = ? AND state = 'queued' ORDER BY seq LIMIT 1`, [queue]);
      if (!next) return undefined;
      const row = await changedTodo(tx, CLAIM_TODO, [expected.id, now + lease.leaseMs, now, next.id], next.id);
      return this.recorded(tx, row, 'claimed', expected.id, lease, now);
    });
  }

  /** PostgreSQL: one caller's claim_next as one statement. */
  private claimNextStatement({ queue, expected, lease, now }: ClaimNextRequest): Promise<CheckedTransition> {
    return this.checkedStatement(
      PG_CLAIM_NEXT,
      [expected.id, expected.state, expected.default_lease_ttl_seconds, queue, expected.id, now + lease.leaseMs, now, expected.id, 'claimed', lease.leaseSeconds, lease.source, now],
      expected,
    );
  }

  /** PostgreSQL: the claim_next calls of one batch, as one statement. */
  private claimNextBatch(requests: readonly ClaimNextRequest[]): Promise<BatchOutcome<CheckedTransition>[]> {
    return this.batchStatement(
      PG_CLAIM_NEXT_BATCH,
      [
        ...EXPECTED_ENDPOINT_COLUMNS,
        (request) => request.queue,
        (request) => request.now + request.lease.leaseMs,
        (request) => request.now,
        (request) => request.lease.leaseSeconds,
        (request) => request.lease.source,
      ],
      requests,
      (request) => this.claimNextStatement(request),
    );
  }

  /**
   * Extends a live lease held under this epoch, for `expected` while its row is unchanged; todo
   * undefined once it lapsed or was re-claimed. `previousExpiresAt` is the todo's expiry just
   * before (a bare heartbeat may shorten a longer lease, and its result says so). On PostgreSQL
   * one statement, as claim_next is.
   */
  async heartbeat(claim: ClaimMutation, lease: LeaseGrant, expected: EndpointRecord): Promise<CheckedTransition & { previousExpiresAt: number | null }> {
    const expiresAt = claim.now + lease.leaseMs;
    const fenced = fencedParams(claim);
    if (this.db.dialect === 'postgres') {
      const row = (
        await this.db.all<CheckedRow & { previous_lease_expires_at: number | null }>(
          PG_HEARTBEAT,
          [
            expected.id,
            expected.state,
            expected.default_lease_ttl_seconds,
            claim.todoId,
            expiresAt,
            claim.now,
            ...fenced,
            claim.endpointId,
            'heartbeat',
            lease.leaseSeconds,
            lease.source,
            claim.now,
          ],
        )
      )[0];
      const previous = row?.previous_lease_expires_at;
      return { ...checkedRow(row, expected), previousExpiresAt: typeof previous === 'number' ? previous : null };
    }
    let previousExpiresAt: number | null = null;
    const result = await this.checkedTransaction(expected, async (tx) => {
      previousExpiresAt = (await first<{ lease_expires_at: number | null }>(tx, 'SELECT lease_expires_at FROM todos WHERE id = ?', [claim.todoId]))?.lease_expires_at ?? null;
      const row = await changedTodo(tx, EXTEND_LEASE, [expiresAt, claim.now, ...fenced], claim.todoId);
      return this.recorded(tx, row, 'heartbeat', claim.endpointId, lease, claim.now);
    });
    return { ...result, previousExpiresAt };
  }

  /** Ends a live claim held under this epoch, for `expected` while its row is unchanged; todo undefined once it lapsed or was re-claimed. */
  release(claim: ClaimMutation, expected: EndpointRecord): Promise<CheckedTransition> {
    return this.endClaim(claim, expected, 'released');
  }

  complete(claim: ClaimMutation, expected: EndpointRecord): Promise<CheckedTransition> {
    return this.endClaim(claim, expected, 'completed');
  }

  private endClaim(claim: ClaimMutation, expected: EndpointRecord, kind: EndClaimKind): Promise<CheckedTransition> {
    if (this.db.dialect === 'postgres') return this.pgEndClaim[kind].submit({ claim, expected });
    return this.checkedTransaction(expected, async (tx) => {
      const row = await changedTodo(tx, END_CLAIM[kind], endClaimParams(kind, claim), claim.todoId);
      return this.recorded(tx, row, kind, claim.endpointId, null, claim.now);
    });
  }

  /** PostgreSQL: one caller's release or complete as one statement. */
  private endClaimStatement(kind: EndClaimKind, { claim, expected }: EndClaimRequest): Promise<CheckedTransition> {
    return this.checkedStatement(
      PG_END_CLAIM[kind],
      [
        expected.id,
        expected.state,
        expected.default_lease_ttl_seconds,
        ...endClaimParams(kind, claim),
        claim.endpointId,
        kind,
        null,
        null,
        claim.now,
      ],
      expected,
    );
  }

  /** PostgreSQL: the release (or complete) calls of one batch, as one statement. */
  private endClaimBatch(kind: EndClaimKind, requests: readonly EndClaimRequest[]): Promise<BatchOutcome<CheckedTransition>[]> {
    return this.batchStatement(
      PG_END_CLAIM_BATCH[kind],
      [
        ...EXPECTED_ENDPOINT_COLUMNS,
        (request) => request.claim.todoId,
        (request) => request.claim.claimEpoch,
        (request) => request.claim.now,
      ],
      requests,
      (request) => this.endClaimStatement(kind, request),
    );
  }

  /**
   * PostgreSQL: the calls of one batch as one statement, each call's values in one array per
   * column (after the callers' places, `ord`); each caller's row is found by its place. A batch
   * of one runs `single`, the one-call statement; a failed batch statement, afterBatchFailure.
   */
  private async batchStatement<Req extends { expected: EndpointRecord }>(
    sql: string,
    columns: ReadonlyArray<(request: Req) => SqlValue>,
    requests: readonly Req[],
    single: (request: Req) => Promise<CheckedTransition>,
  ): Promise<BatchOutcome<CheckedTransition>[]> {
    if (requests.length === 1) return oneByOne(requests, single);
    let rows: Array<CheckedRow & { req_ord: number }>;
    try {
      const arrays = [requests.map((_, index) => index), ...columns.map((column) => requests.map(column))];
      rows = await this.db.all<CheckedRow & { req_ord: number }>(sql, arrays as unknown as SqlValue[]);
    } catch (error) {
      return afterBatchFailure(error, requests, single);
    }
    const byPlace = new Map(rows.map((row) => [Number(row.req_ord), row]));
    return requests.map((request, index) => ({ ok: true, value: checkedRow(byPlace.get(index), request.expected) }));
  }

  /** PostgreSQL: one statement that reads the endpoint, guards, changes the todo and records its event. */
  private async checkedStatement(sql: string, params: SqlValue[], expected: EndpointRecord): Promise<CheckedTransition> {
    return checkedRow((await this.db.all<CheckedRow>(sql, params))[0], expected);
  }

  /** SQLite: the endpoint read, its check and the transition in one transaction. */
  private checkedTransaction(expected: EndpointRecord, change: (tx: SqlExecutor) => Promise<TodoRecord | undefined>): Promise<CheckedTransition> {
    return this.db.transaction(async (tx) => {
      const row = await first<EndpointRow>(tx, ENDPOINT_BY_ID, [expected.id]);
      const endpoint = row && toEndpoint(row);
      if (!endpoint || !endpointUnchanged(endpoint, expected)) return { endpoint, applied: false, todo: undefined };
      return { endpoint, applied: true, todo: await change(tx) };
    });
  }

  /**
   * A human hands one claimed todo back to its queue (event kind 'requeued'). The old holder
   * is fenced out: its complete, release or heartbeat under the old epoch no longer matches.
   */
  requeueTodo(todoId: string, now: number): Promise<(TodoRecord & { requeued_from: string | null }) | undefined> {
    return this.db.transaction(async (tx) => {
      const held = await first<{ holder_endpoint_id: string | null; claim_epoch: number }>(
        tx,
        `SELECT holder_endpoint_id, claim_epoch FROM todos WHERE id = ? AND state = 'claimed'`,
        [todoId],
      );
      if (!held) return undefined;
      const rows = await tx.all<TodoRow>(
        `UPDATE todos SET ${REQUEUED_SET}, updated_at = ?
         WHERE id = ? AND state = 'claimed' AND claim_epoch = ? RETURNING ${TODO_COLUMNS}`,
        [now, todoId, held.claim_epoch],
      );
      const todo = await this.recorded(tx, rows[0], 'requeued', held.holder_endpoint_id, null, now);
      return todo && { ...todo, requeued_from: held.holder_endpoint_id };
    });
  }

  /**
   * Requeues every claim whose lease lapsed at or before `now`. Several servers may reap at
   * once: rows are locked with SKIP LOCKED and re-checked, so each lapse is reaped once.
   */
  async reapExpired(now: number, batchSize = 500): Promise<Array<TodoRecord & { reaped_from: string | null }>> {
    if (this.db.dialect === 'postgres') {
      // One statement per batch: lock the lapsed rows, requeue them, record their events.
      const changedColumns = qualified('t');
      const rows = await this.db.all<TodoRow & { reaped_from: string | null }>(
        `WITH lapsed AS (SELECT id, holder_endpoint_id, claim_epoch FROM todos
                         WHERE state = 'claimed' AND lease_expires_at <= ? ORDER BY lease_expires_at LIMIT ? FOR UPDATE SKIP LOCKED),
          changed AS (UPDATE todos t SET ${REQUEUED_SET}, updated_at = ?
                      FROM lapsed WHERE t.id = lapsed.id AND t.state = 'claimed' AND t.claim_epoch = lapsed.claim_epoch
                      RETURNING ${changedColumns}, lapsed.holder_endpoint_id AS reaped_from),
          event AS (INSERT INTO claim_events (${EVENT_COLUMNS})
                    SELECT id, reaped_from, 'reaped', claim_epoch, NULL, NULL, lease_expires_at, ?::bigint FROM changed)
        SELECT * FROM changed`,
        [now, batchSize, now, now],
      );
      return rows.map(({ reaped_from, ...row }) => ({ ...toTodo(row), reaped_from }));
    }
    return this.db.transaction(async (tx) => {
      const lapsed = await tx.all<{ id: string; holder_endpoint_id: string | null; claim_epoch: number }>(
        `SELECT id, holder_endpoint_id, claim_epoch FROM todos WHERE state = 'claimed' AND lease_expires_at <= ? ORDER BY lease_expires_at LIMIT ?`,
        [now, batchSize],
      );
      const reaped: Array<TodoRecord & { reaped_from: string | null }> = [];
      for (const claim of lapsed) {
        const row = await changedTodo(tx, REAP_ONE, [now, claim.id, claim.claim_epoch], claim.id);
        const todo = await this.recorded(tx, row, 'reaped', claim.holder_endpoint_id, null, now);
        if (todo) reaped.push({ ...todo, reaped_from: claim.holder_endpoint_id });
      }
      return reaped;
    });
  }

  async nextLeaseExpiry(): Promise<number | null> {
    const row = await first<{ next: number | null }>(
      this.db,
      `SELECT MIN(lease_expires_at) AS next FROM todos WHERE state = 'claimed'`,
    );
    return row?.next ?? null;
  }

  async listClaimEvents(todoId: string): Promise<ClaimEventRecord[]> {
    return this.db.all<ClaimEventRecord>(
      `SELECT id, ${EVENT_COLUMNS} FROM claim_events WHERE todo_id = ? ORDER BY id`,
      [todoId],
    );
  }

  private async recorded(
    tx: SqlExecutor,
    row: TodoRow | undefined,
    kind: ClaimEventKind,
    endpointId: string | null,
    lease: LeaseGrant | null,
    now: number,
  ): Promise<TodoRecord | undefined> {
    if (!row) return undefined;
    await tx.run(
      INSERT_EVENT,
      [row.id, endpointId, kind, row.claim_epoch, lease?.leaseSeconds ?? null, lease?.source ?? null, row.lease_expires_at, now],
    );
    return toTodo(row);
  }
}
