// Storage of panes, session bindings, wait-leases (each row also its ledger row) and the
// persisted lease-clock domain, written once over the Db seam. Every lease write after the
// insert is a compare-and-set on (id, version): a transition decided on a stale
// read writes nothing, and the service re-reads and decides again. That is what keeps a renew
// racing a release from resurrecting the released lease, on SQLite and on PostgreSQL.
import type { ClockDomain, ClockReading } from '../../core/waitLease/clockReading.ts';
import type { TargetObservation } from '../../core/waitLease/evidence.ts';
import type { JobType, LeaseKind } from '../../core/waitLease/jobType.ts';
import type { ObserverDescription, WaitLeaseRecord } from '../../core/waitLease/lease.ts';
import { type LedgerRow, ledgerRowOf } from '../../core/waitLease/ledger.ts';
import { EMPTY_PROGRESS, type ProgressState } from '../../core/waitLease/fuses.ts';
import type { MeasuredRow } from '../../core/waitLease/ttlSuggest.ts';
import { first, type Db, type SqlExecutor, type SqlValue } from '../db/sql.ts';

export type PaneSource = 'vscode' | 'cli';

export interface PaneRecord {
  name: string;
  generation: number;
  source: PaneSource;
  shellPid: number | null;
  shellStartTime: string | null;
  windowId: string | null;
  title: string | null;
  displayState: string;
  displayUpdatedAt: number | null;
  registeredAt: number;
  closedAt: number | null;
  updatedAt: number;
  /** The machine whose server registered the pane (null: registered before team mode recorded it). */
  machineId: string | null;
}

export interface SessionBinding {
  sessionId: string;
  pane: string;
  generation: number;
  boundAt: number;
  /** The machine whose server bound it. */
  machineId?: string | null;
}

export interface StoredLease {
  record: WaitLeaseRecord;
  sessionId: string | null;
  version: number;
  /** The machine that granted it: only its server observes the target and judges its clock (null: before team mode recorded it). */
  machineId: string | null;
  /** The human it belongs to: nobody else reaches it (null or '': before ownership was recorded). */
  humanId: string | null;
}

export interface LeaseFilter {
  pane?: string;
  generation?: number;
  state?: WaitLeaseRecord['state'];
  sessionId?: string;
  jobRef?: string;
  live?: boolean;
  limit?: number;
}

export interface LedgerFilter {
  jobType?: string;
  kind?: string;
  endReason?: string;
  since?: number;
  limit: number;
}

interface PaneRow {
  name: string;
  generation: number;
  source: PaneSource;
  shell_pid: number | null;
  shell_start_time: string | null;
  window_id: string | null;
  title: string | null;
  display_state: string;
  display_updated_at: number | null;
  registered_at: number;
  closed_at: number | null;
  updated_at: number;
  machine_id: string | null;
}

interface LeaseRow {
  id: string;
  pane: string;
  generation: number;
  session_id: string | null;
  job_ref: string;
  job_type: string;
  kind: string;
  description: string | null;
  token_hash: string;
  declared_ttl_ms: number;
  granted_at: number;
  granted_boot_ms: number;
  granted_boot_id: string | null;
  clock_boot_id: string | null;
  clock_counts_suspend: number | boolean;
  renewed_at: number | null;
  renewed_boot_ms: number | null;
  renewed_boot_id: string | null;
  renew_count: number;
  expires_at_boot_ms: number;
  expires_at_wall_ms: number;
  authorized_until_wall_ms: number | null;
  authorized_until_boot_ms: number | null;
  clamped_by: string;
  state: WaitLeaseRecord['state'];
  state_reason: string | null;
  end_reason: WaitLeaseRecord['endReason'];
  expired_by: WaitLeaseRecord['expiredBy'];
  ended_at: number | null;
  ended_boot_ms: number | null;
  ended_boot_id: string | null;
  release_note: string | null;
  observer: string;
  last_evidence: string | null;
  last_refusal: string | null;
  expired_notice_consumed: number | boolean;
  version: number;
  machine_id: string | null;
  human_id: string | null;
  chain_started_at: number | null;
  chain_started_boot_ms: number | null;
  chain_started_boot_id: string | null;
  chain_deadline_boot_ms: number | null;
  chain_deadline_wall_ms: number | null;
  progress: string | null;
}

const PANE_COLUMNS =
  'name, generation, source, shell_pid, shell_start_time, window_id, title, display_state, display_updated_at, registered_at, closed_at, updated_at, machine_id';

const LEASE_COLUMNS = [
  'id',
  'pane',
  'generation',
  'session_id',
  'job_ref',
  'job_type',
  'kind',
  'description',
  'token_hash',
  'declared_ttl_ms',
  'granted_at',
  'granted_boot_ms',
  'granted_boot_id',
  'clock_boot_id',
  'clock_counts_suspend',
  'renewed_at',
  'renewed_boot_ms',
  'renewed_boot_id',
  'renew_count',
  'expires_at_boot_ms',
  'expires_at_wall_ms',
  'authorized_until_wall_ms',
  'authorized_until_boot_ms',
  'clamped_by',
  'state',
  'state_reason',
  'end_reason',
  'expired_by',
  'ended_at',
  'ended_boot_ms',
  'ended_boot_id',
  'release_note',
  'observer',
  'last_evidence',
  'last_refusal',
  'expired_notice_consumed',
  'version',
  'machine_id',
  'human_id',
  'chain_started_at',
  'chain_started_boot_ms',
  'chain_started_boot_id',
  'chain_deadline_boot_ms',
  'chain_deadline_wall_ms',
  'progress',
] as const;
const SELECT_LEASE = `SELECT ${LEASE_COLUMNS.join(', ')} FROM wait_leases`;

/** Columns a transition may change (everything but identity, binding and the grant itself; the observer only from none). */
const MUTABLE_COLUMNS = [
  'renewed_at',
  'renewed_boot_ms',
  'renewed_boot_id',
  'renew_count',
  'expires_at_boot_ms',
  'expires_at_wall_ms',
  'authorized_until_wall_ms',
  'authorized_until_boot_ms',
  'clamped_by',
  'state',
  'state_reason',
  'end_reason',
  'expired_by',
  'ended_at',
  'ended_boot_ms',
  'ended_boot_id',
  'release_note',
  'last_evidence',
  'last_refusal',
  'expired_notice_consumed',
  'censoring',
  'measured_duration_ms',
  // Pinned once, on a lease that had none (a launch found its process late: pinObserver).
  'observer_kind',
  'observer',
  'progress',
] as const;

/** A held lease as heldLeases reads it: with the columns a record does not hold (censoring, measured_duration_ms, observer_kind), as its write compares with every mutable value as stored. */
const HELD_LEASE_COLUMNS = [...new Set([...LEASE_COLUMNS, ...MUTABLE_COLUMNS])].join(', ');

