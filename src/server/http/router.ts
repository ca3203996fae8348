// A route table: method + path pattern (":name" segments) → handler. Small on purpose; the
// REST surface is a few dozen routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthenticatedHuman } from '../claims/records.ts';
import { LeaseholdError } from '../../core/errors.ts';
import { refuseNul } from '../../core/wire/validate.ts';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  human: AuthenticatedHuman;
}

export type RouteResult = { status: number; body: unknown } | { handled: true };
export type RouteHandler = (context: RequestContext) => Promise<RouteResult>;

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  /** Writes count against the per-human write budget. */
  write?: boolean;
  /** Which of the human's budgets (default "writes"): bursts of hook events must not starve their own edits. */
  writeBudget?: string;
  /** The route takes no body: none, or `{}`, and anything else is refused (requestListener.ts). */
  noBody?: true;
  handler: RouteHandler;
}

interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(...routes: Route[]): this {
    for (const route of routes) {
      const names: string[] = [];
      const source = route.path
        .split('/')
        .map((segment) => {
          if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(segment.slice(1));
          return '([^/]+)';
        })
        .join('/');
      this.routes.push({ ...route, pattern: new RegExp(`^${source}$`), names });
    }
    return this;
  }

  /** The matching route, or which methods the path allows (for 405), or nothing. */
  match(method: string, pathname: string): { route: CompiledRoute; params: Record<string, string> } | { allowed: string[] } | undefined {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const found = route.pattern.exec(pathname);
      if (!found) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, index) => {
        params[name] = decodeSegment(found[index + 1]!, name);
      });
      return { route, params };
    }
    return allowed.length ? { allowed } : undefined;
  }
}

/** A path parameter, refused (400, naming it) when its percent-escapes are malformed or it holds U+0000. */
function decodeSegment(raw: string, name: string): string {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw new LeaseholdError('invalid_argument', `${name}: "${raw}" is not valid percent-encoding (each % must start an escape of UTF-8 bytes, e.g. %20)`, { field: name });
  }
  refuseNul(value, name);
  return value;
}

export function ok(body: unknown, status = 200): RouteResult {
  return { status, body };
}
