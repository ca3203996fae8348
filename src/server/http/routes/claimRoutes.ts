// REST routes of the claim-lease half (human token).
import { z } from 'zod';
import { LeaseholdError } from '../../../core/errors.ts';
import {
  createTodoRequestSchema,
  patchEndpointRequestSchema,
  todoStateSchema,
  vendEndpointRequestSchema,
} from '../../../core/wire/claims.ts';
import { parseWire } from '../../../core/wire/validate.ts';
import type { ClaimService } from '../../claims/claimService.ts';
import { ok, type Route } from '../router.ts';

const todoListQuerySchema = z
  .object({
    queue: z.string().optional(),
    state: todoStateSchema.optional(),
    mine: z.enum(['true', 'false']).optional(),
  })
  .strict();

export function claimRoutes(claims: ClaimService): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/endpoints',
      write: true,
      handler: async ({ human, body }) =>
        ok(await claims.vendEndpoint(human, parseWire(vendEndpointRequestSchema, body ?? {}, 'body')), 201),
    },
    {
      method: 'GET',
      path: '/api/v1/endpoints',
      handler: async ({ human }) => ok({ endpoints: await claims.listEndpoints(human) }),
    },
    {
      method: 'GET',
      path: '/api/v1/endpoints/:ref',
      handler: async ({ human, params }) => ok({ endpoint: await claims.getEndpoint(human, params.ref!) }),
    },
    {
      method: 'PATCH',
      path: '/api/v1/endpoints/:ref',
      write: true,
      handler: async ({ human, params, body }) => {
        // Reach first: another human's endpoint is 404 whatever the body says.
        await claims.ownEndpoint(human, params.ref!);
        if (body === undefined || body === null || typeof body !== 'object' || !('default_lease_ttl_seconds' in body)) {
          throw new LeaseholdError('invalid_argument', 'default_lease_ttl_seconds is required (null resets to the server default)', {
            field: 'default_lease_ttl_seconds',
          });
        }
        const patch = parseWire(patchEndpointRequestSchema, body, 'body');
        return ok({ endpoint: await claims.editEndpoint(human, params.ref!, patch) });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/endpoints/:ref/revoke',
      noBody: true,
      write: true,
      handler: async ({ human, params }) => ok({ endpoint: await claims.revokeEndpoint(human, params.ref!) }),
    },
    {
      method: 'GET',
      path: '/api/v1/endpoints/:ref/claims',
      handler: async ({ human, params }) => {
        const endpoint = await claims.ownEndpoint(human, params.ref!);
        const todos = await claims.listTodos(human, { state: 'claimed', mine: true });
        return ok({ claims: todos.filter((todo) => todo.holder?.endpoint_id === endpoint.id) });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/todos',
      write: true,
      handler: async ({ human, body }) => ok({ todo: await claims.createTodo(human, parseWire(createTodoRequestSchema, body ?? {}, 'body')) }, 201),
    },
    {
      method: 'POST',
      path: '/api/v1/todos/:id/requeue',
      write: true,
      handler: async ({ human, params }) => ok({ todo: await claims.requeueTodo(human, params.id!) }),
    },
    {
      method: 'GET',
      path: '/api/v1/todos',
      handler: async ({ human, url }) => {
        const query = parseWire(todoListQuerySchema, Object.fromEntries(url.searchParams), 'query');
        return ok({ todos: await claims.listTodos(human, { queue: query.queue, state: query.state, mine: query.mine === 'true' }) });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/todos/:id/events',
      handler: async ({ human, params }) => ok({ events: await claims.todoEvents(human, params.id!) }),
    },
  ];
}