/**
 * What tells one version of a row from another, for every write however it was made: on
 * PostgreSQL the xmin of the row version; on SQLite the version column, which every write moves
 * (a write that leaves it alone has it moved by the trigger of migration 17).
 */
const ROW_STAMP = { postgres: 'xmin::text', sqlite: 'CAST(version AS TEXT)' } as const;

/** The held rows named by id: a text[] parameter on PostgreSQL, a JSON array on SQLite. */
const HELD_IDS = {
  postgres: { clause: 'id = ANY(?::text[])', param: (ids: string[]) => ids as unknown as SqlValue },
  sqlite: { clause: 'id IN (SELECT value FROM json_each(?))', param: (ids: string[]) => JSON.stringify(ids) },
} as const;

/** Where expired_notice_consumed is among MUTABLE_COLUMNS: SQLite stores it as 0 or 1. */
const EXPIRED_NOTICE_CONSUMED = MUTABLE_COLUMNS.indexOf('expired_notice_consumed');

/** A row's MUTABLE_COLUMNS values as mutableValues gives them (int8 is read as a number on both storages). */
function storedValues(row: LeaseRow): SqlValue[] {
  const values = MUTABLE_COLUMNS.map((column) => (row as unknown as Record<string, SqlValue>)[column]!);
  values[EXPIRED_NOTICE_CONSUMED] = Boolean(values[EXPIRED_NOTICE_CONSUMED]);
  return values;
}

/**
 * The conditional write of one lease (one SQL text, so each connection prepares it once). Every
 * compare-and-set, single or batched, is decided by the expected version alone: every write
 * moves it, and what it does not cover cannot change (the token hash and the rest of the grant
 * are no MUTABLE_COLUMNS), so a row still at the version read holds what the write was decided from.
 */
const COMPARE_AND_SET = `UPDATE wait_leases SET ${MUTABLE_COLUMNS.map((column) => `${column} = ?`).join(', ')}, version = version + 1, updated_at = ? WHERE id = ? AND version = ?`;

/**
 * The mutable columns in groups that change together. A batched compare-and-set writes only the
 * groups in which some value changed: a renewal leaves the state, the end and the observer as
 * they were, so the indexes on them are not rewritten. Whole groups keep the SQL texts few (at
 * most one per combination of groups). Safe because every write of these columns is a
 * compare-and-set that moves the version: a row still at the expected version holds exactly
 * the values the write was decided from.
 */
const COLUMN_GROUPS: ReadonlyArray<ReadonlyArray<(typeof MUTABLE_COLUMNS)[number]>> = [
  ['renewed_at', 'renewed_boot_ms', 'renewed_boot_id', 'renew_count', 'expires_at_boot_ms', 'expires_at_wall_ms', 'clamped_by', 'last_evidence', 'progress'],
  ['authorized_until_wall_ms', 'authorized_until_boot_ms'],
  ['state', 'state_reason', 'end_reason', 'expired_by', 'ended_at', 'ended_boot_ms', 'ended_boot_id', 'release_note', 'expired_notice_consumed', 'censoring', 'measured_duration_ms'],
  ['last_refusal'],
  ['observer_kind', 'observer'],
];
/** For each of MUTABLE_COLUMNS (by index), the bit of its group. */
const GROUP_BIT: readonly number[] = MUTABLE_COLUMNS.map((column) => {
  const group = COLUMN_GROUPS.findIndex((columns) => columns.includes(column));
  if (group < 0) throw new Error(`mutable column ${column} is in no COLUMN_GROUPS group`);
  return 1 << group;
});

/** The groups (bits) in which `after` differs from `before`, as stored values. */
function changedGroups(before: readonly SqlValue[], after: readonly SqlValue[]): number {
  let groups = 0;
  for (let index = 0; index < after.length; index++) if (before[index] !== after[index]) groups |= GROUP_BIT[index]!;
  return groups;
}

interface PartialWrite {
  /** Indexes into MUTABLE_COLUMNS of the columns written. */
  columns: number[];
  sqlite: string;
  postgres: string;
}
const partialWrites = new Map<number, PartialWrite>();

/**
 * PostgreSQL's type of each column a batched write sends per row (with id, version and
 * updated_at): json_to_recordset needs them named. test/server/waitLeaseSchema.test.ts holds
 * this list to the table as migrated.
 */
export const PG_WRITTEN_COLUMN_TYPES: Readonly<Record<(typeof MUTABLE_COLUMNS)[number] | 'id' | 'version' | 'updated_at', string>> = {
  id: 'text',
  version: 'integer',
  updated_at: 'bigint',
  renewed_at: 'bigint',
  renewed_boot_ms: 'bigint',
  renewed_boot_id: 'text',
  renew_count: 'integer',
  expires_at_boot_ms: 'bigint',
  expires_at_wall_ms: 'bigint',
  authorized_until_wall_ms: 'bigint',
  authorized_until_boot_ms: 'bigint',
  clamped_by: 'text',
  state: 'text',
  state_reason: 'text',
  end_reason: 'text',
  expired_by: 'text',
  ended_at: 'bigint',
  ended_boot_ms: 'bigint',
  ended_boot_id: 'text',
  release_note: 'text',
  last_evidence: 'text',
  last_refusal: 'text',
  expired_notice_consumed: 'boolean',
  censoring: 'text',
  measured_duration_ms: 'bigint',
  observer_kind: 'text',
  observer: 'text',
  progress: 'text',
};

function partialWrite(groups: number): PartialWrite {
  let write = partialWrites.get(groups);
  if (!write) {
    const columns = MUTABLE_COLUMNS.flatMap((_, index) => ((GROUP_BIT[index]! & groups) !== 0 ? [index] : []));
    const names = columns.map((index) => MUTABLE_COLUMNS[index]!);
    const rowColumns = ['id', 'version', ...names, 'updated_at'] as const;
    write = {
      columns,
      // The expected version alone decides, as for COMPARE_AND_SET.
      sqlite: `UPDATE wait_leases SET ${names.map((name) => `${name} = ?, `).join('')}version = version + 1, updated_at = ? WHERE id = ? AND version = ?`,
      // What every row shares travels once, as a base row typed by the table's own row type (the
      // first parameter). What differs by row travels as one JSON array per column, in row order
      // (id, the expected version, each written column, updated_at), zipped by ROWS FROM; a
      // column the base holds gets an empty array, read as NULL, so COALESCE picks whichever
      // has it. Arrays, not an array of row objects: json_to_recordset builds a hash table per
      // object, and 500 rows like the hold loop's cost 2.1 ms of the server's time against
      // 0.6, and 13.5 against 4.1 ms on first use, round trip included (each row its own pid's
      // evidence, 2026-12-07).
      postgres: `UPDATE wait_leases AS w SET ${names.map((name) => `${name} = COALESCE(r.${name}::${PG_WRITTEN_COLUMN_TYPES[name]}, s.${name}), `).join('')}version = w.version + 1, updated_at = COALESCE(r.updated_at::bigint, s.updated_at)
        FROM json_populate_record(NULL::wait_leases, ?::json) AS s,
             ROWS FROM (${rowColumns.map(() => 'json_array_elements_text(?::json)').join(', ')}) AS r(${rowColumns.join(', ')})
        WHERE w.id = r.id AND w.version = r.version::integer
        RETURNING w.id, w.xmin::text AS stamp`,
    };
    partialWrites.set(groups, write);
  }
  return write;
}

