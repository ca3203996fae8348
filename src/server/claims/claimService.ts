// The claim-lease rules of ADR-0043 applied to storage: vend and edit endpoints, add todos,
// and the five agent verbs. Every lease is resolved by core's resolveLeaseTtl here, once.
import {
  effectiveDefaultLease,
  leaseOwnerPhrase,
  MAX_LEASE_TTL_SECONDS,
  MIN_DEFAULT_LEASE_TTL_SECONDS,
  resolveLeaseTtl,
  SERVER_DEFAULT_LEASE_TTL_SECONDS,
} from '../../core/claimLease.ts';
import { classifyFencedRefusal } from '../../core/claimRefusal.ts';
import type { Clock } from '../../core/clock.ts';
import { LeaseholdError } from '../../core/errors.ts';
import { BASIC_VEND_VERBS, FRIEND_GRANTABLE_VERBS, type Verb } from '../../core/verbs.ts';
import type {
  ClaimEventView,
  ClaimView,
  CreateTodoRequest,
  DefaultLeaseView,
  EndpointView,
  PatchEndpointRequest,
  TodoView,
  VendEndpointRequest,
} from '../../core/wire/claims.ts';
import { generateId, generateOrderedId, generateToken, hashToken } from '../auth/tokens.ts';
import type { ChangeBus } from '../events.ts';
import type { CheckedTransition, ClaimStore, LeaseGrant } from './claimStore.ts';
import type { EndpointRecord, HumanRecord, TodoRecord } from './records.ts';

export function endpointView(endpoint: EndpointRecord): EndpointView {
  const effective = effectiveDefaultLease(endpoint.default_lease_ttl_seconds);
  return {
    id: endpoint.id,
    slug: endpoint.slug,
    name: endpoint.name,
    scope: endpoint.scope,
    friend: endpoint.friend,
    state: endpoint.state,
    default_lease_ttl_seconds: endpoint.default_lease_ttl_seconds,
    effective_lease_ttl_seconds: effective.seconds,
    effective_lease_source: effective.source === 'endpoint' ? 'endpoint' : 'server',
    created_at: endpoint.created_at,
    revoked_at: endpoint.revoked_at,
  };
}

export function defaultLeaseView(endpoint: EndpointRecord): DefaultLeaseView {
  const effective = effectiveDefaultLease(endpoint.default_lease_ttl_seconds);
  return {
    default_lease_ttl_seconds: endpoint.default_lease_ttl_seconds,
    effective_lease_ttl_seconds: effective.seconds,
    source: effective.source === 'endpoint' ? 'endpoint' : 'server',
    whose: leaseOwnerPhrase(effective.source),
    bounds: {
      min_seconds: MIN_DEFAULT_LEASE_TTL_SECONDS,
      max_seconds: MAX_LEASE_TTL_SECONDS,
      server_default_seconds: SERVER_DEFAULT_LEASE_TTL_SECONDS,
    },
  };
}

function notFound(ref: string): LeaseholdError {
  // The same answer for an unknown endpoint and another human's: isolation (ADR-0022).
  return new LeaseholdError('not_found', `no endpoint "${ref}"`, { field: 'endpoint' });
}

function revokedConflict(endpoint: EndpointRecord): LeaseholdError {
  return new LeaseholdError('conflict', `endpoint "${endpoint.slug}" is revoked; it can no longer be changed`, {
    details: { state: endpoint.state, revoked_at: endpoint.revoked_at },
  });
}

function grantOf(perCallSeconds: number | undefined, endpoint: EndpointRecord): LeaseGrant {
  const resolved = resolveLeaseTtl(perCallSeconds, endpoint.default_lease_ttl_seconds);
  return { leaseSeconds: resolved.seconds, leaseMs: resolved.seconds * 1000, source: resolved.source };
}

export interface ClaimServiceOptions {
  store: ClaimStore;
  clock: Clock;
  bus: ChangeBus;
  mcpUrl: () => string;
  /** Called after each claim so the reaper can arm its timer at the earliest expiry. */
  onLeaseGranted?: (expiresAt: number) => void;
}

export class ClaimService {
  private readonly store: ClaimStore;
  private readonly clock: Clock;
  private readonly bus: ChangeBus;

  private readonly options: ClaimServiceOptions;

