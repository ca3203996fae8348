// Change notifications. HTTP clients receive them as Server-Sent Events so views update
// without polling; the MCP layer listens for default-lease edits. In team mode every change
// made here is also relayed to every other server on the database (team/changeRelay.ts), and
// theirs arrive here through deliver(), so each server's clients hear of every change.
import { EventEmitter } from 'node:events';

export type ChangeEvent =
  | { type: 'endpoint.changed'; human_id: string; endpoint_id: string; change: 'vended' | 'edited' | 'revoked' }
  | { type: 'todo.changed'; todo_id: string; queue: string; change: 'created' | 'claimed' | 'heartbeat' | 'released' | 'completed' | 'reaped' | 'revoked' | 'requeued'; endpoint_id: string | null }
  // human_id: whose pane or lease (only they hear of it); null for rows from before ownership.
  | { type: 'pane.changed'; human_id: string | null; pane: string; change: string }
  | { type: 'lease.changed'; human_id: string | null; pane: string; lease_id: string; change: string };

export class ChangeBus {
  private readonly emitter = new EventEmitter();
  private relay: ((event: ChangeEvent) => void) | undefined;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** A change made on this server: heard here and relayed to the other servers. */
  publish(event: ChangeEvent): void {
    this.emitter.emit('change', event);
    this.relay?.(event);
  }

  /** A change another server made: heard here only (never relayed back). */
  deliver(event: ChangeEvent): void {
    this.emitter.emit('change', event);
  }

  /** Where this server's own changes go besides its listeners (team mode). */
  relayTo(relay: ((event: ChangeEvent) => void) | undefined): void {
    this.relay = relay;
  }

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
