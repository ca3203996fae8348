// REST routes of panes and wait-leases (human token), exactly as docs/api.md lists them.
// Bodies are parsed with the zod schemas of src/core/waitLease/wire.ts; the lease id in the
// path is the lease_id of the renew/release/ceiling requests.
import { z } from 'zod';
import { LeaseholdError } from '../../../core/errors.ts';
import {
  AcquireRequestSchema,
  BindSessionRequestSchema,
  HoldRequestSchema,
  LowerCeilingRequestSchema,
  RegisterPaneRequestSchema,
  ReleaseAllRequestSchema,
  ReleaseByOwnerRequestSchema,
  ReleaseRequestSchema,
  RenewRequestSchema,
  SessionIdSchema,
  SetDisplayRequestSchema,
  ShellExecutionReportSchema,
  TeardownCheckRequestSchema,
} from '../../../core/waitLease/wire.ts';
import { parseWire } from '../../../core/wire/validate.ts';
import type { WaitLeaseService } from '../../waitLeases/waitLeaseService.ts';
import type { InferenceObserver } from '../../waitLeases/inference.ts';
import { ok, type RequestContext, type Route, type RouteResult } from '../router.ts';

const listQuerySchema = z.strictObject({
  pane: z.string().min(1).optional(),
  state: z.enum(['active', 'degraded', 'unknown', 'ended']).optional(),
  session_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().positive().max(10_000).optional(),
});

const ledgerQuerySchema = z.strictObject({
  job_type: z.string().min(1).optional(),
  kind: z.string().min(1).optional(),
  end_reason: z.enum(['released', 'expired', 'orphaned']).optional(),
  since: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().positive().max(1000).optional(),
});

const suggestQuerySchema = z.strictObject({
  kind: z.enum(['declared', 'inferred']).optional(),
  since: z.coerce.number().int().nonnegative().optional(),
  percentile: z.coerce.number().int().min(50).max(100).optional(),
  min_samples: z.coerce.number().int().positive().max(1_000_000).optional(),
});

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new LeaseholdError('invalid_argument', 'the body must be a JSON object', { field: 'body' });
  return body as Record<string, unknown>;
}

/** The path names the lease; a lease_id in the body must agree with it. */
function withLeaseId(id: string, body: unknown): Record<string, unknown> {
  const object = objectBody(body);
  if (object.lease_id !== undefined && object.lease_id !== id) {
    throw new LeaseholdError('invalid_argument', `lease_id in the body (${String(object.lease_id)}) differs from the path (${id})`, { field: 'lease_id' });
  }
  return { ...object, lease_id: id };
}

/** Splits the optional session_id off a body whose schema is strict. */
function splitSession(body: unknown): { rest: Record<string, unknown>; sessionId: string | null } {
  const { session_id: sessionId, ...rest } = objectBody(body);
  return { rest, sessionId: sessionId === undefined || sessionId === null ? null : parseWire(SessionIdSchema, sessionId, 'session_id') };
}

type OwnedRoute = Omit<Route, 'handler'> & { handler: (context: RequestContext & { service: WaitLeaseService }) => Promise<RouteResult> };