  constructor(options: ClaimServiceOptions) {
    this.options = options;
    this.store = options.store;
    this.clock = options.clock;
    this.bus = options.bus;
  }

  // Humans' endpoints --------------------------------------------------------------

  async vendEndpoint(human: HumanRecord, request: VendEndpointRequest): Promise<{ endpoint: EndpointView; token: string; mcp_url: string }> {
    const friend = request.friend ?? false;
    const scope = [...new Set<Verb>(request.scope ?? (friend ? FRIEND_GRANTABLE_VERBS : BASIC_VEND_VERBS))];
    if (friend) {
      const refused = scope.filter((verb) => !FRIEND_GRANTABLE_VERBS.includes(verb));
      if (refused.length > 0) {
        throw new LeaseholdError(
          'invalid_argument',
          `scope: ${refused.join(', ')} cannot be granted to a friend endpoint; its default lease is set by its approver`,
          { field: 'scope' },
        );
      }
    }
    if (await this.store.findEndpoint(human.id, request.slug)) {
      throw new LeaseholdError('conflict', `you already have an endpoint with slug "${request.slug}"`, { field: 'slug' });
    }
    const token = generateToken('endpoint');
    const endpoint: EndpointRecord = {
      id: generateId('ep'),
      human_id: human.id,
      slug: request.slug,
      name: request.name ?? request.slug,
      scope,
      friend,
      state: 'active',
      default_lease_ttl_seconds: request.default_lease_ttl_seconds ?? null,
      created_at: this.clock.nowMs(),
      revoked_at: null,
    };
    await this.store.insertEndpoint({ ...endpoint, token_hash: hashToken(token) });
    this.bus.publish({ type: 'endpoint.changed', human_id: human.id, endpoint_id: endpoint.id, change: 'vended' });
    return { endpoint: endpointView(endpoint), token, mcp_url: this.options.mcpUrl() };
  }

  async listEndpoints(human: HumanRecord): Promise<EndpointView[]> {
    return (await this.store.listEndpoints(human.id)).map(endpointView);
  }

  async ownEndpoint(human: HumanRecord, ref: string): Promise<EndpointRecord> {
    const endpoint = await this.store.findEndpoint(human.id, ref);
    if (!endpoint) throw notFound(ref);
    return endpoint;
  }

  async getEndpoint(human: HumanRecord, ref: string): Promise<EndpointView> {
    return endpointView(await this.ownEndpoint(human, ref));
  }

  /** PATCH: edits default_lease_ttl_seconds only (validated upstream: key required, no others). */
  async editEndpoint(human: HumanRecord, ref: string, patch: PatchEndpointRequest): Promise<EndpointView> {
    const endpoint = await this.ownEndpoint(human, ref);
    return endpointView(await this.setDefaultLease(endpoint, patch.default_lease_ttl_seconds));
  }

  async revokeEndpoint(human: HumanRecord, ref: string): Promise<EndpointView> {
    const endpoint = await this.ownEndpoint(human, ref);
    if (endpoint.state === 'revoked') throw revokedConflict(endpoint);
    const revoked = await this.store.revokeEndpoint(endpoint.id, this.clock.nowMs());
    if (!revoked) throw revokedConflict({ ...endpoint, state: 'revoked' });
    this.bus.publish({ type: 'endpoint.changed', human_id: human.id, endpoint_id: endpoint.id, change: 'revoked' });
    for (const todo of revoked.requeued) {
      this.bus.publish({ type: 'todo.changed', todo_id: todo.id, queue: todo.queue, change: 'revoked', endpoint_id: endpoint.id });
    }
    return endpointView(revoked.endpoint);
  }

  // The endpoint's own default (get_default_lease / set_default_lease) -----------------

  async getDefaultLease(endpoint: EndpointRecord): Promise<DefaultLeaseView> {
    return defaultLeaseView(await this.currentEndpoint(endpoint));
  }

  async setDefaultLease(endpoint: EndpointRecord, seconds: number | null): Promise<EndpointRecord> {
    if (endpoint.state === 'revoked') throw revokedConflict(endpoint);
    const updated = await this.store.setDefaultLease(endpoint.id, seconds);
    if (!updated) throw revokedConflict({ ...endpoint, state: 'revoked' });
    this.bus.publish({ type: 'endpoint.changed', human_id: endpoint.human_id, endpoint_id: endpoint.id, change: 'edited' });
    return updated;
  }