/**
 * A batched PostgreSQL write's values split in two: those every row shares (`updated_at` among
 * them), sent once as the base row, and the indexes of the columns each row carries itself. The
 * base has no key for those (a missing key is the base's NULL), so a row's NULL stays NULL.
 */
function splitShared(planned: ReadonlyArray<{ write: { now: number }; values: readonly SqlValue[] }>, columns: readonly number[]): { shared: Record<string, SqlValue>; own: number[] } {
  const [first] = planned;
  const shared: Record<string, SqlValue> = {};
  const own: number[] = [];
  for (const index of columns) {
    const value = first!.values[index] as SqlValue;
    if (!planned.every((plan) => plan.values[index] === value)) own.push(index);
    else if (value !== null) shared[MUTABLE_COLUMNS[index]!] = value;
  }
  if (planned.every((plan) => plan.write.now === first!.write.now)) shared.updated_at = first!.write.now;
  return { shared, own };
}

/**
 * Rows per statement of a batched PostgreSQL compare-and-set (compareAndSetMany). The hold loop's
 * renew tick of 1,000 leases, medians of three rounds on a 2-core machine (`npm run bench --
 * holdBatches`): one statement 45.2/45.8/44.4 ms, 500 rows 40.8/39.4/35.4, 250 rows
 * 40.6/39.2/38.6; with the rows sent as one array per column (848496e): 29.7/26.3/24.7,
 * 29.5/21.1/20.1, 32.4/20.7/22.2.
 */
const POSTGRES_BATCH_ROWS = 500;

/** One write of compareAndSetMany: `record` replaces `before` if the row is still at `expectedVersion`. */
export interface CompareAndSetWrite {
  before: WaitLeaseRecord;
  record: WaitLeaseRecord;
  expectedVersion: number;
  /** Wall ms, written as updated_at. */
  now: number;
}

/** A held lease as last read or written (heldLeases, compareAndSetMany). */
interface HeldRow {
  /** The ROW_STAMP of the row version it is. */
  stamp: string;
  stored: StoredLease;
  /**
   * The row's MUTABLE_COLUMNS values as stored: as read, or as this store wrote them. A write
   * compares with these, so a JSON column whose object did not change keeps the row's own text.
   */
  values: readonly SqlValue[];
}

function toPane(row: PaneRow): PaneRecord {
  return {
    name: row.name,
    generation: Number(row.generation),
    source: row.source,
    shellPid: row.shell_pid === null ? null : Number(row.shell_pid),
    shellStartTime: row.shell_start_time,
    windowId: row.window_id,
    title: row.title,
    displayState: row.display_state,
    displayUpdatedAt: row.display_updated_at === null ? null : Number(row.display_updated_at),
    registeredAt: Number(row.registered_at),
    closedAt: row.closed_at === null ? null : Number(row.closed_at),
    updatedAt: Number(row.updated_at),
    machineId: row.machine_id,
  };
}

function json<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** Rows granted in `domain` (same boot, same clock semantics). */
function domainClause(domain: ClockDomain): { clause: string; params: SqlValue[] } {
  const boot = domain.bootId === null ? 'clock_boot_id IS NULL' : 'clock_boot_id = ?';
  return { clause: `${boot} AND clock_counts_suspend = ?`, params: domain.bootId === null ? [domain.countsSuspend] : [domain.bootId, domain.countsSuspend] };
}

/** A row as a stored lease. */
function toStored(row: LeaseRow): StoredLease {
  const num = (value: number | null) => (value === null ? null : Number(value));
  const grantedAt = { wallMs: Number(row.granted_at), bootMs: Number(row.granted_boot_ms), bootId: row.granted_boot_id };
  const record: WaitLeaseRecord = {
    id: row.id,
    pane: row.pane,
    generation: Number(row.generation),
    jobRef: row.job_ref,
    jobType: row.job_type as JobType,
    kind: row.kind as LeaseKind,
    description: row.description,
    tokenHash: row.token_hash,
    declaredTtlMs: Number(row.declared_ttl_ms),
    grantedAt,
    clockDomain: { bootId: row.clock_boot_id, countsSuspend: Boolean(row.clock_counts_suspend) },
    renewedAt: row.renewed_at === null ? null : { wallMs: Number(row.renewed_at), bootMs: Number(row.renewed_boot_ms), bootId: row.renewed_boot_id },
    renewCount: Number(row.renew_count),
    expiresAtBootMs: Number(row.expires_at_boot_ms),
    expiresAtWallMs: Number(row.expires_at_wall_ms),
    authorizedUntilWallMs: num(row.authorized_until_wall_ms),
    authorizedUntilBootMs: num(row.authorized_until_boot_ms),
    clampedBy: JSON.parse(row.clamped_by) as WaitLeaseRecord['clampedBy'],
    state: row.state,
    stateReason: row.state_reason,
    endReason: row.end_reason,
    expiredBy: row.expired_by,
    endedAt: row.ended_at === null ? null : { wallMs: Number(row.ended_at), bootMs: Number(row.ended_boot_ms), bootId: row.ended_boot_id },
    releaseNote: row.release_note,
    observer: JSON.parse(row.observer) as ObserverDescription,
    lastEvidence: json<TargetObservation>(row.last_evidence),
    lastRefusal: json<WaitLeaseRecord['lastRefusal']>(row.last_refusal),
    expiredNoticeConsumed: Boolean(row.expired_notice_consumed),
    // A row from before the fuses (migration 0010) is a chain of its own with no cap.
    chain: {
      startedAt:
        row.chain_started_at === null ? grantedAt : { wallMs: Number(row.chain_started_at), bootMs: Number(row.chain_started_boot_ms), bootId: row.chain_started_boot_id },
      deadlineBootMs: num(row.chain_deadline_boot_ms),
      deadlineWallMs: num(row.chain_deadline_wall_ms),
    },
    progress: json<ProgressState>(row.progress) ?? EMPTY_PROGRESS,
  };
  return { record, sessionId: row.session_id, version: Number(row.version), machineId: row.machine_id, humanId: row.human_id };
}

/** Integer milliseconds for BIGINT columns (readings are whole ms; this guards the rest). */
function ms(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : Math.floor(value);
}

