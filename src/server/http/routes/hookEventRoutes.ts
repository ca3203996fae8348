// POST /api/v1/hook-events (human token): one Claude Code hook invocation's ops, applied in
// order and once per id (docs/api.md, "Claude Code hook events").
import type { HookEventService } from '../../hooks/hookEventService.ts';
import { ok, type Route } from '../router.ts';

export function hookEventRoutes(hookEvents: HookEventService): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/hook-events',
      write: true,
      writeBudget: 'hook_events',
      handler: async ({ body, human }) => ok(await hookEvents.submit(body ?? {}, human.id)),
    },
  ];
}