  // Todos ----------------------------------------------------------------------------

  async createTodo(human: HumanRecord, request: CreateTodoRequest): Promise<TodoView> {
    const now = this.clock.nowMs();
    const todo: TodoRecord = {
      id: generateOrderedId('td'),
      queue: request.queue,
      title: request.title,
      payload: request.payload ?? null,
      state: 'queued',
      attempts: 0,
      holder_endpoint_id: null,
      claim_epoch: 0,
      lease_expires_at: null,
      created_by: human.id,
      created_at: now,
      updated_at: now,
      completed_at: null,
    };
    await this.store.insertTodo(todo);
    this.bus.publish({ type: 'todo.changed', todo_id: todo.id, queue: todo.queue, change: 'created', endpoint_id: null });
    return this.todoView(todo, new Map(), now);
  }

  /**
   * A human hands a claimed todo back to its queue at once. Allowed to the human whose
   * endpoint holds it and to the human who added it; the holder's next fenced call under the
   * old epoch fails with claim_ended (src/core/claimRefusal.ts).
   */
  async requeueTodo(human: HumanRecord, todoId: string): Promise<TodoView> {
    const existing = await this.store.getTodo(todoId);
    if (!existing) throw new LeaseholdError('not_found', `no todo "${todoId}"`, { field: 'todo_id' });
    const own = new Map((await this.store.listEndpoints(human.id)).map((endpoint) => [endpoint.id, endpoint]));
    if (existing.state !== 'claimed') {
      throw new LeaseholdError('conflict', `todo "${todoId}" is ${existing.state}; only a claimed todo can be requeued`, {
        field: 'todo_id',
        details: { state: existing.state },
      });
    }
    const heldByOwn = existing.holder_endpoint_id !== null && own.has(existing.holder_endpoint_id);
    if (!heldByOwn && existing.created_by !== human.id) {
      throw new LeaseholdError('forbidden', `todo "${todoId}" is held by another human's endpoint and was not added by you; only they can requeue it`, {
        field: 'todo_id',
      });
    }
    const now = this.clock.nowMs();
    const todo = await this.store.requeueTodo(todoId, now);
    if (!todo) {
      throw new LeaseholdError('conflict', `todo "${todoId}" is no longer claimed; nothing to requeue`, { field: 'todo_id' });
    }
    this.bus.publish({ type: 'todo.changed', todo_id: todo.id, queue: todo.queue, change: 'requeued', endpoint_id: todo.requeued_from });
    return this.todoView(todo, own, now);
  }

  async listTodos(human: HumanRecord, filter: { queue?: string; state?: TodoRecord['state']; mine?: boolean }): Promise<TodoView[]> {
    const own = new Map((await this.store.listEndpoints(human.id)).map((endpoint) => [endpoint.id, endpoint]));
    const todos = await this.store.listTodos({
      queue: filter.queue,
      state: filter.state,
      holderIds: filter.mine ? [...own.keys()] : undefined,
    });
    const now = this.clock.nowMs();
    return todos.map((todo) => this.todoView(todo, own, now));
  }

  /** The claim events of one todo, oldest first; another human's endpoints are not named. */
  async todoEvents(human: HumanRecord, todoId: string): Promise<ClaimEventView[]> {
    if (!(await this.store.getTodo(todoId))) throw new LeaseholdError('not_found', `no todo "${todoId}"`, { field: 'todo_id' });
    const own = new Map((await this.store.listEndpoints(human.id)).map((endpoint) => [endpoint.id, endpoint]));
    return (await this.store.listClaimEvents(todoId)).map((event) => {
      const endpoint = event.endpoint_id ? own.get(event.endpoint_id) : undefined;
      return {
        kind: event.kind,
        claim_epoch: event.claim_epoch,
        endpoint: endpoint ? { endpoint_id: endpoint.id, slug: endpoint.slug } : null,
        by_other: event.endpoint_id !== null && !endpoint,
        lease_ttl_seconds: event.lease_ttl_seconds,
        lease_source: event.lease_source,
        lease_expires_at: event.lease_expires_at,
        at: event.at,
      };
    });
  }

