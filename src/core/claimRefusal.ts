// Why a fenced call (heartbeat, release, complete) was refused, told truthfully. The store's
// conditional UPDATE only says "no row matched"; this rule reads the todo as it is now (and
// its latest claim event) and names what actually happened, because an agent acts on the
// answer: dropping a claim it still holds is as wrong as finishing one it lost.
import { formatDurationSeconds } from './duration.ts';

/** The refusal codes of the fenced verbs (docs/api.md "Claim refusals"). All are HTTP 409. */
export const FENCED_REFUSAL_CODES = ['lease_lapsed', 'held_by_other', 'wrong_claim_epoch', 'claim_ended'] as const;
export type FencedRefusalCode = (typeof FENCED_REFUSAL_CODES)[number];

export interface FencedTodoState {
  state: 'queued' | 'claimed' | 'done';
  claim_epoch: number;
  holder_endpoint_id: string | null;
  lease_expires_at: number | null;
}

export interface FencedRefusalInput {
  todoId: string;
  /** The claim_epoch the caller presented. */
  presentedEpoch: number;
  callerEndpointId: string;
  now: number;
  todo: FencedTodoState;
  /** The todo's latest claim event (kind, its epoch and actor), when one exists. */
  lastEvent?: { kind: string; claim_epoch: number; endpoint_id: string | null } | undefined;
}

export interface FencedRefusal {
  code: FencedRefusalCode;
  message: string;
  /** Whether the caller still holds the todo (under another epoch). */
  holdsTodo: boolean;
  details: Record<string, unknown>;
}

const STOP = 'you no longer hold it, so stop work on it and do not complete, merge or publish anything for it';

/** How a claim under the presented epoch ended, from the event that ended it. */
function endedBy(kind: string | undefined, byCaller: boolean): string {
  switch (kind) {
    case 'reaped':
      return 'its lease lapsed and the reaper requeued the todo';
    case 'released':
      return byCaller ? 'you released it' : 'it was released';
    case 'completed':
      return byCaller ? 'you already completed it' : 'it was completed';
    case 'requeued':
      return 'a human handed the todo back to its queue';
    case 'revoked':
      return "the endpoint's human revoked the endpoint that held it, which requeued the todo";
    default:
      return 'the claim ended';
  }
}

export function classifyFencedRefusal(input: FencedRefusalInput): FencedRefusal {
  const { todo, presentedEpoch: presented, callerEndpointId: caller, todoId } = input;
  const current = todo.claim_epoch;
  const heldByCaller = todo.state === 'claimed' && todo.holder_endpoint_id === caller;
  const subject = `todo "${todoId}"`;

  if (presented !== current) {
    if (heldByCaller) {
      // The caller holds the todo, just not under the epoch it sent: a wrong number, not a loss.
      const live = todo.lease_expires_at !== null && todo.lease_expires_at > input.now;
      if (live) {
        return {
          code: 'wrong_claim_epoch',
          message:
            `claim_epoch ${presented} is not the current claim of ${subject}: this endpoint still holds it under claim_epoch ${current}` +
            ` (lease ${formatDurationSeconds((todo.lease_expires_at! - input.now) / 1000)} left). Nothing changed; repeat the call with claim_epoch ${current}.`,
          holdsTodo: true,
          details: { presented_claim_epoch: presented, current_claim_epoch: current, todo_state: todo.state },
        };
      }
      return {
        code: 'lease_lapsed',
        message: `claim_epoch ${presented} is not the current claim of ${subject}, and this endpoint's current claim on it (claim_epoch ${current}) has lapsed too; ${STOP}`,
        holdsTodo: false,
        details: { presented_claim_epoch: presented, current_claim_epoch: current, todo_state: todo.state },
      };
    }
    if (presented > current) {
      return {
        code: 'wrong_claim_epoch',
        message: `claim_epoch ${presented} was never issued for ${subject} (its latest claim is ${current}), and this endpoint does not hold it now; nothing changed`,
        holdsTodo: false,
        details: { presented_claim_epoch: presented, todo_state: todo.state },
      };
    }
    if (todo.state === 'claimed' && todo.holder_endpoint_id !== caller) {
      return {
        code: 'held_by_other',
        message: `${subject} was claimed again by another holder since your claim_epoch ${presented}; ${STOP}`,
        holdsTodo: false,
        details: { presented_claim_epoch: presented, todo_state: todo.state },
      };
    }
    return {
      code: 'claim_ended',
      message: `${subject} was claimed again since your claim_epoch ${presented}, and that later claim ended too (the todo is ${todo.state}); ${STOP}`,
      holdsTodo: false,
      details: { presented_claim_epoch: presented, todo_state: todo.state },
    };
  }

  // The presented epoch is the todo's latest claim.
  if (todo.state === 'claimed') {
    if (todo.holder_endpoint_id !== caller) {
      return {
        code: 'held_by_other',
        message: `${subject} is held by another holder's claim; this endpoint does not hold it, so nothing changed`,
        holdsTodo: false,
        details: { presented_claim_epoch: presented, todo_state: todo.state },
      };
    }
    const expiredAt = todo.lease_expires_at ?? input.now;
    return {
      code: 'lease_lapsed',
      message:
        `your lease on ${subject} (claim_epoch ${presented}) lapsed ${formatDurationSeconds((input.now - expiredAt) / 1000)} ago` +
        ` and the reaper is requeueing it; ${STOP}. If you still want it, claim it again.`,
      holdsTodo: false,
      details: { presented_claim_epoch: presented, todo_state: todo.state, lease_expired_at: expiredAt },
    };
  }
  const event = input.lastEvent && input.lastEvent.claim_epoch === presented ? input.lastEvent : undefined;
  const byCaller = event?.endpoint_id === caller;
  if (event?.kind === 'reaped') {
    return {
      code: 'lease_lapsed',
      message: `your lease on ${subject} (claim_epoch ${presented}) lapsed and the reaper requeued the todo; nobody holds it now. ${STOP.replace(/^you/, 'You')}; claim it again if you still want it.`,
      holdsTodo: false,
      details: { presented_claim_epoch: presented, todo_state: todo.state },
    };
  }
  return {
    code: 'claim_ended',
    message: `the claim on ${subject} under claim_epoch ${presented} already ended: ${endedBy(event?.kind, byCaller)} (the todo is ${todo.state}); nothing changed`,
    holdsTodo: false,
    details: { presented_claim_epoch: presented, todo_state: todo.state, ended_by: event?.kind ?? null },
  };
}
