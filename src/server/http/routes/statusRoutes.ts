// GET /api/v1/status (human token): the server's health and the hook delivery spool's state
// (pending, quarantined, last replay, last error), for `leasehold status` and the extension.
import type { ServerStatus } from '../../../core/wire/status.ts';
import { ok, type Route } from '../router.ts';

export function statusRoutes(status: () => ServerStatus): Route[] {
  return [{ method: 'GET', path: '/api/v1/status', handler: async () => ok(status()) }];
}
