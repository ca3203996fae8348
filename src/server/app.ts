// The lease server's composition root: storage, services, maintenance loops, HTTP (REST,
// SSE, MCP) and runtime files, with one close() that undoes it all in reverse.
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../core/clock.ts';
import { hashToken } from './auth/tokens.ts';
import { ClaimService } from './claims/claimService.ts';
import { ClaimStore } from './claims/claimStore.ts';
import { Reaper } from './claims/reaper.ts';
import { SteadyClaimClock } from './clock/claimClock.ts';
import { DatabaseClock } from './db/databaseClock.ts';
import { openDb, type StorageConfig } from './db/open.ts';
import type { Db } from './db/sql.ts';
import { ChangeBus } from './events.ts';
import { WriteRateLimiter, type RateLimitOptions } from './http/rateLimit.ts';
import { createRequestListener } from './http/requestListener.ts';
import { InFlight } from './http/inFlight.ts';
import { Router } from './http/router.ts';
import { claimRoutes } from './http/routes/claimRoutes.ts';
import { McpGateway, type McpSessionLimits } from './mcp/mcpGateway.ts';
import { waitLeaseToolRegistrar } from './mcp/waitLeaseTools.ts';
import { shellExecutionRoutes, waitLeaseRoutes } from './http/routes/waitLeaseRoutes.ts';
import { hookEventRoutes } from './http/routes/hookEventRoutes.ts';
import { statusRoutes } from './http/routes/statusRoutes.ts';
import { deviceRoutes } from './http/routes/deviceRoutes.ts';
import { HookEventService } from './hooks/hookEventService.ts';
import { runtimeFiles } from '../runtime/paths.ts';
import { type LeaseClock, systemLeaseClock } from './clock/leaseClock.ts';
import { validateHardMaxTtlByJobType, validateHardMaxTtlMs, DEFAULT_HARD_MAX_TTL_MS } from '../core/waitLease/grant.ts';
import { DEFAULT_CHAIN_CAP_MS, DEFAULT_IDENTICAL_RENEWAL_LIMIT, validateChainCapMs, validateIdenticalRenewalLimit } from '../core/waitLease/fuses.ts';
import { ClockWatcher } from './waitLeases/clockWatcher.ts';
import { ExpirySweeper } from './waitLeases/expirySweeper.ts';
import { HoldLoop } from './waitLeases/holdLoop.ts';
import { InferenceObserver } from './waitLeases/inference.ts';
import type { ProcessLister, ProcessReader } from './waitLeases/observers.ts';
import { WaitLeaseService } from './waitLeases/waitLeaseService.ts';
import { WaitLeaseStore } from './waitLeases/waitLeaseStore.ts';
import { removeDiscovery, writeDiscovery } from '../runtime/discovery.ts';
import { InstanceLock } from './runtime/instanceLock.ts';
import { unsafeRuntimeDir } from '../runtime/trust.ts';
import { LeaseholdError } from '../core/errors.ts';
import { ensureLocalHuman } from './runtime/localHuman.ts';
import { LEASEHOLD_VERSION } from './version.ts';
import type { HumanRecord } from './claims/records.ts';
import { loadMachineIdentity, MachineRegistry } from './team/machineRegistry.ts';
import { ChangeRelay } from './team/changeRelay.ts';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const stderrLogger: Logger = {
  info: (message, fields) => process.stderr.write(`${new Date().toISOString()} info ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
  error: (message, fields) => process.stderr.write(`${new Date().toISOString()} error ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
};

export const silentLogger: Logger = { info: () => undefined, error: () => undefined };

/** How long a shutdown waits for requests in flight (a held-open stream would wait for ever). */
const SHUTDOWN_DRAIN_MS = 5_000;

export interface LeaseServerConfig {
  storage: StorageConfig;
  runtimeDir: string;
  /** 0 (default) picks a free port. The server binds 127.0.0.1 only. */
  port?: number;
  /** Claim-lease clock; defaults to claim time on the lease clock's boot clock (SQLite) or the database clock (PostgreSQL). */
  clock?: Clock;
  writeRateLimit?: RateLimitOptions;
  reaperBackstopMs?: number;
  /** The identity (human name) this server acts as: --identity / LEASEHOLD_IDENTITY. Default: this machine's last, else the OS user (SQLite) or user@host (PostgreSQL). */
  identity?: string;
  /** Write server.json and hold the data-dir lock (off only for in-process tests that share a dir on purpose). */
  singleInstance?: boolean;
  logger?: Logger;
  /** The wait-lease clock (boot time that counts suspend); defaults to the platform's best. Tests pass a ManualLeaseClock. */
  leaseClock?: LeaseClock;
  /** Hard max TTL of one wait-lease grant, ms (default 1 h). Bounds each grant, never the declared value. */
  hardMaxTtlMs?: number;
  /** Per-job-type hard max TTLs, ms by job_type; each may only tighten hardMaxTtlMs (a looser one is refused at start). */
  hardMaxTtlMsByJobType?: Record<string, number>;
  /** Chain cap: unattended authority per job-ref chain, renewals included, ms (default 4 h). */
  chainCapMs?: number;
  /** K: identical renewals in a row (same evidence, no progress) that escalate to a page (default 12). */
  identicalRenewalLimit?: number;
  /**
   * The inferred tier's observer (waitLeases/inference.ts): tick interval, TTL of each inferred
   * grant, and where Claude Code's session files are (null: not read). false: no inference.
   */
  inference?: false | { intervalMs?: number; ttlMs?: number; claudeSessionsDir?: string | null };
  /** Hold loop interval: how often held targets are re-verified (default 2 s). */
  holdIntervalMs?: number;
  /** Expiry sweeper backstop interval (default 2 s; a timer at the next deadline does the real work). */
  waitLeaseBackstopMs?: number;
  /** Clock continuity watcher tick (default 1 s). */
  clockTickMs?: number;
  /** Which persisted clock domain row this server uses (default: its machine id). */
  clockHost?: string;
  /** This server's machine id (default: made once and kept in the data dir on SQLite, the runtime dir on PostgreSQL). */
  machineId?: string;
  /** Team mode heartbeat interval (default 2 s). */
  machineBeatMs?: number;
  /** A machine whose heartbeat has not moved for this long is judged gone and its leases UNKNOWN (default 15 s). */
  machineSilentAfterMs?: number;
  /** Process reader for pid targets (tests inject failures); defaults to /proc or ps. */
  processReader?: ProcessReader;
  /** The process trees a held pid's progress marker sums (its descendants' CPU time); defaults to /proc's children files, else the whole table. */
  processLister?: ProcessLister;
  /** How often the Claude Code hook spool is replayed (default 2 s; also once at start). */
  hookReplayIntervalMs?: number;
  /** MCP session bounds: idle expiry and caps (defaults in DEFAULT_MCP_SESSION_LIMITS). */
  mcpSessions?: McpSessionLimits;
  /** false: the MCP SDK's transport answers every /mcp request, tools/call included (mcpGateway.ts; tests compare the two). */
  mcpDirectToolCalls?: boolean;
}

export interface LeaseServer {
  url: string;
  port: number;
  /** This machine's device token of the human (also in the runtime dir's token file). */
  token: string;
  human: HumanRecord;
  deviceId: string;
  /** Team mode: which identity this server acts as and how to choose another (null on SQLite). */
  identityNotice: string | null;
  schemaVersion: number;
  db: Db;
  bus: ChangeBus;
  claims: ClaimService;
  claimStore: ClaimStore;
  reaper: Reaper;
  mcp: McpGateway;
  waitLeases: WaitLeaseService;
  leaseClock: LeaseClock;
  expirySweeper: ExpirySweeper;
  clockWatcher: ClockWatcher;
  holdLoop: HoldLoop;
  /** The inferred tier's observer (undefined when config.inference is false). */
  inference: InferenceObserver | undefined;
  hookEvents: HookEventService;
  machines: MachineRegistry;
  close(): Promise<void>;
}

export async function startLeaseServer(config: LeaseServerConfig): Promise<LeaseServer> {
  const logger = config.logger ?? stderrLogger;
  const cleanups: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  };
  try {
    // Before anything is written there: server.json and the token must not land where another user can swap them.
    const unsafe = unsafeRuntimeDir(config.runtimeDir);
    if (unsafe) throw new LeaseholdError('forbidden', unsafe, { field: 'runtime_dir' });
    const lock = config.storage.kind === 'sqlite' && config.singleInstance !== false ? InstanceLock.acquire(config.storage.dataDir) : undefined;
    if (lock) cleanups.push(() => lock.release());

    const { db, schemaVersion } = await openDb(config.storage, (error, where) =>
      logger.error('storage error', { where, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
    cleanups.push(() => db.close());

    const leaseClock = config.leaseClock ?? systemLeaseClock();
    let clock = config.clock;
    if (!clock && config.storage.kind === 'postgres') {
      const databaseClock = await DatabaseClock.start(db);
      cleanups.push(() => databaseClock.stop());
      clock = databaseClock;
    }
    if (!clock) {
      // Embedded storage: claim expiry on the boot clock, so a wall-clock step extends no claim.
      const claimClock = await SteadyClaimClock.start(db, leaseClock, {
        onStep: (step, claimMs, wallMs) => logger.info('claim clock', { step, claim_ms: claimMs, wall_ms: wallMs }),
        onError: (error) => logger.error('claim clock could not be saved', { error: String(error) }),
      });
      cleanups.push(() => claimClock.stop());
      clock = claimClock;
    }

    const bus = new ChangeBus();
    const claimStore = new ClaimStore(db);
    const identity = config.machineId
      ? { id: config.machineId, label: hostname() }
      : loadMachineIdentity(runtimeFiles.machineId(config.storage.kind === 'sqlite' ? config.storage.dataDir : config.runtimeDir));
    const { human, token, deviceId, notice } = await ensureLocalHuman(claimStore, {
      runtimeDir: config.runtimeDir,
      clock,
      machine: identity,
      team: config.storage.kind === 'postgres',
      identity: config.identity,
    });
    if (notice) logger.info(notice);

    let baseUrl = '';
    const reaper = new Reaper({
      store: claimStore,
      clock,
      bus,
      backstopIntervalMs: config.reaperBackstopMs,
      onError: (error) => logger.error('reaper failed', { error: String(error) }),
    });
    const claims = new ClaimService({
      store: claimStore,
      clock,
      bus,
      mcpUrl: () => `${baseUrl}/mcp`,
      onLeaseGranted: (expiresAt) => reaper.noteExpiry(expiresAt),
    });
    const hardMaxTtlMs = validateHardMaxTtlMs(config.hardMaxTtlMs ?? DEFAULT_HARD_MAX_TTL_MS);
    const hardMaxTtlMsByJobType = validateHardMaxTtlByJobType(config.hardMaxTtlMsByJobType, hardMaxTtlMs);
    const chainCapMs = validateChainCapMs(config.chainCapMs ?? DEFAULT_CHAIN_CAP_MS);
    const identicalRenewalLimit = validateIdenticalRenewalLimit(config.identicalRenewalLimit ?? DEFAULT_IDENTICAL_RENEWAL_LIMIT);
    const waitLeaseStore = new WaitLeaseStore(db);
    let expirySweeper: ExpirySweeper | undefined;
    let holdLoop: HoldLoop | undefined;
    let waitLeaseService: WaitLeaseService | undefined;
    const machines = new MachineRegistry({
      db,
      identity,
      leaseClock,
      beatIntervalMs: config.machineBeatMs,
      silentAfterMs: config.machineSilentAfterMs,
      machinesWithLiveLeases: () => waitLeaseStore.machinesWithLiveLeases(identity.id),
      onSilent: async (machineId, explanation) => {
        const marked = (await waitLeaseService?.markMachineUnknown(machineId, explanation)) ?? 0;
        if (marked > 0) logger.info('machine silent: its leases are UNKNOWN', { machine: machineId, leases: marked });
      },
      onError: (error) => logger.error('machine heartbeat failed', { error: String(error) }),
    });
    await waitLeaseStore.adoptUnowned(identity.id, leaseClock.read().domain.bootId);
    await waitLeaseStore.adoptUnownedByHuman(identity.id, human.id);
    await machines.startup();
    const waitLeases = new WaitLeaseService({
      store: waitLeaseStore,
      clock: leaseClock,
      bus,
      hardMaxTtlMs,
      hardMaxTtlMsByJobType,
      chainCapMs,
      identicalRenewalLimit,
      readProcess: config.processReader,
      listProcesses: config.processLister,
      onDeadlineChanged: () => expirySweeper?.reschedule(),
      onHoldStarted: () => holdLoop?.kick(),
      machineId: identity.id,
      readingFor: (machineId) => machines.readingFor(machineId),
      machineLabel: (machineId) => machines.label(machineId),
    });
    waitLeaseService = waitLeases;
    expirySweeper = new ExpirySweeper({
      service: waitLeases,
      clock: leaseClock,
      backstopIntervalMs: config.waitLeaseBackstopMs,
      onError: (error) => logger.error('wait-lease sweeper failed', { error: String(error) }),
    });
    holdLoop = new HoldLoop({
      service: waitLeases,
      clock: leaseClock,
      intervalMs: config.holdIntervalMs,
      onError: (error) => logger.error('hold loop failed', { error: String(error) }),
    });
    const inference =
      config.inference === false
        ? undefined
        : new InferenceObserver({
            service: waitLeases,
            clock: leaseClock,
            intervalMs: config.inference?.intervalMs,
            ttlMs: config.inference?.ttlMs,
            claudeSessionsDir: config.inference?.claudeSessionsDir,
            onError: (error) => logger.error('inference observer failed', { error: String(error) }),
          });
    const clockWatcher = new ClockWatcher({
      service: waitLeases,
      clock: leaseClock,
      host: config.clockHost ?? identity.id,
      tickMs: config.clockTickMs,
      onJudgement: (judgement, marked) => logger.info('lease clock judgement', { kind: judgement.kind, explanation: judgement.explanation, leases_unknown: marked }),
      onError: (error) => logger.error('clock watcher failed', { error: String(error) }),
    });
    await clockWatcher.startup();

    let mcpGateway: McpGateway | undefined;
    if (config.storage.kind === 'postgres') {
      // Team mode: every server's changes reach this server's SSE clients and MCP sessions, and ours reach theirs.
      const relay = new ChangeRelay({
        url: config.storage.url,
        schema: config.storage.schema,
        db,
        bus,
        onError: (error, where) => logger.error(where, { error: String(error) }),
        onReconnect: () => {
          logger.info('change relay: listening again; MCP sessions re-read their endpoint (an edit made meanwhile through another server went unheard)');
          void mcpGateway?.resync();
        },
      });
      await relay.start();
      cleanups.push(() => relay.stop());
    }

    const mcp = new McpGateway({
      claims,
      store: claimStore,
      bus,
      version: LEASEHOLD_VERSION,
      registrars: [waitLeaseToolRegistrar(waitLeases)],
      limits: config.mcpSessions,
      directToolCalls: config.mcpDirectToolCalls,
      onError: (error) => logger.error('mcp failed', { error: String(error) }),
    });
    mcpGateway = mcp;
    cleanups.push(() => mcp.close());

    const hookEvents = new HookEventService({
      db,
      waitLeases,
      spoolHumanId: human.id,
      spoolDir: runtimeFiles.spool(config.runtimeDir),
      logger,
      replayIntervalMs: config.hookReplayIntervalMs,
    });
    const startedAt = Date.now();
    const health = () => ({ ok: true, version: LEASEHOLD_VERSION, pid: process.pid, storage: config.storage.kind, schema_version: schemaVersion, started_at: startedAt });
    const router = new Router().add(
      ...claimRoutes(claims),
      ...waitLeaseRoutes(waitLeases),
      ...shellExecutionRoutes(waitLeases, () => inference),
      ...hookEventRoutes(hookEvents),
      ...deviceRoutes(claimStore, clock),
      ...statusRoutes(() => {
        const { ok: _ok, ...server } = health();
        return { ...server, spool: hookEvents.spoolState.snapshot() };
      }),
    );
    // Device last-use is recorded at most once a minute per device: a write per request would cost more than it tells.
    const touched = new Map<string, number>();
    const authenticate = async (tokenHash: string) => {
      const found = await claimStore.authenticate(tokenHash);
      const now = Date.now();
      if (found?.device_id && now - (touched.get(found.device_id) ?? 0) >= 60_000) {
        touched.set(found.device_id, now);
        await claimStore.touchDevice(found.device_id, clock.nowMs());
      }
      return found;
    };
    const inFlight = new InFlight();
    const listener = createRequestListener({
      inFlight,
      router,
      bus,
      mcp,
      writeLimiter: new WriteRateLimiter(clock, config.writeRateLimit),
      authenticateHuman: (candidate) => authenticate(hashToken(candidate)),
      health,
      onError: (error, req) => logger.error('request failed', { method: req.method, url: req.url, error: error instanceof Error ? error.stack : String(error) }),
    });
    const server: Server = createServer(listener);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port ?? 0, '127.0.0.1', () => resolve());
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const port = (server.address() as AddressInfo).port;
    baseUrl = `http://127.0.0.1:${port}`;

    reaper.start();
    cleanups.push(() => reaper.stop());
    const sweeper = expirySweeper;
    const holder = holdLoop;
    sweeper.start();
    cleanups.push(() => sweeper.stop());
    clockWatcher.start();
    cleanups.push(() => clockWatcher.stop());
    holder.start();
    cleanups.push(() => holder.stop());
    if (inference) {
      inference.start();
      cleanups.push(() => inference.stop());
    }
    machines.start();
    cleanups.push(() => machines.stop());
    // Replays what hooks spooled while no server ran, then keeps replaying on its tick.
    hookEvents.start();
    cleanups.push(() => hookEvents.stop());

    if (config.singleInstance !== false) {
      lock?.publish(baseUrl);
      writeDiscovery(config.runtimeDir, {
        pid: process.pid,
        port,
        url: baseUrl,
        version: LEASEHOLD_VERSION,
        storage: config.storage.kind,
        data_dir: config.storage.kind === 'sqlite' ? config.storage.dataDir : null,
        started_at: startedAt,
      });
      cleanups.push(() => removeDiscovery(config.runtimeDir));
    }
    // Runs first on close: stop taking connections, refuse new requests with 503 and let the
    // ones in flight finish while the database and the loops are still up.
    cleanups.push(async () => {
      server.close();
      server.closeIdleConnections();
      await inFlight.drain(SHUTDOWN_DRAIN_MS);
    });
    logger.info('lease server listening', { url: baseUrl, storage: config.storage.kind, schema_version: schemaVersion });

    return {
      url: baseUrl,
      port,
      token,
      human,
      deviceId,
      identityNotice: notice ?? null,
      schemaVersion,
      db,
      bus,
      claims,
      claimStore,
      reaper,
      mcp,
      waitLeases,
      leaseClock,
      expirySweeper: sweeper,
      clockWatcher,
      holdLoop: holder,
      inference,
      hookEvents,
      machines,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
