// What the extension does about Claude Code hooks when it starts: repair Leasehold's own
// entries that point at an older extension folder or runtime (an update moved them; every hook
// would fail), and offer once to install them when Claude Code is present and none are
// installed. Never writes without consent: a repair only rewrites entries the user installed.
// Pure: the caller reads `leasehold hooks status --json` per scope.

export type HookScope = 'user' | 'project' | 'local';

export interface ScopeStatus {
  scope: HookScope;
  file: string;
  installed: string[];
  missing: string[];
  /** Leasehold entries whose command differs from what install would write now. */
  outdated: string[];
}

export interface HookSetupPlan {
  /** installed: every Leasehold entry found is current (after repairs); missing: none anywhere. */
  state: 'installed' | 'missing';
  /** Scopes whose Leasehold entries must be rewritten for this extension folder and runtime. */
  repair: HookScope[];
  /** Offer to install (once): Claude Code is here, no hooks are, and it was not offered before. */
  offer: boolean;
}

export function planHookSetup(statuses: readonly ScopeStatus[], context: { claudePresent: boolean; offeredBefore: boolean }): HookSetupPlan {
  const repair = statuses.filter((status) => status.outdated.length > 0).map((status) => status.scope);
  const any = statuses.some((status) => status.installed.length > 0 || status.outdated.length > 0);
  return { state: any ? 'installed' : 'missing', repair, offer: !any && context.claudePresent && !context.offeredBefore };
}

/** Reads one `leasehold hooks status --json` answer; undefined when it is not one. */
export function parseScopeStatus(scope: HookScope, output: string): ScopeStatus | undefined {
  try {
    const value = JSON.parse(output) as Partial<ScopeStatus>;
    const list = (items: unknown) => (Array.isArray(items) ? items.filter((item): item is string => typeof item === 'string') : []);
    if (typeof value.file !== 'string') return undefined;
    return { scope, file: value.file, installed: list(value.installed), missing: list(value.missing), outdated: list(value.outdated) };
  } catch {
    return undefined;
  }
}
