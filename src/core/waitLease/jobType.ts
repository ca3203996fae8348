// job_type and kind: enforced vocabularies, because the ledger is useless if job types are
// free text, and because consumers must degrade safely when they meet a kind they do not know.
import { invalidArgument } from '../errors.ts';

export const BASE_JOB_TYPES = ['shell', 'subagent', 'monitor', 'provider_call', 'build', 'test', 'other'] as const;
export type BaseJobType = (typeof BASE_JOB_TYPES)[number];

/** The escape hatch: `other:<name>`, a short lowercase slug rather than free text. */
export type OtherNamedJobType = `other:${string}`;
export type JobType = BaseJobType | OtherNamedJobType;

export const DEFAULT_JOB_TYPE: JobType = 'other';
export const OTHER_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,39}$/;

export function isJobType(value: unknown): value is JobType {
  if (typeof value !== 'string') return false;
  if ((BASE_JOB_TYPES as readonly string[]).includes(value)) return true;
  return value.startsWith('other:') && OTHER_NAME_PATTERN.test(value.slice('other:'.length));
}

/** Input job_type → the enforced value; omitted (undefined or null) means `other`. */
export function parseJobType(input: unknown): JobType {
  if (input === undefined || input === null) return DEFAULT_JOB_TYPE;
  if (isJobType(input)) return input;
  throw invalidArgument(
    'job_type',
    `job_type must be one of ${BASE_JOB_TYPES.join(', ')} or other:<name> where name matches ${OTHER_NAME_PATTERN.source} (got ${JSON.stringify(input)}); free text is refused`,
  );
}

export const LEASE_KINDS = ['declared', 'inferred'] as const;
export type LeaseKind = (typeof LEASE_KINDS)[number];
export const DEFAULT_LEASE_KIND: LeaseKind = 'declared';

/** Input kind → the enforced value; omitted means `declared`. Writers must name a known kind. */
export function parseLeaseKind(input: unknown): LeaseKind {
  if (input === undefined || input === null) return DEFAULT_LEASE_KIND;
  if (input === 'declared' || input === 'inferred') return input;
  throw invalidArgument('kind', `kind must be declared or inferred (got ${JSON.stringify(input)})`);
}

/**
 * How a consumer must read a stored or received kind: anything that is not exactly
 * `declared` (a newer kind, a typo, nothing) gets the weakest authority, `inferred`.
 */
export function kindForConsumers(value: unknown): LeaseKind {
  return value === 'declared' ? 'declared' : 'inferred';
}
