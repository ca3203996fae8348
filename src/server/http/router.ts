// A route table: method + path pattern (":name" segments) → handler. Small on purpose; the
// REST surface is a few dozen routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HumanRecord } from '../claims/records.ts';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  human: HumanRecord;
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
        params[name] = decodeURIComponent(found[index + 1]!);
      });
      return { route, params };
    }
    return allowed.length ? { allowed } : undefined;
  }
}

export function ok(body: unknown, status = 200): RouteResult {
  return { status, body };
}
