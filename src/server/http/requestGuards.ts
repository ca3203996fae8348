// What every request must pass before routing: a loopback Host (DNS-rebinding defence), a
// loopback or absent Origin (no web page may drive the API), and a bounded JSON body.
import type { IncomingMessage } from 'node:http';
import { LeaseholdError } from '../../core/errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  return hostHeader.split(':')[0]!;
}

export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  return LOOPBACK_HOSTNAMES.has(hostnameOf(hostHeader.toLowerCase()));
}

export function checkHostAndOrigin(req: IncomingMessage): void {
  if (!isLoopbackHost(req.headers.host)) {
    throw new LeaseholdError('forbidden', `Host "${req.headers.host ?? ''}" is not a loopback address; the lease server answers only 127.0.0.1/localhost`, {
      field: 'Host',
    });
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = '';
    }
    if (!isLoopbackHost(originHost)) {
      throw new LeaseholdError('forbidden', `Origin "${origin}" is not allowed; only loopback origins may call the lease server`, {
        field: 'Origin',
      });
    }
  } else if (origin === 'null') {
    throw new LeaseholdError('forbidden', 'Origin "null" is not allowed', { field: 'Origin' });
  }
}

/** Reads the body, refusing more than MAX_BODY_BYTES with 413, and parses JSON if present. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new LeaseholdError('invalid_argument', `request body is not valid JSON: ${(error as Error).message}`, { field: 'body' });
  }
}

function tooLarge(limit: number): LeaseholdError {
  return new LeaseholdError('payload_too_large', `request body exceeds ${limit / 1024} KiB`, { field: 'body' });
}
