// One error vocabulary for every surface. HTTP maps `code` to a status; the CLI prints the
// message; MCP returns it as a tool error.

export const ERROR_STATUS = {
  invalid_argument: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  // The fenced verbs' refusals (src/core/claimRefusal.ts): each says what actually happened.
  lease_lapsed: 409,
  held_by_other: 409,
  wrong_claim_epoch: 409,
  claim_ended: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
  // Wait-lease refusals carry the seed's reason codes.
  EVIDENCE_MISSING: 409,
  OWNER_WINDOW_ENDED: 409,
  CHAIN_CAP_REACHED: 409,
  LEASE_ENDED: 409,
  TOKEN_MISMATCH: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: { code: ErrorCode | string; message: string; field?: string; details?: Record<string, unknown> };
}

export class LeaseholdError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'LeaseholdError';
    this.code = code;
    this.field = options.field;
    this.details = options.details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.field !== undefined) error.field = this.field;
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

export function invalidArgument(field: string, message: string): LeaseholdError {
  return new LeaseholdError('invalid_argument', message, { field });
}
