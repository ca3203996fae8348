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
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ChangeBus, ChangeEvent } from '../events.ts';
import type { Db } from '../db/sql.ts';

const MAX_BACKOFF_MS = 5_000;

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
    client.on('notification', (message) => {
      if (message.channel !== this.channel || !message.payload) return;
      try {
        const { origin, event } = JSON.parse(message.payload) as { origin: string; event: ChangeEvent };
        if (origin !== this.origin) this.options.bus.deliver(event);
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

  /** Sends one change of this server's to the others; a failure is logged, never thrown (the change itself is committed). */
  private send(event: ChangeEvent): void {
    const payload = JSON.stringify({ origin: this.origin, event });
    this.options.db.run('SELECT pg_notify(?, ?)', [this.channel, payload]).catch((error: unknown) => this.options.onError?.(error, 'change relay: notify failed'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.options.bus.relayTo(undefined);
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
