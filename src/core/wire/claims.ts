// Wire shapes of endpoints, todos and claims (REST, MCP and the typed client share them).
import { z } from 'zod';
import {
  MAX_LEASE_TTL_SECONDS,
  MIN_DEFAULT_LEASE_TTL_SECONDS,
  MIN_PER_CALL_LEASE_TTL_SECONDS,
} from '../claimLease.ts';
import { ALL_VERBS } from '../verbs.ts';
import { MAX_STORED_INT } from './validate.ts';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Why a slug-shaped name (an endpoint slug, a queue) is refused: the rule, stated once. */
export function slugRuleMessage(what = 'slug'): string {
  return `${what} must be 1-63 characters of a-z, 0-9 and "-", starting with a letter or digit`;
}

export const slugSchema = z.string().regex(SLUG_PATTERN, slugRuleMessage());

/** An endpoint's default: whole seconds 60..86400, or null for the server default. Never clamped. */
export const defaultLeaseTtlSecondsSchema = z
  .number({ error: 'default_lease_ttl_seconds must be a whole number of seconds or null' })
  .int('default_lease_ttl_seconds must be a whole number of seconds')
  .min(MIN_DEFAULT_LEASE_TTL_SECONDS, `default_lease_ttl_seconds must be between ${MIN_DEFAULT_LEASE_TTL_SECONDS} and ${MAX_LEASE_TTL_SECONDS} seconds inclusive; out-of-range values are refused, not clamped`)
  .max(MAX_LEASE_TTL_SECONDS, `default_lease_ttl_seconds must be between ${MIN_DEFAULT_LEASE_TTL_SECONDS} and ${MAX_LEASE_TTL_SECONDS} seconds inclusive; out-of-range values are refused, not clamped`)
  .nullable();

/** A per-call lease: at least 1 second; above the cap it is clamped to 86400 by the resolver. */
export const perCallLeaseTtlSecondsSchema = z
  .number()
  .int('lease_ttl_seconds must be a whole number of seconds')
  .min(MIN_PER_CALL_LEASE_TTL_SECONDS, `lease_ttl_seconds must be at least ${MIN_PER_CALL_LEASE_TTL_SECONDS} second`);

export const verbSchema = z.enum(ALL_VERBS);
export const endpointStateSchema = z.enum(['active', 'revoked']);
export const leaseSourceSchema = z.enum(['per_call', 'endpoint', 'server']);
export const todoStateSchema = z.enum(['queued', 'claimed', 'done']);

export const vendEndpointRequestSchema = z
  .object({
    slug: slugSchema,
    name: z.string().min(1).max(200).optional(),
    scope: z.array(verbSchema).min(1, 'scope must grant at least one verb').optional(),
    friend: z.boolean().optional(),
    default_lease_ttl_seconds: defaultLeaseTtlSecondsSchema.optional(),
  })
  .strict();
export type VendEndpointRequest = z.infer<typeof vendEndpointRequestSchema>;

/** PATCH edits the default lease only: the key is required and any other key is refused. */
export const patchEndpointRequestSchema = z
  .object({ default_lease_ttl_seconds: defaultLeaseTtlSecondsSchema })
  .strict();
export type PatchEndpointRequest = z.infer<typeof patchEndpointRequestSchema>;

export const endpointViewSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  scope: z.array(verbSchema),
  friend: z.boolean(),
  state: endpointStateSchema,
  default_lease_ttl_seconds: z.number().int().nullable(),
  effective_lease_ttl_seconds: z.number().int(),
  effective_lease_source: z.enum(['endpoint', 'server']),
  created_at: z.number(),
  revoked_at: z.number().nullable(),
});
export type EndpointView = z.infer<typeof endpointViewSchema>;

export const vendEndpointResponseSchema = z.object({
  endpoint: endpointViewSchema,
  /** The endpoint's bearer token, shown once; the server keeps only its hash. */
  token: z.string(),
  mcp_url: z.string(),
});
export type VendEndpointResponse = z.infer<typeof vendEndpointResponseSchema>;

export const createTodoRequestSchema = z
  .object({
    queue: slugSchema.describe('queue name'),
    title: z.string().min(1, 'title is required').max(500),
    payload: z.unknown().optional(),
  })
  .strict();
