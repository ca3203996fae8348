// Follows the lease server's log file (runtime dir server.log, written by whichever window or
// shell started the server) and hands complete lines to a sink. A cheap stat once a second.
import { closeSync, openSync, readSync, statSync } from 'node:fs';

export class LogTail {
  private offset = -1;
  private partial = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly path: string;
  private readonly onLine: (line: string) => void;

  constructor(path: string, onLine: (line: string) => void) {
    this.path = path;
    this.onLine = onLine;
  }

  /** Starts following; the first read shows up to `backlogBytes` of what is already there. */
  start(backlogBytes = 4096, intervalMs = 1000): void {
    if (this.timer) return;
    this.poll(backlogBytes);
    this.timer = setInterval(() => this.poll(0), intervalMs);
    this.timer.unref?.();
  }

  poll(backlogBytes = 0): void {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return; // not there yet
    }
    if (this.offset < 0) this.offset = Math.max(0, size - backlogBytes);
    if (size < this.offset) {
      this.offset = 0; // truncated or rotated
      this.partial = '';
    }
    if (size === this.offset) return;
    const length = Math.min(size - this.offset, 1 << 20);
    const buffer = Buffer.alloc(length);
    let fd: number | undefined;
    try {
      fd = openSync(this.path, 'r');
      const read = readSync(fd, buffer, 0, length, this.offset);
      this.offset += read;
      const text = this.partial + buffer.subarray(0, read).toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') this.onLine(line);
    } catch {
      // unreadable for a moment: try again on the next poll
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
