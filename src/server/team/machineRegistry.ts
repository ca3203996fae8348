// Team mode: which machine owns what, and whether it is still there.
//
// Every lease server is a machine: an id kept in a file of its own (the data dir on SQLite,
// the runtime dir on PostgreSQL) plus the boot id of its lease clock. It owns the panes and
// wait-leases it grants: only its hold loop observes their targets (its processes), only its
// sweeper and clock watcher judge their clock (its boot clock). Every other server only reads.
//
// Each server writes a heartbeat row (machines) every beat: its lease-clock reading, the
// database clock (last_seen_ms) and a counter (beat_seq). Every server reads all rows each
// beat and
//  - projects another machine's lease clock for reads: its last boot reading plus the time
//    since, taken as the larger of the database-clock difference and this server's own
//    monotonic time since it first saw that beat. Neither is moved back by a wall-clock step
//    here, and the projection only runs ahead of the owner by a beat or so (reads of another
//    machine's lease may say "expired" a beat early, never late);
//  - judges silence on its own monotonic clock: a machine whose counter has not moved for
//    silentAfterMs is gone (server killed, machine down, cut off from the database). Its
//    active and degraded leases become UNKNOWN (never "waiting" on nobody's word), and
//    once their time is up on the projected clock they end as expired.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { ClockReading } from '../../core/waitLease/clockReading.ts';
import { writePrivateFile } from '../../runtime/discovery.ts';
import type { LeaseClock } from '../clock/leaseClock.ts';
import type { Db } from '../db/sql.ts';

export const DEFAULT_MACHINE_BEAT_MS = 2_000;
export const DEFAULT_MACHINE_SILENT_AFTER_MS = 15_000;

export interface MachineIdentity {
  id: string;
  label: string;
}

const MACHINE_ID_PATTERN = /^mc_[A-Za-z0-9]{8,64}$/;

/** This install's machine id: read from `file`, or made once and kept there (0600). */
export function loadMachineIdentity(file: string, label = hostname()): MachineIdentity {
  try {
    const saved = readFileSync(file, 'utf8').trim();
    if (MACHINE_ID_PATTERN.test(saved)) return { id: saved, label };
  } catch {
    // first start: make one
  }
  const id = `mc_${randomBytes(12).toString('hex')}`;
  writePrivateFile(file, `${id}\n`);
  return { id, label };
}

interface MachineRow {
  id: string;
  label: string;
  boot_id: string | null;
  counts_suspend: number | boolean;
  last_boot_ms: number;
  last_seen_ms: number;
  beat_seq: number;
  now_ms?: number;
}

interface Seen {
  row: MachineRow;
  /** This server's monotonic time when it first saw row.beat_seq. */
  seenAtMono: number;
}

export interface MachineRegistryOptions {
  db: Db;
  identity: MachineIdentity;
  leaseClock: LeaseClock;
  beatIntervalMs?: number;
  silentAfterMs?: number;
  /** A machine went silent (null: leases from before ownership was recorded). */
  onSilent?: (machineId: string | null, explanation: string) => Promise<void>;
  /** Machines other than this one that hold live leases. */
  machinesWithLiveLeases?: () => Promise<Array<string | null>>;
  onError?: (error: unknown) => void;
  /** Monotonic milliseconds (tests move it by hand). */
  monotonicMs?: () => number;
}

const DB_NOW_PG = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

export class MachineRegistry {
  readonly identity: MachineIdentity;
  private readonly options: MachineRegistryOptions;
  private readonly seen = new Map<string, Seen>();
  private readonly mono: () => number;
  private readonly startedAtMono: number;
  /** Database clock minus Date.now(), as of the last poll (PostgreSQL; 0 on SQLite). */
  private dbOffsetMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(options: MachineRegistryOptions) {
    this.options = options;
    this.identity = options.identity;
    this.mono = options.monotonicMs ?? (() => performance.now());
    this.startedAtMono = this.mono();
  }

  get silentAfterMs(): number {
    return this.options.silentAfterMs ?? DEFAULT_MACHINE_SILENT_AFTER_MS;
  }

  /** Beat once and read every machine: run before the server serves. */
  async startup(): Promise<void> {
    await this.beat();
    await this.poll();
  }

  private dbNowMs(): number {
    return Date.now() + this.dbOffsetMs;
  }