export type CreateTodoRequest = z.infer<typeof createTodoRequestSchema>;

export const todoViewSchema = z.object({
  id: z.string(),
  queue: z.string(),
  title: z.string(),
  payload: z.unknown(),
  state: todoStateSchema,
  attempts: z.number().int(),
  claim_epoch: z.number().int(),
  /** The holder when it is one of the caller's endpoints; another human's shows as held_by_other. */
  holder: z.object({ endpoint_id: z.string(), slug: z.string() }).nullable(),
  held_by_other: z.boolean(),
  lease_expires_at: z.number().nullable(),
  lease_remaining_ms: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  completed_at: z.number().nullable(),
});
export type TodoView = z.infer<typeof todoViewSchema>;

/** One claim event of a todo (GET /todos/{id}/events). Another human's endpoint shows as by_other. */
export const claimEventViewSchema = z.object({
  kind: z.enum(['claimed', 'heartbeat', 'released', 'completed', 'reaped', 'revoked', 'requeued']),
  claim_epoch: z.number().int(),
  endpoint: z.object({ endpoint_id: z.string(), slug: z.string() }).nullable(),
  by_other: z.boolean(),
  lease_ttl_seconds: z.number().int().nullable(),
  lease_source: leaseSourceSchema.nullable(),
  lease_expires_at: z.number().nullable(),
  at: z.number(),
});
export type ClaimEventView = z.infer<typeof claimEventViewSchema>;

export const claimViewSchema = z.object({
  todo_id: z.string(),
  queue: z.string(),
  title: z.string(),
  payload: z.unknown(),
  claim_epoch: z.number().int(),
  lease_ttl_seconds: z.number().int(),
  lease_source: leaseSourceSchema,
  lease_expires_at: z.number(),
  lease_remaining_ms: z.number(),
  /** The endpoint's effective default as read for this call (what a bare call gets now). */
  default_lease_ttl_seconds_now: z.number().int(),
  default_lease_source_now: z.enum(['endpoint', 'server']),
  /** Bare heartbeat only: the expiry the lease had before this heartbeat replaced it. */
  previous_lease_expires_at: z.number().nullable().optional(),
});
export type ClaimView = z.infer<typeof claimViewSchema>;

// MCP verb arguments. Objects are strict: an unknown key is refused, never ignored.
const leaseTtlArgument = perCallLeaseTtlSecondsSchema
  .optional()
  .describe(`Lease length in seconds for this call, capped at ${MAX_LEASE_TTL_SECONDS}. Omit it to use the default stated in this tool's description.`);
const epochArgument = z.number().int().min(1).max(MAX_STORED_INT, `claim_epoch must be at most ${MAX_STORED_INT}`).describe('The claim_epoch returned by claim/claim_next (the fencing token).');

export const claimArgsSchema = z.object({ todo_id: z.string().min(1), lease_ttl_seconds: leaseTtlArgument }).strict();
export const claimNextArgsSchema = z.object({ queue: slugSchema, lease_ttl_seconds: leaseTtlArgument }).strict();
export const heartbeatArgsSchema = z
  .object({ todo_id: z.string().min(1), claim_epoch: epochArgument, lease_ttl_seconds: leaseTtlArgument })
  .strict();
export const releaseArgsSchema = z.object({ todo_id: z.string().min(1), claim_epoch: epochArgument }).strict();
export const completeArgsSchema = z.object({ todo_id: z.string().min(1), claim_epoch: epochArgument }).strict();
export const setDefaultLeaseArgsSchema = z.object({ default_lease_ttl_seconds: defaultLeaseTtlSecondsSchema }).strict();

export const defaultLeaseViewSchema = z.object({
  default_lease_ttl_seconds: z.number().int().nullable(),
  effective_lease_ttl_seconds: z.number().int(),
  source: z.enum(['endpoint', 'server']),
  whose: z.string(),
  bounds: z.object({ min_seconds: z.number(), max_seconds: z.number(), server_default_seconds: z.number() }),
});
export type DefaultLeaseView = z.infer<typeof defaultLeaseViewSchema>;
