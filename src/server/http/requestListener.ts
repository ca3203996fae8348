// One request's path through the server: guards, routing, auth, write budget, body, handler,
// and the shared error envelope { error: { code, message, field? } }.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { LeaseholdError } from '../../core/errors.ts';
import type { AuthenticatedHuman } from '../claims/records.ts';
import type { ChangeBus } from '../events.ts';
import type { McpGateway } from '../mcp/mcpGateway.ts';
import { openEventStream } from './eventStream.ts';
import type { WriteRateLimiter } from './rateLimit.ts';
import { checkHostAndOrigin, readJsonBody } from './requestGuards.ts';
import type { Router } from './router.ts';
import type { InFlight } from './inFlight.ts';

export interface RequestListenerOptions {
  router: Router;
  bus: ChangeBus;
  mcp: McpGateway;
  writeLimiter: WriteRateLimiter;
  authenticateHuman: (token: string) => Promise<AuthenticatedHuman | undefined>;
  health: () => unknown;
  onError: (error: unknown, req: IncomingMessage) => void;
  /** Requests in flight; while it drains for shutdown, new requests are refused with 503. */
  inFlight?: InFlight;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
}

/**
 * One rule for every route: a body, when sent, is a JSON object (every request shape is one);
 * a route that takes no body accepts none or `{}`. So `[]`, `null` or `"x"` are refused, never
 * silently read as "no options".
 */
function checkBodyShape(body: unknown, noBody: boolean, route: string): void {
  if (body === undefined) return;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new LeaseholdError('invalid_argument', `body: must be a JSON object${noBody ? ` or absent (${route} takes no body)` : ''}`, { field: 'body' });
  }
  const keys = Object.keys(body);
  if (noBody && keys.length > 0) throw new LeaseholdError('invalid_argument', `${route} takes no body; refused key(s) ${keys.join(', ')}`, { field: keys[0] });
}

export function createRequestListener(options: RequestListenerOptions): RequestListener {
  const { router } = options;

  async function authenticate(req: IncomingMessage): Promise<AuthenticatedHuman> {
    const token = bearerToken(req);
    if (!token) throw new LeaseholdError('unauthenticated', 'a bearer token is required (Authorization: Bearer …)', { field: 'Authorization' });
    const human = await options.authenticateHuman(token);
    if (!human) throw new LeaseholdError('unauthenticated', 'the bearer token is not valid for this server', { field: 'Authorization' });
    return human;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    checkHostAndOrigin(req);
    const method = req.method ?? 'GET';
    // Every MCP call asks for exactly /mcp: no URL object for it (the other routes need one).
    const url = req.url === '/mcp' ? undefined : new URL(req.url ?? '/', 'http://127.0.0.1');

    if (!url || url.pathname === '/mcp') {
      const body = method === 'POST' ? await readJsonBody(req) : undefined;
      await options.mcp.handle(req, res, body);
      return;
    }
    if (url.pathname === '/api/v1/health' && method === 'GET') {
      sendJson(res, 200, options.health());
      return;
    }
    if (url.pathname === '/api/v1/events' && method === 'GET') {
      openEventStream(res, await authenticate(req), options.bus);
      return;
    }

    const matched = router.match(method, url.pathname);
    if (!matched) throw new LeaseholdError('not_found', `no route ${method} ${url.pathname}`);
    if ('allowed' in matched) {
      res.setHeader('allow', matched.allowed.join(', '));
      sendJson(res, 405, { error: { code: 'method_not_allowed', message: `${method} is not allowed on ${url.pathname}; use ${matched.allowed.join(' or ')}` } });
      return;
    }
    const human = await authenticate(req);
    if (matched.route.write) {
      const retryAfter = options.writeLimiter.take(`${human.id}/${matched.route.writeBudget ?? 'writes'}`);
      if (retryAfter > 0) {
        res.setHeader('retry-after', String(retryAfter));
        throw new LeaseholdError('rate_limited', `too many writes; retry in ${retryAfter}s`, { details: { retry_after_seconds: retryAfter } });
      }
    }
    const body = method === 'GET' ? undefined : await readJsonBody(req);
    checkBodyShape(body, matched.route.noBody === true, `${method} ${url.pathname}`);
    const result = await matched.route.handler({ req, res, url, params: matched.params, body, human });
    if ('handled' in result) return;
    sendJson(res, result.status, result.body);
  }

  return (req, res) => {
    const { inFlight } = options;
    if (inFlight && !inFlight.begin()) {
      sendJson(res, 503, { error: { code: 'unavailable', message: 'the lease server is shutting down; retry in a moment' } }, { connection: 'close', 'retry-after': '1' });
      req.resume();
      return;
    }
    handle(req, res)
      .catch((error: unknown) => {
      if (error instanceof LeaseholdError) {
        sendJson(res, error.status, error.toBody());
        // Drain a refused upload so the client reads our answer instead of a reset.
        if (!req.complete) req.resume();
        return;
      }
      options.onError(error, req);
      sendJson(res, 500, { error: { code: 'internal', message: 'internal error; see the server log' } });
      })
      .finally(() => inFlight?.end());
  };
}