/** Where each JSON column is among MUTABLE_COLUMNS. */
const JSON_COLUMN = Object.fromEntries(
  (['clamped_by', 'last_evidence', 'last_refusal', 'observer', 'progress'] as const).map((column) => [column, MUTABLE_COLUMNS.indexOf(column)]),
) as Record<'clamped_by' | 'last_evidence' | 'last_refusal' | 'observer' | 'progress', number>;

/**
 * The values of MUTABLE_COLUMNS for `record`. `before`: the record it was made from and its
 * values; a JSON column whose object is the one `before` holds keeps its text, not serialized
 * again (records are never mutated, so the same object has the same text).
 */
function mutableValues(record: WaitLeaseRecord, before?: { record: WaitLeaseRecord; values: readonly SqlValue[] }): SqlValue[] {
  const ledger = ledgerRowOf(record);
  const text = (value: object | null, was: object | null | undefined, column: keyof typeof JSON_COLUMN): string | null =>
    before !== undefined && value === was ? (before.values[JSON_COLUMN[column]] as string | null) : value === null ? null : JSON.stringify(value);
  const previous = before?.record;
  return [
    ms(record.renewedAt?.wallMs),
    ms(record.renewedAt?.bootMs),
    record.renewedAt?.bootId ?? null,
    record.renewCount,
    ms(record.expiresAtBootMs),
    ms(record.expiresAtWallMs),
    ms(record.authorizedUntilWallMs),
    ms(record.authorizedUntilBootMs),
    text(record.clampedBy, previous?.clampedBy, 'clamped_by'),
    record.state,
    record.stateReason,
    record.endReason,
    record.expiredBy,
    ms(record.endedAt?.wallMs),
    ms(record.endedAt?.bootMs),
    record.endedAt?.bootId ?? null,
    record.releaseNote,
    text(record.lastEvidence, previous?.lastEvidence, 'last_evidence'),
    text(record.lastRefusal, previous?.lastRefusal, 'last_refusal'),
    record.expiredNoticeConsumed,
    ledger.censoring,
    ms(ledger.measured_duration_ms),
    record.observer.kind,
    text(record.observer, previous?.observer, 'observer'),
    text(record.progress, previous?.progress, 'progress'),
  ];
}

/**
 * A WHERE clause (with its leading space, or '' when empty): `column = ?` for each defined value
 * in `equals`, the `fixed` conditions, and `granted_at >= ?` when `grantedSince` is given.
 */
function whereOf(equals: Record<string, SqlValue | undefined>, fixed: string[] = [], grantedSince?: number): { sql: string; params: SqlValue[] } {
  const conditions = [...fixed];
  const params: SqlValue[] = [];
  for (const [column, value] of Object.entries(equals)) {
    if (value === undefined) continue;
    conditions.push(`${column} = ?`);
    params.push(value);
  }
  if (grantedSince !== undefined) {
    conditions.push('granted_at >= ?');
    params.push(grantedSince);
  }
  return { sql: conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '', params };
}

export class WaitLeaseStore {
  readonly db: Db;
  /**
   * The human this store acts for (issue 9): every pane, session, lease and ledger read or
   * write is confined to their rows, so another human's is exactly as absent as a missing one.
   * Unset only for the owning machine's maintenance (hold loop, sweeper, clock judgements),
   * which works by machine and never creates anything.
   */
  readonly humanId: string | undefined;

  /**
   * The hold loop's work list as last read, each row with the stamp (ROW_STAMP) of the version
   * read. A tick reads only (id, stamp) of its leases and reads in full only the rows whose
   * version it has not seen: any write to a row, by this server or another, gives it a new
   * stamp, so no write is missed, however it was made. The hold loop's own renewals are put in
   * as written (compareAndSetMany). Holds only the current work list's rows.
   */
  private readonly heldRows = new Map<string, HeldRow>();

  /** Rows per statement of compareAndSetMany on PostgreSQL (tests lower it to cross a batch with a few leases). */
  postgresBatchRows = POSTGRES_BATCH_ROWS;

  constructor(db: Db, humanId?: string) {
    this.db = db;
    this.humanId = humanId;
  }

  /** This store confined to one human's panes, sessions and leases. */
  forHuman(humanId: string): WaitLeaseStore {
    return new WaitLeaseStore(this.db, humanId);
  }

  /** whereOf, narrowed to this store's human when it has one. */
  private whereOwn(equals: Record<string, SqlValue | undefined>, fixed: string[] = [], grantedSince?: number): { sql: string; params: SqlValue[] } {
    return whereOf({ human_id: this.humanId, ...equals }, fixed, grantedSince);
  }

  /** ' AND human_id = ?' and its parameter when confined to a human; nothing otherwise. */
  private mine(): { clause: string; params: SqlValue[] } {
    return this.humanId === undefined ? { clause: '', params: [] } : { clause: ' AND human_id = ?', params: [this.humanId] };
  }

