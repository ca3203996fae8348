// Stored rows of the claim-lease half, as the server sees them.
import type { LeaseSource } from '../../core/claimLease.ts';
import type { Verb } from '../../core/verbs.ts';

export interface HumanRecord {
  id: string;
  name: string;
  created_at: number;
}

/** One machine's credential for a human (team mode: one per machine the human runs a server on). */
export interface DeviceRecord {
  id: string;
  human_id: string;
  machine_id: string;
  label: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** The human a request acts as, and through which device token (absent for a legacy human token). */
export interface AuthenticatedHuman extends HumanRecord {
  device_id?: string;
}

export interface EndpointRecord {
  id: string;
  human_id: string;
  slug: string;
  name: string;
  scope: Verb[];
  friend: boolean;
  state: 'active' | 'revoked';
  default_lease_ttl_seconds: number | null;
  created_at: number;
  revoked_at: number | null;
}

export interface TodoRecord {
  id: string;
  queue: string;
  title: string;
  payload: unknown;
  state: 'queued' | 'claimed' | 'done';
  attempts: number;
  holder_endpoint_id: string | null;
  claim_epoch: number;
  lease_expires_at: number | null;
  created_by: string;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/** 'revoked': revoking the holder requeued it; 'requeued': a human handed it back. */
export type ClaimEventKind = 'claimed' | 'heartbeat' | 'released' | 'completed' | 'reaped' | 'revoked' | 'requeued';

export interface ClaimEventRecord {
  id: number;
  todo_id: string;
  endpoint_id: string | null;
  kind: ClaimEventKind;
  claim_epoch: number;
  lease_ttl_seconds: number | null;
  lease_source: LeaseSource | null;
  lease_expires_at: number | null;
  at: number;
}
