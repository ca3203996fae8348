// One view of change across servers (team mode, issue 9): every change made through any
// server reaches the SSE clients and MCP sessions of every server on the database.
//
// PostgreSQL LISTEN/NOTIFY: each change this server makes is sent with pg_notify on a channel
// named after the schema (tests share one database with a schema each), and a dedicated
// listening connection hands every other server's notification to the local bus. Each
// notification names its origin, so a server ignores its own. The listening connection
// reconnects by itself (backing off to 5 s) when the database goes away; changes made while it
// is gone are not replayed (events are hints, clients re-read what they show), and on
// reconnect an `onReconnect` hook lets the server say so.
//
// Sending is coalesced: the changes of 20 milliseconds go out as one pg_notify (a JSON array,
// split below PostgreSQL's 8,000-byte payload limit), with at most one notify in flight. One
// notify per change cost a round trip and a transaction per claim transition: a quarter of the
// claim throughput on PostgreSQL.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ChangeBus, ChangeEvent } from '../events.ts';
import type { Db } from '../db/sql.ts';

const MAX_BACKOFF_MS = 5_000;
/** How long a change waits for others to go out with it: small beside the 1 s the cross-server view is held to (each notify is a transaction, and every server parses every other's). */
export const NOTIFY_LINGER_MS = 20;
/** PostgreSQL refuses a payload of 8,000 bytes or more; ours stay below with room to spare. */
export const MAX_PAYLOAD_BYTES = 7_500;

/** How every payload of one origin begins: a server skips its own notifications by it, unparsed. */
export function payloadPrefix(origin: string): string {
  return `{"origin":${JSON.stringify(origin)},`;
}

/** Notification payloads for these changes: JSON `{origin, events}`, each under maxBytes (one oversized event goes alone). */
export function notifyPayloads(origin: string, events: readonly string[], maxBytes = MAX_PAYLOAD_BYTES): string[] {
  const head = `${payloadPrefix(origin)}"events":[`;
  const payloads: string[] = [];
  let current: string[] = [];
  let size = head.length + 2;
  for (const event of events) {
    const bytes = Buffer.byteLength(event) + 1;
    if (current.length > 0 && size + bytes > maxBytes) {
      payloads.push(`${head}${current.join(',')}]}`);
      current = [];
      size = head.length + 2;
    }
    current.push(event);
    size += bytes;
  }
  if (current.length > 0) payloads.push(`${head}${current.join(',')}]}`);
  return payloads;
}

/** The changes a notification carries, and whose they are; the one-event form of earlier servers is read too. */
export function readNotifyPayload(payload: string): { origin: string; events: ChangeEvent[] } {
  const parsed = JSON.parse(payload) as { origin: string; events?: ChangeEvent[]; event?: ChangeEvent };
  return { origin: parsed.origin, events: parsed.events ?? (parsed.event ? [parsed.event] : []) };
}

/** The channel of one schema: identifiers are at most 63 bytes, so the schema is hashed. */
export function changeChannel(schema: string | undefined): string {
  return `leasehold_changes_${createHash('sha256').update(schema ?? 'public').digest('hex').slice(0, 16)}`;
}

export interface ChangeRelayOptions {
  url: string;
  schema?: string;
  db: Db;
  bus: ChangeBus;
  onError?: (error: unknown, where: string) => void;
  onReconnect?: () => void;
}

export class ChangeRelay {
  readonly origin = randomBytes(8).toString('hex');
  readonly channel: string;
  private readonly options: ChangeRelayOptions;
  private client: pg.Client | undefined;
  private stopped = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | undefined;
  private connectedOnce = false;
  /** Resolves once the first LISTEN is in place (start() waits for it). */
  private listening: Promise<void> | undefined;
  /** This server's changes not yet sent, as JSON. */
  private outbox: string[] = [];
  private lingering: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;

  constructor(options: ChangeRelayOptions) {
    this.options = options;
    this.channel = changeChannel(options.schema);
  }

  /** Listens (waits for the first connection) and relays this server's own changes from now on. */
  async start(): Promise<void> {
    this.options.bus.relayTo((event) => this.send(event));
    this.listening = this.connect();
    try {
      await this.listening;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.options.url });
    this.client = client;
    const lost = (error?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      if (error) this.options.onError?.(error, 'change relay: listening connection lost');
      this.retry = setTimeout(() => void this.connect().catch(() => undefined), this.backoffMs);
      this.retry.unref();
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    };
    client.on('error', (error) => lost(error));
    client.on('end', () => lost(new Error('connection ended')));
    // This server hears its own notifications too: they are told apart by their first bytes,
    // unparsed (every payload, the one-event form of earlier servers too, starts with its origin).
    const ownPrefix = payloadPrefix(this.origin);
    client.on('notification', (message) => {
      if (message.channel !== this.channel || !message.payload || message.payload.startsWith(ownPrefix)) return;
      try {
        for (const event of readNotifyPayload(message.payload).events) this.options.bus.deliver(event);
      } catch (error) {
        this.options.onError?.(error, 'change relay: unreadable notification');
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
      this.backoffMs = 100;
      if (this.connectedOnce) this.options.onReconnect?.();
      this.connectedOnce = true;
    } catch (error) {
      lost(error);
      if (!this.connectedOnce) throw error;
    }
  }

  /** Queues one change of this server's for the others; it leaves with the changes of the next few milliseconds. */
  private send(event: ChangeEvent): void {
    this.outbox.push(JSON.stringify(event));
    if (!this.lingering && !this.sending) {
      this.lingering = setTimeout(() => void this.flush(), NOTIFY_LINGER_MS);
    }
  }

  /** Sends what is queued, one notify at a time; a failure is logged, never thrown (the changes themselves are committed). */
  private flush(): Promise<void> {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.sending || this.outbox.length === 0) return this.sending ?? Promise.resolve();
    const events = this.outbox;
    this.outbox = [];
    this.sending = (async () => {
      for (const payload of notifyPayloads(this.origin, events)) {
        await this.options.db
          .run('SELECT pg_notify(?, ?)', [this.channel, payload])
          .catch((error: unknown) => this.options.onError?.(error, 'change relay: notify failed'));
      }
    })().finally(() => {
      this.sending = undefined;
      // What came in meanwhile waited long enough: it goes now.
      if (this.outbox.length > 0 && !this.stopped) void this.flush();
    });
    return this.sending;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.options.bus.relayTo(undefined);
    // The last changes still go out (the database closes after the relay).
    await this.sending;
    await this.flush();
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
