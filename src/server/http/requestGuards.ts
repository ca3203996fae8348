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
  const text = await readBodyText(req, limit);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new LeaseholdError('invalid_argument', `request body is not valid JSON: ${(error as Error).message}`, { field: 'body' });
  }
}

/**
 * The body as text (undefined when empty), read with plain listeners: an async iterator over
 * the request costs a stream wrapper and a promise per chunk, on every call.
 */
function readBodyText(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: unknown) => {
      req.off('data', onData).off('end', onEnd).off('error', done).off('close', onClose);
      if (error !== undefined) reject(error);
      else resolve(size === 0 ? undefined : (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => done();
    // Closed before its end: the client went away mid-body.
    const onClose = () => done(new Error('request closed before its body ended'));
    req.on('data', onData).on('end', onEnd).on('error', done).on('close', onClose);
  });
}

function tooLarge(limit: number): LeaseholdError {
  return new LeaseholdError('payload_too_large', `request body exceeds ${limit / 1024} KiB`, { field: 'body' });
}