  /** The owner written on a new row: only a store confined to a human creates anything. */
  private owner(): string {
    if (this.humanId === undefined) throw new Error('a pane, session or lease is only created for a human (WaitLeaseStore.forHuman)');
    return this.humanId;
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  // Panes ----------------------------------------------------------------------------

  async getPane(name: string, executor: SqlExecutor = this.db): Promise<PaneRecord | undefined> {
    const mine = this.mine();
    const row = await first<PaneRow>(executor, `SELECT ${PANE_COLUMNS} FROM panes WHERE name = ?${mine.clause}`, [name, ...mine.params]);
    return row && toPane(row);
  }

  /** The pane row locked for the rest of the transaction (PostgreSQL); SQLite transactions are exclusive already. */
  async lockPane(tx: SqlExecutor, name: string): Promise<PaneRecord | undefined> {
    const lock = this.db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    const mine = this.mine();
    const row = await first<PaneRow>(tx, `SELECT ${PANE_COLUMNS} FROM panes WHERE name = ?${mine.clause}${lock}`, [name, ...mine.params]);
    return row && toPane(row);
  }

  /**
   * The inferred tier's work list: open panes registered on `machineId` (or before machines
   * were recorded) with a shell pid and start time to observe, each with its owner, across
   * humans (the observer acts for each pane's owner).
   */
  async observablePanes(machineId: string): Promise<Array<{ pane: PaneRecord; humanId: string }>> {
    const rows = await this.db.all<PaneRow & { human_id: string }>(
      `SELECT ${PANE_COLUMNS}, human_id FROM panes WHERE closed_at IS NULL AND shell_pid IS NOT NULL AND shell_start_time IS NOT NULL
       AND (machine_id = ? OR machine_id IS NULL) AND human_id <> '' ORDER BY human_id, name`,
      [machineId],
    );
    return rows.map((row) => ({ pane: toPane(row), humanId: row.human_id }));
  }

  async listOpenPanes(): Promise<PaneRecord[]> {
    const mine = this.mine();
    const rows = await this.db.all<PaneRow>(`SELECT ${PANE_COLUMNS} FROM panes WHERE closed_at IS NULL${mine.clause} ORDER BY name`, mine.params);
    return rows.map(toPane);
  }

  async insertPane(tx: SqlExecutor, pane: PaneRecord): Promise<void> {
    await tx.run(`INSERT INTO panes (${PANE_COLUMNS}, human_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      pane.name,
      pane.generation,
      pane.source,
      pane.shellPid,
      pane.shellStartTime,
      pane.windowId,
      pane.title,
      pane.displayState,
      pane.displayUpdatedAt,
      pane.registeredAt,
      pane.closedAt,
      pane.updatedAt,
      pane.machineId,
      this.owner(),
    ]);
  }

  /** Inserts the pane unless a row with its name exists (a concurrent first use); true when inserted. */
  async insertPaneIfAbsent(tx: SqlExecutor, pane: PaneRecord): Promise<boolean> {
    const result = await tx.run(`INSERT INTO panes (${PANE_COLUMNS}, human_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (human_id, name) DO NOTHING`, [
      pane.name,
      pane.generation,
      pane.source,
      pane.shellPid,
      pane.shellStartTime,
      pane.windowId,
      pane.title,
      pane.displayState,
      pane.displayUpdatedAt,
      pane.registeredAt,
      pane.closedAt,
      pane.updatedAt,
      pane.machineId,
      this.owner(),
    ]);
    return result.changes > 0;
  }

  async updatePane(tx: SqlExecutor, pane: PaneRecord): Promise<void> {
    await tx.run(
      `UPDATE panes SET generation = ?, source = ?, shell_pid = ?, shell_start_time = ?, window_id = ?, title = ?, display_state = ?,
         display_updated_at = ?, registered_at = ?, closed_at = ?, updated_at = ?, machine_id = ? WHERE name = ? AND human_id = ?`,
      [
        pane.generation,
        pane.source,
        pane.shellPid,
        pane.shellStartTime,
        pane.windowId,
        pane.title,
        pane.displayState,
        pane.displayUpdatedAt,
        pane.registeredAt,
        pane.closedAt,
        pane.updatedAt,
        pane.machineId,
        pane.name,
        this.owner(),
      ],
    );
  }

  /** Display state only: it never touches leases. Returns false when the pane is unknown or closed. */
  async setDisplayState(name: string, state: string, now: number): Promise<boolean> {
    const result = await this.db.run('UPDATE panes SET display_state = ?, display_updated_at = ?, updated_at = ? WHERE name = ? AND human_id = ? AND closed_at IS NULL', [
      state,
      now,
      now,
      name,
      this.owner(),
    ]);
    return result.changes > 0;
  }

  /**
   * Sets the display as observed at `observedAt`, unless a later observation already set it:
   * hook events may arrive out of order (async hooks, a spool replay), and the display must end
   * on the latest observation, not the latest arrival. 'stale' when a later one stands.
   */
  async setDisplayStateAsOf(name: string, state: string | null, observedAt: number, now: number): Promise<'set' | 'stale' | 'missing'> {
    // state null: the state is confirmed as it stands at `observedAt` (only the time moves).
    const result = await this.db.run(
      'UPDATE panes SET display_state = COALESCE(?, display_state), display_updated_at = ?, updated_at = ? WHERE name = ? AND human_id = ? AND closed_at IS NULL AND (display_updated_at IS NULL OR display_updated_at <= ?)',
      [state, observedAt, now, name, this.owner(), observedAt],
    );
    if (result.changes > 0) return 'set';
    const pane = await this.getPane(name);
    return pane && pane.closedAt === null ? 'stale' : 'missing';
  }

  // Sessions -------------------------------------------------------------------------

  async bindSession(tx: SqlExecutor, binding: SessionBinding): Promise<void> {
    await tx.run(
      // A session id already bound by another human is left alone (ids are random: that is a guess, not a collision).
      `INSERT INTO pane_sessions (session_id, pane, generation, bound_at, machine_id, human_id) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET pane = excluded.pane, generation = excluded.generation, bound_at = excluded.bound_at,
         machine_id = excluded.machine_id WHERE pane_sessions.human_id = excluded.human_id`,
      [binding.sessionId, binding.pane, binding.generation, binding.boundAt, binding.machineId ?? null, this.owner()],
    );
  }

  async unbindSession(tx: SqlExecutor, sessionId: string): Promise<void> {
    const mine = this.mine();
    await tx.run(`DELETE FROM pane_sessions WHERE session_id = ?${mine.clause}`, [sessionId, ...mine.params]);
  }

  async getSession(sessionId: string, executor: SqlExecutor = this.db): Promise<SessionBinding | undefined> {
    const row = await first<{ session_id: string; pane: string; generation: number; bound_at: number }>(
      executor,
      `SELECT session_id, pane, generation, bound_at FROM pane_sessions WHERE session_id = ?${this.mine().clause}`,
      [sessionId, ...this.mine().params],
    );
    return row && { sessionId: row.session_id, pane: row.pane, generation: Number(row.generation), boundAt: Number(row.bound_at) };
  }

  /** Hands the live leases of one session to another (same pane and generation); returns their ids. */
  async carrySessionLeases(tx: SqlExecutor, fromSession: string, toSession: string, now: number): Promise<string[]> {
    const mine = this.mine();
    const rows = await tx.all<{ id: string }>(`SELECT id FROM wait_leases WHERE session_id = ? AND state <> 'ended'${mine.clause}`, [fromSession, ...mine.params]);
    if (rows.length > 0) {
      await tx.run(`UPDATE wait_leases SET session_id = ?, version = version + 1, updated_at = ? WHERE session_id = ? AND state <> 'ended'${mine.clause}`, [
        toSession,
        now,
        fromSession,
        ...mine.params,
      ]);
    }
    return rows.map((row) => row.id);
  }

  /** Hands one live lease to another session; false when it has ended or is gone. */
  async carryLease(tx: SqlExecutor, leaseId: string, toSession: string, now: number): Promise<boolean> {
    const mine = this.mine();
    const result = await tx.run(`UPDATE wait_leases SET session_id = ?, version = version + 1, updated_at = ? WHERE id = ? AND state <> 'ended'${mine.clause}`, [
      toSession,
      now,
      leaseId,
      ...mine.params,
    ]);
    return result.changes > 0;
  }

  async sessionsOf(pane: string, generation: number): Promise<string[]> {
    const mine = this.mine();
    const rows = await this.db.all<{ session_id: string }>(`SELECT session_id FROM pane_sessions WHERE pane = ? AND generation = ?${mine.clause} ORDER BY bound_at`, [
      pane,
      generation,
      ...mine.params,
    ]);
    return rows.map((row) => row.session_id);
  }

  // Leases ---------------------------------------------------------------------------

  async insertLease(tx: SqlExecutor, record: WaitLeaseRecord, sessionId: string | null, now: number, machineId: string | null): Promise<void> {
    const identity: SqlValue[] = [
      record.id,
      record.pane,
      record.generation,
      sessionId,
      record.jobRef,
      record.jobType,
      record.kind,
      record.description,
      record.tokenHash,
      record.declaredTtlMs,
      ms(record.grantedAt.wallMs),
      ms(record.grantedAt.bootMs),
      record.grantedAt.bootId,
      record.clockDomain.bootId,
      record.clockDomain.countsSuspend,
      now,
      machineId,
      this.owner(),
      ms(record.chain.startedAt.wallMs),
      ms(record.chain.startedAt.bootMs),
      record.chain.startedAt.bootId,
      ms(record.chain.deadlineBootMs),
      ms(record.chain.deadlineWallMs),
    ];
    const columns = [
      'id',
      'pane',
      'generation',
      'session_id',
      'job_ref',
      'job_type',
      'kind',
      'description',
      'token_hash',
      'declared_ttl_ms',
      'granted_at',
      'granted_boot_ms',
      'granted_boot_id',
      'clock_boot_id',
      'clock_counts_suspend',
      'updated_at',
      'machine_id',
      'human_id',
      'chain_started_at',
      'chain_started_boot_ms',
      'chain_started_boot_id',
      'chain_deadline_boot_ms',
      'chain_deadline_wall_ms',
      ...MUTABLE_COLUMNS,
    ];
    const values = [...identity, ...mutableValues(record)];
    await tx.run(`INSERT INTO wait_leases (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, values);
  }

  async getLease(id: string, executor: SqlExecutor = this.db): Promise<StoredLease | undefined> {
    const mine = this.mine();
    const row = await first<LeaseRow>(executor, `${SELECT_LEASE} WHERE id = ?${mine.clause}`, [id, ...mine.params]);
    return row && toStored(row);
  }

  /**
   * The conditional write: applies `record` only if the row is still at `expectedVersion`
   * (COMPARE_AND_SET). Returns false when something else wrote first.
   */
  async compareAndSet(record: WaitLeaseRecord, expectedVersion: number, now: number, executor: SqlExecutor = this.db): Promise<boolean> {
    const values = mutableValues(record);
    values.push(now, record.id, expectedVersion);
    const result = await executor.run(COMPARE_AND_SET, values);
    return result.changes === 1;
  }

  /**
   * compareAndSet for many leases: each record applies only if its row is still at its expected
   * version, and only the column groups in which it differs from `before` (the record that
   * version holds) are written. `writes` is taken as it is iterated, so a caller can decide each
   * write as it goes. Returns the ids that applied and, when a write failed, the first error
   * (its leases did not apply; the rest did as `applied` says).
   *
   * PostgreSQL: one statement per postgresBatchRows writes, each sent as soon as it is full (on
   * a connection of its own from the pool), so the database writes a batch while the caller
   * decides the next. SQLite works in this thread, so there is nothing to overlap: one
   * transaction of conditional UPDATEs.
   */
  async compareAndSetMany(writes: Iterable<CompareAndSetWrite>): Promise<{ applied: Set<string>; error?: unknown }> {
    if (this.db.dialect !== 'postgres') {
      const all = [...writes];
      if (all.length === 0) return { applied: new Set() };
      let written: Array<{ write: CompareAndSetWrite; values: readonly SqlValue[] }>;
      try {
        written = await this.db.transaction((tx) => this.compareAndSetSqlite(all, tx));
      } catch (error) {
        return { applied: new Set(), error };
      }
      // Committed: each row is now at the version after the one it was written at.
      for (const { write, values } of written) this.rememberWritten(write.record.id, String(write.expectedVersion + 1), write.record, values, write.expectedVersion + 1);
      return { applied: new Set(written.map(({ write }) => write.record.id)) };
    }
    const sent: Array<Promise<Set<string>>> = [];
    let batch: CompareAndSetWrite[] = [];
    const send = () => {
      const applied = this.compareAndSetPostgres(batch);
      applied.catch(() => undefined); // settled below, with the rest
      sent.push(applied);
      batch = [];
    };
    for (const write of writes) {
      if (batch.length >= this.postgresBatchRows) {
        send();
        // Lets the batch go out before the next is decided.
        await new Promise((resolve) => setImmediate(resolve));
      }
      batch.push(write);
    }
    if (batch.length > 0) send();
    const applied = new Set<string>();
    let failure: { error: unknown } | undefined;
    for (const settled of await Promise.allSettled(sent)) {
      if (settled.status === 'rejected') failure ??= { error: settled.reason };
      else for (const id of settled.value) applied.add(id);
    }
    return failure ? { applied, error: failure.error } : { applied };
  }

  /** The values each write holds and the column groups in which they differ from its `before`. */
  private planned(writes: readonly CompareAndSetWrite[]) {
    return writes.map((write) => {
      const before = { record: write.before, values: this.heldValues(write.before) ?? mutableValues(write.before) };
      const values = mutableValues(write.record, before);
      return { write, values, groups: changedGroups(before.values, values) };
    });
  }

  /** One statement writes the groups any of the rows changed (a row's unchanged values are its own). */
  private async compareAndSetPostgres(writes: readonly CompareAndSetWrite[]): Promise<Set<string>> {
    const planned = this.planned(writes);
    const { columns, postgres } = partialWrite(planned.reduce((groups, plan) => groups | plan.groups, 0));
    const { shared, own } = splitShared(planned, columns);
    const column = (valueOf: (plan: (typeof planned)[number]) => SqlValue) => JSON.stringify(planned.map(valueOf));
    const params: SqlValue[] = [JSON.stringify(shared), column((plan) => plan.write.record.id), column((plan) => plan.write.expectedVersion)];
    for (const index of columns) params.push(own.includes(index) ? column((plan) => plan.values[index]!) : '[]');
    params.push('updated_at' in shared ? '[]' : column((plan) => plan.write.now));
    const applied = await this.db.all<{ id: string; stamp: string }>(postgres, params);
    const written = new Map(planned.map((plan) => [plan.write.record.id, plan]));
    for (const { id, stamp } of applied) {
      const plan = written.get(id)!;
      this.rememberWritten(id, stamp, plan.write.record, plan.values, plan.write.expectedVersion + 1);
    }
    return new Set(applied.map((row) => row.id));
  }

  /** One conditional UPDATE per write, of the groups it changed, in the caller's transaction; the writes applied, with their values. */
  private async compareAndSetSqlite(writes: readonly CompareAndSetWrite[], tx: SqlExecutor): Promise<Array<{ write: CompareAndSetWrite; values: readonly SqlValue[] }>> {
    const applied: Array<{ write: CompareAndSetWrite; values: readonly SqlValue[] }> = [];
    for (const { write, values, groups } of this.planned(writes)) {
      const { columns, sqlite } = partialWrite(groups);
      const params: SqlValue[] = columns.map((index) => values[index]!);
      params.push(write.now, write.record.id, write.expectedVersion);
      if ((await tx.run(sqlite, params)).changes === 1) applied.push({ write, values });
    }
    return applied;
  }

  async listLeases(filter: LeaseFilter = {}, executor: SqlExecutor = this.db): Promise<StoredLease[]> {
    const { sql: where, params } = this.whereOwn(
      { pane: filter.pane, generation: filter.generation, state: filter.state, session_id: filter.sessionId, job_ref: filter.jobRef },
      filter.live ? [`state <> 'ended'`] : [],
    );
    const limit = filter.limit !== undefined ? ` LIMIT ${Math.floor(filter.limit)}` : '';
    const rows = await executor.all<LeaseRow>(`${SELECT_LEASE}${where} ORDER BY granted_at, id${limit}`, params);
    return rows.map(toStored);
  }

  /** Live leases of `machineId` that may be due at `now` (a superset: core's expireIfDue decides). Only the owner judges its leases' clock. */
  async expiryCandidates(now: ClockReading, machineId: string, limit = 500): Promise<StoredLease[]> {
    const rows = await this.db.all<LeaseRow>(
      `${SELECT_LEASE} WHERE state <> 'ended' AND machine_id = ? AND (expires_at_boot_ms <= ? OR expires_at_wall_ms <= ? OR authorized_until_wall_ms <= ? OR authorized_until_boot_ms <= ?)
       ORDER BY expires_at_boot_ms LIMIT ${limit}`,
      [machineId, Math.floor(now.bootMs), Math.floor(now.wallMs), Math.floor(now.wallMs), Math.floor(now.bootMs)],
    );
    return rows.map(toStored);
  }

  /** Active leases with no verifiable target, of `machineId` in `now`'s clock domain, whose last news is at least `boundMs` old (core's degradeIfNoNews decides). */
  async noNewsCandidates(now: ClockReading, machineId: string, boundMs: number, limit = 500): Promise<StoredLease[]> {
    const { clause, params } = domainClause(now.domain);
    const rows = await this.db.all<LeaseRow>(
      `${SELECT_LEASE} WHERE state = 'active' AND observer_kind = 'none' AND machine_id = ? AND ${clause}
       AND COALESCE(renewed_boot_ms, granted_boot_ms) <= ? ORDER BY id LIMIT ${limit}`,
      [machineId, ...params, Math.floor(now.bootMs - boundMs)],
    );
    return rows.map(toStored);
  }

  /** When the next no-news bound falls due (ms from `now`), among this machine's active unverifiable leases in `now`'s domain; null when none. */
  async nextNoNewsInMs(now: ClockReading, machineId: string, boundMs: number): Promise<number | null> {
    const { clause, params } = domainClause(now.domain);
    const row = await first<{ news: number | null }>(
      this.db,
      `SELECT MIN(COALESCE(renewed_boot_ms, granted_boot_ms)) AS news FROM wait_leases WHERE state = 'active' AND observer_kind = 'none' AND machine_id = ? AND ${clause}`,
      [machineId, ...params],
    );
    if (!row || row.news === null) return null;
    return Math.max(0, Number(row.news) + boundMs - now.bootMs);
  }

  /** The nearest deadline of any live lease of `machineId`, as ms from `now` (null when none is live). */
  async nextDeadlineInMs(now: ClockReading, machineId: string): Promise<number | null> {
    const row = await first<{ boot: number | null; wall: number | null; ceiling_boot: number | null; ceiling_wall: number | null }>(
      this.db,
      `SELECT MIN(expires_at_boot_ms) AS boot, MIN(expires_at_wall_ms) AS wall, MIN(authorized_until_boot_ms) AS ceiling_boot,
              MIN(authorized_until_wall_ms) AS ceiling_wall FROM wait_leases WHERE state <> 'ended' AND machine_id = ?`,
      [machineId],
    );
    if (!row || row.boot === null) return null;
    const deltas = [Number(row.boot) - now.bootMs, Number(row.wall) - now.wallMs];
    if (row.ceiling_boot !== null) deltas.push(Number(row.ceiling_boot) - now.bootMs);
    if (row.ceiling_wall !== null) deltas.push(Number(row.ceiling_wall) - now.wallMs);
    return Math.max(0, Math.min(...deltas));
  }

  /** Active leases with a server-side observer granted on `machineId`: that machine's hold loop's work list (its processes, nobody else's). */
  async heldLeases(machineId: string): Promise<StoredLease[]> {
    const held = `state = 'active' AND observer_kind <> 'none' AND machine_id = ?`;
    const stamps = await this.db.all<{ id: string; stamp: string }>(`SELECT id, ${ROW_STAMP[this.db.dialect]} AS stamp FROM wait_leases WHERE ${held} ORDER BY id`, [machineId]);
    const unseen = stamps.filter(({ id, stamp }) => this.heldRows.get(id)?.stamp !== stamp).map(({ id }) => id);
    const reread = new Set<string>();
    if (unseen.length > 0) {
      // Rows written since the first read come back newer, with their own stamp; rows no longer held do not come back.
      const ids = HELD_IDS[this.db.dialect];
      const rows = await this.db.all<LeaseRow & { stamp: string }>(
        `SELECT ${HELD_LEASE_COLUMNS}, ${ROW_STAMP[this.db.dialect]} AS stamp FROM wait_leases WHERE ${ids.clause} AND ${held}`,
        [ids.param(unseen), machineId],
      );
      for (const { stamp, ...row } of rows) {
        this.heldRows.set(row.id, { stamp, stored: toStored(row), values: storedValues(row) });
        reread.add(row.id);
      }
    }
    const current = new Set(stamps.map(({ id }) => id));
    for (const id of this.heldRows.keys()) if (!current.has(id)) this.heldRows.delete(id);
    // In the work list: what was read again, and what was already known at the stamp just read.
    return stamps.flatMap(({ id, stamp }) => {
      const known = this.heldRows.get(id);
      return known && (reread.has(id) || known.stamp === stamp) ? [known.stored] : [];
    });
  }

  /**
   * After a batched write (committed): a held lease as written, at its new stamp. The record
   * written is what the row now holds (every mutable column is its values, and the rest did not
   * move: the write applied at the version it was decided from), so it is kept as it is, not
   * rebuilt from the values.
   */
  private rememberWritten(id: string, stamp: string, record: WaitLeaseRecord, values: readonly SqlValue[], version: number): void {
    const cached = this.heldRows.get(id);
    if (!cached) return;
    this.heldRows.set(id, { stamp, stored: { ...cached.stored, record, version }, values });
  }

  /**
   * The mutable values a held row holds, when `record` is that row as this store last read or
   * wrote it, so the next write compares with the row itself without serializing it again.
   */
  private heldValues(record: WaitLeaseRecord): readonly SqlValue[] | undefined {
    const cached = this.heldRows.get(record.id);
    return cached?.stored.record === record ? cached.values : undefined;
  }

  /** Active and degraded leases granted on `machineId` in `domain` (the ones its clock judgement can make UNKNOWN). */
  async liveLeasesInDomain(domain: ClockDomain, machineId: string): Promise<StoredLease[]> {
    const { clause, params } = domainClause(domain);
    const rows = await this.db.all<LeaseRow>(`${SELECT_LEASE} WHERE state IN ('active', 'degraded') AND ${clause} AND machine_id = ? ORDER BY id`, [
      ...params,
      machineId,
    ]);
    return rows.map(toStored);
  }

  /** Live leases of a machine (null: leases from before ownership was recorded). */
  async liveLeasesOfMachine(machineId: string | null): Promise<StoredLease[]> {
    const clause = machineId === null ? 'machine_id IS NULL' : 'machine_id = ?';
    const rows = await this.db.all<LeaseRow>(`${SELECT_LEASE} WHERE state <> 'ended' AND ${clause} ORDER BY id`, machineId === null ? [] : [machineId]);
    return rows.map(toStored);
  }

  /** Machines other than `self` that hold live leases: the ones whose silence matters. */
  async machinesWithLiveLeases(self: string): Promise<Array<string | null>> {
    const rows = await this.db.all<{ machine_id: string | null }>(
      `SELECT DISTINCT machine_id FROM wait_leases WHERE state <> 'ended' AND (machine_id IS NULL OR machine_id <> ?)`,
      [self],
    );
    return rows.map((row) => row.machine_id);
  }

  /**
   * Rows from before ownership was recorded become this machine's: on SQLite (one machine per
   * data dir) all of them, on PostgreSQL the leases granted on this boot.
   */
  async adoptUnowned(machineId: string, bootId: string | null): Promise<void> {
    if (this.db.dialect === 'sqlite') {
      await this.db.run('UPDATE panes SET machine_id = ? WHERE machine_id IS NULL', [machineId]);
      await this.db.run('UPDATE wait_leases SET machine_id = ? WHERE machine_id IS NULL', [machineId]);
    } else if (bootId !== null) {
      await this.db.run('UPDATE wait_leases SET machine_id = ? WHERE machine_id IS NULL AND clock_boot_id = ?', [machineId, bootId]);
    }
  }

  /**
   * Panes, sessions and leases from before ownership was recorded become this server's
   * human's: on SQLite all of them (one human per data dir), on PostgreSQL this machine's.
   * A pane whose name the human already has stays nobody's.
   */
  async adoptUnownedByHuman(machineId: string, humanId: string): Promise<void> {
    const ownMachine = this.db.dialect === 'sqlite' ? '' : ' AND machine_id = ?';
    const machine = this.db.dialect === 'sqlite' ? [] : [machineId];
    await this.db.run(
      `UPDATE panes SET human_id = ? WHERE human_id = ''${ownMachine} AND name NOT IN (SELECT name FROM panes WHERE human_id = ?)`,
      [humanId, ...machine, humanId],
    );
    await this.db.run(`UPDATE wait_leases SET human_id = ? WHERE (human_id IS NULL OR human_id = '')${ownMachine}`, [humanId, ...machine]);
    await this.db.run(`UPDATE pane_sessions SET human_id = ? WHERE (human_id IS NULL OR human_id = '')${ownMachine.replace('machine_id = ?', 'pane IN (SELECT name FROM panes WHERE human_id = ?)')}`, [
      humanId,
      ...(this.db.dialect === 'sqlite' ? [] : [humanId]),
    ]);
  }

  async ledger(filter: LedgerFilter): Promise<LedgerRow[]> {
    const { sql: where, params } = this.whereOwn({ job_type: filter.jobType, kind: filter.kind, end_reason: filter.endReason }, [], filter.since);
    const rows = await this.db.all<Omit<LedgerRow, 'lease_id'> & { id: string }>(
      `SELECT id, pane, job_ref, job_type, kind, declared_ttl_ms, granted_at, ended_at, end_reason, release_note, censoring, measured_duration_ms
       FROM wait_leases${where} ORDER BY granted_at DESC, id DESC LIMIT ${Math.floor(filter.limit)}`,
      params,
    );
    return rows.map((row) => ({
      lease_id: row.id,
      pane: row.pane,
      job_ref: row.job_ref,
      job_type: row.job_type,
      kind: row.kind,
      declared_ttl_ms: Number(row.declared_ttl_ms),
      granted_at: Number(row.granted_at),
      ended_at: row.ended_at === null ? null : Number(row.ended_at),
      end_reason: row.end_reason,
      release_note: row.release_note,
      censoring: row.censoring,
      measured_duration_ms: row.measured_duration_ms === null ? null : Number(row.measured_duration_ms),
    }));
  }

  /** Released, exactly-censored rows with a measured duration: all the TTL suggester may read (core ttlSuggest.ts). */
  async measuredDurations(filter: { kind?: string; since?: number }): Promise<MeasuredRow[]> {
    const { sql: where, params } = this.whereOwn({ kind: filter.kind }, ["end_reason = 'released'", "censoring = 'exact'", 'measured_duration_ms IS NOT NULL'], filter.since);
    const rows = await this.db.all<{ job_type: string; measured_duration_ms: number }>(`SELECT job_type, measured_duration_ms FROM wait_leases${where}`, params);
    return rows.map((row) => ({ job_type: row.job_type, end_reason: 'released', censoring: 'exact', measured_duration_ms: Number(row.measured_duration_ms) }));
  }

  // The persisted clock domain ----------------------------------------------------------

  async readClockDomain(host: string): Promise<ClockReading | undefined> {
    const row = await first<{ boot_id: string | null; counts_suspend: number | boolean; last_boot_ms: number; last_wall_ms: number }>(
      this.db,
      'SELECT boot_id, counts_suspend, last_boot_ms, last_wall_ms FROM lease_clock_domains WHERE host = ?',
      [host],
    );
    return (
      row && {
        bootMs: Number(row.last_boot_ms),
        wallMs: Number(row.last_wall_ms),
        domain: { bootId: row.boot_id, countsSuspend: Boolean(row.counts_suspend) },
      }
    );
  }

  async writeClockDomain(host: string, reading: ClockReading): Promise<void> {
    await this.db.run(
      `INSERT INTO lease_clock_domains (host, boot_id, counts_suspend, last_boot_ms, last_wall_ms, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (host) DO UPDATE SET boot_id = excluded.boot_id, counts_suspend = excluded.counts_suspend,
         last_boot_ms = excluded.last_boot_ms, last_wall_ms = excluded.last_wall_ms, updated_at = excluded.updated_at`,
      [host, reading.domain.bootId, reading.domain.countsSuspend, Math.max(0, Math.floor(reading.bootMs)), Math.floor(reading.wallMs), Math.floor(reading.wallMs)],
    );
  }
}
