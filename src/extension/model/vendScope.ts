// The vend wizard's scope step (ADR-0043): the drain verbs checked, every verb beyond them
// (get_default_lease and set_default_lease among them, the wait-lease verbs) offered unchecked.
// Pure: the command turns these into a multi-select quick pick.
import { ALL_VERBS, DEFAULT_LEASE_VERBS, DRAIN_VERBS, WAIT_LEASE_VERBS, type Verb } from '../../core/verbs.ts';

export interface ScopeChoice {
  verb: Verb;
  label: string;
  description: string;
  picked: boolean;
}

const GROUP: Record<Verb, string> = Object.fromEntries([
  ...DRAIN_VERBS.map((verb) => [verb, 'drain: claim and finish todos']),
  ...DEFAULT_LEASE_VERBS.map((verb) => [verb, verb === 'set_default_lease' ? "lease settings: change this endpoint's default lease TTL" : "lease settings: read this endpoint's default lease TTL"]),
  ...WAIT_LEASE_VERBS.map((verb) => [verb, 'wait-leases on terminal panes']),
]) as Record<Verb, string>;

export function scopeChoices(): ScopeChoice[] {
  return ALL_VERBS.map((verb) => ({ verb, label: verb, description: GROUP[verb], picked: (DRAIN_VERBS as readonly string[]).includes(verb) }));
}

/** The scope to vend, or the rule it breaks. */
export function scopeFromPicks(picked: readonly string[]): { ok: true; scope: Verb[] } | { ok: false; message: string } {
  const scope = ALL_VERBS.filter((verb) => picked.includes(verb));
  if (scope.length === 0) return { ok: false, message: 'scope must grant at least one verb: pick the drain verbs at least, or cancel' };
  return { ok: true, scope };
}
