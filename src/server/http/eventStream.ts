// GET /api/v1/events: Server-Sent Events telling clients what changed, so views refresh
// without polling. Events are hints (ids and kinds); clients re-read what they show.
import type { ServerResponse } from 'node:http';
import type { HumanRecord } from '../claims/records.ts';
import type { ChangeBus, ChangeEvent } from '../events.ts';

const KEEPALIVE_MS = 15_000;

function visibleTo(human: HumanRecord, event: ChangeEvent): ChangeEvent | undefined {
  switch (event.type) {
    case 'endpoint.changed':
      return event.human_id === human.id ? event : undefined;
    case 'todo.changed':
      // Queues are shared; which endpoint acted is not (another human's is invisible).
      return { ...event, endpoint_id: null };
    case 'pane.changed':
    case 'lease.changed':
      // Panes and leases are their human's alone: another human hears nothing of them.
      return event.human_id === human.id ? event : undefined;
  }
}

export function openEventStream(res: ServerResponse, human: HumanRecord, bus: ChangeBus): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(`retry: 1000\n: connected\n\n`);
  let sequence = 0;
  const unsubscribe = bus.subscribe((event) => {
    const visible = visibleTo(human, event);
    if (!visible) return;
    res.write(`id: ${++sequence}\nevent: ${visible.type}\ndata: ${JSON.stringify(visible)}\n\n`);
  });
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  res.on('close', () => {
    clearInterval(keepalive);
    unsubscribe();
  });
}
