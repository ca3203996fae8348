// In-process change notifications. HTTP clients receive them as Server-Sent Events so views
// update without polling; the MCP layer listens for default-lease edits.
import { EventEmitter } from 'node:events';

export type ChangeEvent =
  | { type: 'endpoint.changed'; human_id: string; endpoint_id: string; change: 'vended' | 'edited' | 'revoked' }
  | { type: 'todo.changed'; todo_id: string; queue: string; change: 'created' | 'claimed' | 'heartbeat' | 'released' | 'completed' | 'reaped' | 'revoked' | 'requeued'; endpoint_id: string | null }
  | { type: 'pane.changed'; pane: string; change: string }
  | { type: 'lease.changed'; pane: string; lease_id: string; change: string };

export class ChangeBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(event: ChangeEvent): void {
    this.emitter.emit('change', event);
  }

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