export function waitLeaseRoutes(root: WaitLeaseService): Route[] {
  const routes: OwnedRoute[] = [
    // Panes and sessions ----------------------------------------------------------------
    {
      method: 'POST',
      path: '/api/v1/panes',
      write: true,
      handler: async ({ service, body }) => ok({ pane: await service.registerPane(parseWire(RegisterPaneRequestSchema, objectBody(body), 'body')) }, 201),
    },
    { method: 'GET', path: '/api/v1/panes', handler: async ({ service }) => ok({ panes: await service.listPanes() }) },
    { method: 'GET', path: '/api/v1/panes/:pane', handler: async ({ service, params }) => ok({ pane: await service.getPane(params.pane!) }) },
    {
      method: 'DELETE',
      path: '/api/v1/panes/:pane',
      noBody: true,
      write: true,
      handler: async ({ service, params }) => ok({ pane: await service.closePane(params.pane!) }),
    },
    {
      method: 'PUT',
      path: '/api/v1/panes/:pane/display',
      write: true,
      handler: async ({ service, params, body }) => ok({ pane: await service.setDisplayState(params.pane!, parseWire(SetDisplayRequestSchema, objectBody(body), 'body').state) }),
    },
    {
      method: 'POST',
      path: '/api/v1/panes/:pane/sessions',
      write: true,
      handler: async ({ service, params, body }) => ok(await service.bindSession(params.pane!, parseWire(BindSessionRequestSchema, objectBody(body), 'body').session_id)),
    },
    { method: 'GET', path: '/api/v1/panes/:pane/verdict', handler: async ({ service, params }) => ok(await service.verdict(params.pane!)) },
    { method: 'GET', path: '/api/v1/sessions/:session', handler: async ({ service, params }) => ok(await service.getSession(params.session!)) },
    {
      method: 'POST',
      path: '/api/v1/sessions/:session/release-all',
      write: true,
      handler: async ({ service, params, body }) => ok(await service.releaseSession(params.session!, parseWire(ReleaseAllRequestSchema, objectBody(body), 'body').reason)),
    },

    // Wait-leases -------------------------------------------------------------------------
    {
      method: 'POST',
      path: '/api/v1/wait-leases',
      write: true,
      handler: async ({ service, body }) => {
        const { rest, sessionId } = splitSession(body);
        return ok(await service.acquire(parseWire(AcquireRequestSchema, rest, 'body'), { sessionId }), 201);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/wait-leases/hold',
      write: true,
      handler: async ({ service, body }) => {
        const { rest, sessionId } = splitSession(body);
        return ok(await service.hold(parseWire(HoldRequestSchema, rest, 'body'), { sessionId, allowCommand: true }), 201);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/wait-leases',
      handler: async ({ service, url }) => {
        const query = parseWire(listQuerySchema, Object.fromEntries(url.searchParams), 'query');
        return ok({ leases: await service.listLeases({ pane: query.pane, state: query.state, sessionId: query.session_id, limit: query.limit }) });
      },
    },
    { method: 'GET', path: '/api/v1/wait-leases/:id', handler: async ({ service, params }) => ok({ lease: await service.getLease(params.id!) }) },
    {
      method: 'POST',
      path: '/api/v1/wait-leases/:id/renew',
      write: true,
      handler: async ({ service, params, body }) => ok(await service.renew(params.id!, parseWire(RenewRequestSchema, withLeaseId(params.id!, body), 'body'))),
    },
    {
      method: 'POST',
      path: '/api/v1/wait-leases/:id/release',
      write: true,
      handler: async ({ service, params, body }) => {
        const request = parseWire(ReleaseRequestSchema, withLeaseId(params.id!, body), 'body');
        return ok(await service.release(params.id!, request.token, request.reason));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/wait-leases/:id/ceiling',
      write: true,
      handler: async ({ service, params, body }) => {
        const request = parseWire(LowerCeilingRequestSchema, withLeaseId(params.id!, body), 'body');
        return ok(await service.lowerCeiling(params.id!, request.token, request.authorized_until));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/wait-leases/:id/release-by-owner',
      write: true,
      handler: async ({ service, params, body }) => ok(await service.releaseByOwner(params.id!, parseWire(ReleaseByOwnerRequestSchema, objectBody(body), 'body').reason)),
    },
    {
      method: 'POST',
      path: '/api/v1/wait-leases/:id/notice-consumed',
      noBody: true,
      write: true,
      handler: async ({ service, params }) => ok({ lease: await service.consumeNotice(params.id!) }),
    },

    // Consumers ---------------------------------------------------------------------------
    {
      method: 'POST',
      path: '/api/v1/teardown-check',
      handler: async ({ service, body }) => ok(await service.teardownCheck(parseWire(TeardownCheckRequestSchema, objectBody(body), 'body'))),
    },
    {
      method: 'GET',
      path: '/api/v1/ledger',
      handler: async ({ service, url }) => {
        const query = parseWire(ledgerQuerySchema, Object.fromEntries(url.searchParams), 'query');
        return ok({ rows: await service.ledger({ jobType: query.job_type, kind: query.kind, endReason: query.end_reason, since: query.since, limit: query.limit }) });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/ledger/suggestions',
      handler: async ({ service, url }) => {
        const query = parseWire(suggestQuerySchema, Object.fromEntries(url.searchParams), 'query');
        return ok({ suggestions: await service.suggestTtls({ kind: query.kind, since: query.since, percentile: query.percentile, minSamples: query.min_samples }), applied: false });
      },
    },
  ];
  // The one place REST reaches panes and leases: always as the requesting human, so another
  // human's pane, lease, session or ledger row is the same 404 (or absence) as a missing one.
  return routes.map((route) => ({ ...route, handler: (context) => route.handler({ ...context, service: root.forHuman(context.human.id) }) }));
}

/**
 * VS Code's shell-integration reports for a pane (the extension sends them), feeding the
 * inferred tier's observer. Without an observer (serve --no-inference) a report is refused
 * with a code, so the extension can stop sending them.
 */
export function shellExecutionRoutes(root: WaitLeaseService, inference: () => InferenceObserver | undefined): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/panes/:pane/shell-executions',
      write: true,
      handler: async ({ params, body, human }) => {
        const report = parseWire(ShellExecutionReportSchema, objectBody(body), 'body');
        if (report.event === 'start' && (report.command_line === undefined || report.command_line.trim() === '')) {
          throw new LeaseholdError('invalid_argument', 'command_line is required when a command starts', { field: 'command_line' });
        }
        const observer = inference();
        if (!observer) throw new LeaseholdError('conflict', 'this server infers no leases (started with --no-inference); shell-integration reports are not used', { field: 'pane' });
        // As the requesting human: another human's pane is the same 404 as a missing one.
        return ok(await observer.reportShellExecution(root.forHuman(human.id), human.id, params.pane!, report));
      },
    },
  ];
}