  todoView(todo: TodoRecord, ownEndpoints: Map<string, EndpointRecord>, now: number): TodoView {
    const holder = todo.holder_endpoint_id ? ownEndpoints.get(todo.holder_endpoint_id) : undefined;
    const held = todo.state === 'claimed';
    return {
      id: todo.id,
      queue: todo.queue,
      title: todo.title,
      payload: todo.payload,
      state: todo.state,
      attempts: todo.attempts,
      claim_epoch: todo.claim_epoch,
      holder: held && holder ? { endpoint_id: holder.id, slug: holder.slug } : null,
      held_by_other: held && !holder,
      lease_expires_at: held ? todo.lease_expires_at : null,
      lease_remaining_ms: held && todo.lease_expires_at !== null ? Math.max(0, todo.lease_expires_at - now) : null,
      created_at: todo.created_at,
      updated_at: todo.updated_at,
      completed_at: todo.completed_at,
    };
  }

  // Agent verbs ----------------------------------------------------------------------

  async claim(endpoint: EndpointRecord, todoId: string, perCallSeconds?: number): Promise<ClaimView> {
    const current = await this.currentEndpoint(endpoint);
    const grant = grantOf(perCallSeconds, current);
    const now = this.clock.nowMs();
    const todo = await this.store.claimTodo(todoId, current.id, grant, now);
    if (!todo) {
      const existing = await this.store.getTodo(todoId);
      if (!existing) throw new LeaseholdError('not_found', `no todo "${todoId}"`, { field: 'todo_id' });
      throw new LeaseholdError('conflict', `todo "${todoId}" is ${existing.state === 'done' ? 'already done' : 'held by another claim'}`, {
        field: 'todo_id',
        details: { state: existing.state },
      });
    }
    return this.granted(todo, grant, 'claimed', current, now);
  }

  /** Claims the oldest queued todo of the queue, or returns null when the queue is empty. */
  async claimNext(endpoint: EndpointRecord, queue: string, perCallSeconds?: number): Promise<ClaimView | null> {
    const { result, grant, now } = await this.checked(endpoint, (expected) => {
      const grant = grantOf(perCallSeconds, expected);
      const now = this.clock.nowMs();
      return { grant, now, run: this.store.claimNext(queue, expected, grant, now) };
    });
    return result.todo ? this.granted(result.todo, grant, 'claimed', result.endpoint, now) : null;
  }

  /** Extends the lease; without lease_ttl_seconds by the endpoint's default (no bare-heartbeat trap). */
  async heartbeat(endpoint: EndpointRecord, todoId: string, claimEpoch: number, perCallSeconds?: number): Promise<ClaimView> {
    const { result, grant, now } = await this.checked(endpoint, (expected) => {
      const grant = grantOf(perCallSeconds, expected);
      const now = this.clock.nowMs();
      return { grant, now, run: this.store.heartbeat({ todoId, endpointId: expected.id, claimEpoch, now }, grant, expected) };
    });
    const current = result.endpoint;
    if (!result.todo) throw await this.lapsed(todoId, claimEpoch, current.id);
    const view = this.granted(result.todo, grant, 'heartbeat', current, now);
    // A bare heartbeat may shorten a longer lease (ADR-0043 precedence); its result says so.
    return perCallSeconds === undefined ? { ...view, previous_lease_expires_at: result.previousExpiresAt } : view;
  }

  async release(endpoint: EndpointRecord, todoId: string, claimEpoch: number): Promise<TodoView> {
    return this.endClaim(endpoint, todoId, claimEpoch, 'released');
  }

  async complete(endpoint: EndpointRecord, todoId: string, claimEpoch: number): Promise<TodoView> {
    return this.endClaim(endpoint, todoId, claimEpoch, 'completed');
  }

  private async endClaim(endpoint: EndpointRecord, todoId: string, claimEpoch: number, kind: 'released' | 'completed'): Promise<TodoView> {
    const { result, now } = await this.checked(endpoint, (expected) => {
      const now = this.clock.nowMs();
      const mutation = { todoId, endpointId: expected.id, claimEpoch, now };
      return { grant: undefined, now, run: kind === 'released' ? this.store.release(mutation, expected) : this.store.complete(mutation, expected) };
    });
    const current = result.endpoint;
    const todo = result.todo;
    if (!todo) throw await this.lapsed(todoId, claimEpoch, current.id);
    this.bus.publish({ type: 'todo.changed', todo_id: todo.id, queue: todo.queue, change: kind, endpoint_id: current.id });
    return this.todoView(todo, new Map([[current.id, current]]), now);
  }