  private async beat(): Promise<void> {
    const { db, identity, leaseClock } = this.options;
    const reading = leaseClock.read();
    const postgres = db.dialect === 'postgres';
    const seen = postgres ? DB_NOW_PG : '?';
    const params = [identity.id, identity.label, reading.domain.bootId, reading.domain.countsSuspend, Math.max(0, Math.floor(reading.bootMs)), Math.floor(reading.wallMs)];
    const nowParams = postgres ? [] : [Date.now(), Date.now()];
    await db.run(
      `INSERT INTO machines (id, label, boot_id, counts_suspend, last_boot_ms, last_wall_ms, last_seen_ms, beat_seq, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ${seen}, 1, ${seen})
       ON CONFLICT (id) DO UPDATE SET label = excluded.label, boot_id = excluded.boot_id, counts_suspend = excluded.counts_suspend,
         last_boot_ms = excluded.last_boot_ms, last_wall_ms = excluded.last_wall_ms, last_seen_ms = excluded.last_seen_ms,
         beat_seq = machines.beat_seq + 1`,
      [...params, ...nowParams],
    );
  }

  private async poll(): Promise<void> {
    const { db } = this.options;
    const postgres = db.dialect === 'postgres';
    const before = Date.now();
    const rows = await db.all<MachineRow>(
      `SELECT id, label, boot_id, counts_suspend, last_boot_ms, last_seen_ms, beat_seq${postgres ? `, ${DB_NOW_PG} AS now_ms` : ''} FROM machines`,
    );
    const after = Date.now();
    if (postgres && rows[0]?.now_ms !== undefined) this.dbOffsetMs = Number(rows[0].now_ms) - Math.round((before + after) / 2);
    const now = this.mono();
    for (const raw of rows) {
      const row: MachineRow = { ...raw, last_boot_ms: Number(raw.last_boot_ms), last_seen_ms: Number(raw.last_seen_ms), beat_seq: Number(raw.beat_seq) };
      const previous = this.seen.get(row.id);
      if (!previous || previous.row.beat_seq !== row.beat_seq || previous.row.boot_id !== row.boot_id) this.seen.set(row.id, { row, seenAtMono: now });
    }
  }

  /** A label for messages: "laptop (mc_…)". */
  label(machineId: string | null): string {
    if (machineId === null) return 'an unrecorded machine';
    const row = this.seen.get(machineId)?.row;
    return row ? `${row.label} (${machineId})` : machineId;
  }

  /** How long (ms) a machine has been silent as judged here; 0 while it beats. */
  silentForMs(machineId: string | null): number {
    if (machineId === this.identity.id) return 0;
    const seen = machineId === null ? undefined : this.seen.get(machineId);
    const since = seen ? seen.seenAtMono : this.startedAtMono;
    return Math.max(0, this.mono() - since);
  }

  isSilent(machineId: string | null): boolean {
    return this.silentForMs(machineId) >= this.silentAfterMs;
  }

  /**
   * Another machine's lease clock as read from here (see the header). A machine never seen
   * gets a domain of its own that no lease has, so its leases read as UNKNOWN.
   */
  readingFor(machineId: string | null): ClockReading {
    const own = this.options.leaseClock.read();
    if (machineId === this.identity.id) return own;
    const seen = machineId === null ? undefined : this.seen.get(machineId);
    if (!seen) return { bootMs: 0, wallMs: own.wallMs, domain: { bootId: `unseen-machine:${machineId ?? 'unrecorded'}`, countsSuspend: false } };
    const elapsed = Math.max(0, this.dbNowMs() - seen.row.last_seen_ms, this.mono() - seen.seenAtMono);
    return {
      bootMs: seen.row.last_boot_ms + Math.floor(elapsed),
      wallMs: own.wallMs,
      domain: { bootId: seen.row.boot_id, countsSuspend: Boolean(seen.row.counts_suspend) },
    };
  }

  /** One beat: write ours, read theirs, and hand every silent machine with live leases to onSilent. */
  async runOnce(): Promise<void> {
    await this.beat();
    await this.poll();
    const owners = (await this.options.machinesWithLiveLeases?.()) ?? [];
    for (const machineId of owners) {
      if (machineId === this.identity.id || !this.isSilent(machineId)) continue;
      const seconds = Math.round(this.silentForMs(machineId) / 1000);
      const explanation =
        machineId === null
          ? 'granted before team mode recorded which machine holds it, and no machine adopted it; nobody can verify it'
          : `machine ${this.label(machineId)} stopped answering: no heartbeat for ${seconds}s (its server stopped or lost the database); nobody can verify this lease`;
      await this.options.onSilent?.(machineId, explanation);
    }
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.beatIntervalMs ?? DEFAULT_MACHINE_BEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
