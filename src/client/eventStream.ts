// Server-Sent Events of GET /api/v1/events: a parser (pure) and the stream reader behind
// LeaseholdClient.openEventStream. Events are hints; the caller re-reads what it shows.
import { request } from 'undici';

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** Incremental text/event-stream parser: feed chunks, get complete events. */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | undefined;

  push(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\n|\r/)) >= 0) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.buffer = this.buffer.slice(newline + width);
      if (line === '') {
        if (this.data.length > 0 || this.event !== '') out.push({ event: this.event || 'message', data: this.data.join('\n'), ...(this.id !== undefined ? { id: this.id } : {}) });
        this.event = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.event = value;
      else if (field === 'data') this.data.push(value);
      else if (field === 'id') this.id = value;
    }
    return out;
  }
}

export interface EventStreamHandle {
  close(): void;
}

export interface EventStreamHandlers {
  onOpen?: () => void;
  onEvent: (event: SseEvent) => void;
  onEnd: (reason: string) => void;
}

/** Opens the stream; `onEvent` per event, `onEnd` once (error or close) unless closed by us. */
export function openEventStream(baseUrl: string, token: string | undefined, handlers: EventStreamHandlers): EventStreamHandle {
  const controller = new AbortController();
  let closed = false;
  let ended = false;
  const end = (reason: string) => {
    if (closed || ended) return;
    ended = true;
    handlers.onEnd(reason);
  };
  void (async () => {
    try {
      const response = await request(`${baseUrl}/api/v1/events`, {
        method: 'GET',
        headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal: controller.signal,
        headersTimeout: 10_000,
        bodyTimeout: 0,
      });
      if (response.statusCode !== 200) {
        await response.body.text().catch(() => '');
        end(`event stream answered HTTP ${response.statusCode}`);
        return;
      }
      handlers.onOpen?.();
      const parser = new SseParser();
      response.body.setEncoding('utf8');
      for await (const chunk of response.body) {
        for (const event of parser.push(chunk as string)) handlers.onEvent(event);
      }
      end('event stream closed by the server');
    } catch (error) {
      end(`event stream failed: ${(error as Error).message}`);
    }
  })();
  return {
    close() {
      closed = true;
      controller.abort();
    },
  };
}