  /**
   * Runs a transition that reads the endpoint row in its own transaction or statement (the
   * ADR's read on every call, without a round trip of its own). `attempt` resolves the call
   * from the row it expects, starting with the caller's copy; when the stored row differs (its
   * default was edited, or it was revoked) nothing was written, and the call is resolved again
   * from the stored row. Revocation is final, so a revoked copy is refused without asking.
   */
  private async checked<G, T extends CheckedTransition>(
    endpoint: EndpointRecord,
    attempt: (expected: EndpointRecord) => { grant: G; now: number; run: Promise<T> },
  ): Promise<{ result: T & { endpoint: EndpointRecord }; grant: G; now: number }> {
    let expected = endpoint;
    for (let tries = 0; tries < 5; tries++) {
      if (expected.state === 'revoked') throw revokedConflict(expected);
      const { grant, now, run } = attempt(expected);
      const result = await run;
      if (!result.endpoint) throw notFound(endpoint.slug);
      if (result.applied) return { result: { ...result, endpoint: result.endpoint }, grant, now };
      expected = result.endpoint;
    }
    throw new LeaseholdError('unavailable', `endpoint "${endpoint.slug}" kept changing while the call was resolved; retry`);
  }

  /**
   * The endpoint row as stored now: the default is read on each call, so an edit applies to
   * the next call. A read failure refuses the call rather than guessing a lease.
   */
  private async currentEndpoint(endpoint: EndpointRecord): Promise<EndpointRecord> {
    let current: EndpointRecord | undefined;
    try {
      current = await this.store.getEndpoint(endpoint.id);
    } catch (error) {
      throw new LeaseholdError('unavailable', `could not read endpoint "${endpoint.slug}" to resolve its lease; the call was refused rather than guessing a lease`, {
        details: { cause: (error as Error).message },
      });
    }
    if (!current) throw notFound(endpoint.slug);
    if (current.state === 'revoked') throw revokedConflict(current);
    return current;
  }

  /** The refusal of a fenced call that matched no row: the failure path's one read, classified in core. */
  private async lapsed(todoId: string, claimEpoch: number, endpointId: string): Promise<LeaseholdError> {
    const existing = await this.store.getTodo(todoId);
    if (!existing) return new LeaseholdError('not_found', `no todo "${todoId}"`, { field: 'todo_id' });
    const events = await this.store.listClaimEvents(todoId);
    const refusal = classifyFencedRefusal({
      todoId,
      presentedEpoch: claimEpoch,
      callerEndpointId: endpointId,
      now: this.clock.nowMs(),
      todo: existing,
      lastEvent: events.at(-1),
    });
    return new LeaseholdError(refusal.code, refusal.message, { field: 'claim_epoch', details: { ...refusal.details, holds_todo: refusal.holdsTodo } });
  }

  private granted(todo: TodoRecord, grant: LeaseGrant, change: 'claimed' | 'heartbeat', endpoint: EndpointRecord, now: number): ClaimView {
    const endpointId = endpoint.id;
    const currentDefault = effectiveDefaultLease(endpoint.default_lease_ttl_seconds);
    const expiresAt = todo.lease_expires_at ?? now;
    this.options.onLeaseGranted?.(expiresAt);
    this.bus.publish({ type: 'todo.changed', todo_id: todo.id, queue: todo.queue, change, endpoint_id: endpointId });
    return {
      todo_id: todo.id,
      queue: todo.queue,
      title: todo.title,
      payload: todo.payload,
      claim_epoch: todo.claim_epoch,
      lease_ttl_seconds: grant.leaseSeconds,
      lease_source: grant.source,
      lease_expires_at: expiresAt,
      lease_remaining_ms: Math.max(0, expiresAt - now),
      default_lease_ttl_seconds_now: currentDefault.seconds,
      default_lease_source_now: currentDefault.source === 'endpoint' ? 'endpoint' : 'server',
    };
  }
}
