// The `leasehold.*` settings as what they mean for the server launch and the terminals' env.
// Pure: the caller passes a getter over the configuration.
import { DEFAULT_HARD_MAX_TTL_MS } from '../../core/waitLease/grant.ts';
import { durationSettingMs } from './durations.ts';
import { isJobType } from '../../core/waitLease/jobType.ts';
import { identityProblem } from '../../core/identity.ts';

/** Job types whose hook TTL is a setting (src/claude/hookInput.ts HookSettings). */
export const HOOK_TTL_JOB_TYPES = ['shell', 'subagent', 'monitor', 'workflow'] as const;
export type HookTtlJobType = (typeof HOOK_TTL_JOB_TYPES)[number];
export const DEFAULT_HOOK_TTL = { shell: '30m', subagent: '1h', monitor: '1h', workflow: '1h' } as const satisfies Record<HookTtlJobType, string>;

/** Env names the server and the hook read. */
export const ENV = {
  runtimeDir: 'LEASEHOLD_RUNTIME_DIR',
  pane: 'LEASEHOLD_PANE',
  window: 'LEASEHOLD_VSCODE_WINDOW',
  databaseUrl: 'LEASEHOLD_DATABASE_URL',
  identity: 'LEASEHOLD_IDENTITY',
  hardMaxTtlMs: 'LEASEHOLD_HARD_MAX_TTL_MS',
  hardMaxTtlByJobType: 'LEASEHOLD_HARD_MAX_TTL_BY_JOB_TYPE',
  /** Per job type: LEASEHOLD_HOOK_TTL_SHELL, _SUBAGENT, _MONITOR, _WORKFLOW (src/claude/hookSettings.ts); set by hand only. */
  hookTtlPrefix: 'LEASEHOLD_HOOK_TTL_',
} as const;

export interface ResolvedSettings {
  serverRuntime: string;
  dataDir: string;
  databaseUrl: string;
  /** Team mode: the identity (human) the server acts as; '' for the server's default. */
  identity: string;
  hardMaxTtlMs: number | undefined;
  /** Per-job-type hard max TTLs; the server refuses one looser than the global cap (core rule). */
  hardMaxTtlMsByJobType: Record<string, number>;
  hookTtlMs: Record<HookTtlJobType, number>;
  problems: string[];
}

export function resolveSettings(get: (key: string) => unknown): ResolvedSettings {
  const problems: string[] = [];
  const text = (key: string) => {
    const value = get(key);
    return typeof value === 'string' ? value.trim() : '';
  };
  let hardMaxTtlMs: number | undefined;
  if (text('hardMaxTtl') !== '') {
    const parsed = durationSettingMs(get('hardMaxTtl'), DEFAULT_HARD_MAX_TTL_MS);
    if (parsed.problem) problems.push(`leasehold.hardMaxTtl: ${parsed.problem}; the server default applies`);
    else hardMaxTtlMs = parsed.ms;
  }
  const hardMaxTtlMsByJobType: Record<string, number> = {};
  const perType = get('hardMaxTtlByJobType');
  if (perType !== undefined && perType !== null && (typeof perType !== 'object' || Array.isArray(perType))) {
    problems.push('leasehold.hardMaxTtlByJobType: must be an object of job type → duration; ignored');
  } else if (perType) {
    for (const [type, value] of Object.entries(perType as Record<string, unknown>)) {
      if (!isJobType(type)) {
        problems.push(`leasehold.hardMaxTtlByJobType: ${JSON.stringify(type)} is not a job type; ignored`);
        continue;
      }
      const parsed = durationSettingMs(value, 0);
      if (parsed.problem || parsed.ms <= 0) problems.push(`leasehold.hardMaxTtlByJobType.${type}: ${parsed.problem ?? 'must be a duration'}; ignored`);
      else if (parsed.ms > (hardMaxTtlMs ?? DEFAULT_HARD_MAX_TTL_MS)) problems.push(`leasehold.hardMaxTtlByJobType.${type}: longer than the global hard max TTL; a per-type cap can only tighten it, ignored`);
      else hardMaxTtlMsByJobType[type] = parsed.ms;
    }
  }
  const hookTtlMs = {} as Record<HookTtlJobType, number>;
  for (const type of HOOK_TTL_JOB_TYPES) {
    const fallback = durationSettingMs(DEFAULT_HOOK_TTL[type], 1).ms;
    const parsed = durationSettingMs(get(`hookTtl.${type}`), fallback);
    if (parsed.problem) problems.push(`leasehold.hookTtl.${type}: ${parsed.problem}; ${DEFAULT_HOOK_TTL[type]} applies`);
    hookTtlMs[type] = parsed.ms;
  }
  let identity = text('identity');
  const identityRefused = identity === '' ? null : identityProblem(identity, 'leasehold.identity');
  if (identityRefused) {
    problems.push(`${identityRefused}; the server's default identity applies`);
    identity = '';
  }
  return { serverRuntime: text('serverRuntime'), dataDir: text('dataDir'), databaseUrl: text('databaseUrl'), identity, hardMaxTtlMs, hardMaxTtlMsByJobType, hookTtlMs, problems };
}

/** `serve` arguments and env from the settings (the database URL goes by env: argv is visible to every user). */
export function serverLaunchFrom(settings: ResolvedSettings): { args: string[]; env: Record<string, string> } {
  const args: string[] = [];
  const env: Record<string, string> = {};
  if (settings.dataDir) args.push('--data-dir', settings.dataDir);
  if (settings.databaseUrl) env[ENV.databaseUrl] = settings.databaseUrl;
  if (settings.identity) env[ENV.identity] = settings.identity;
  if (settings.hardMaxTtlMs !== undefined) env[ENV.hardMaxTtlMs] = String(settings.hardMaxTtlMs);
  const perType = Object.entries(settings.hardMaxTtlMsByJobType);
  if (perType.length > 0) env[ENV.hardMaxTtlByJobType] = perType.map(([type, ms]) => `${type}=${ms}ms`).join(',');
  return { args, env };
}

/**
 * What every integrated terminal gets: where the server is and which window it belongs to. Never a
 * token, and no TTLs: a terminal's env is fixed when it opens, so the hook TTLs go in the window's
 * hook settings file instead (windowHookSettingsFrom), which every terminal's hook reads at each event.
 */
export function terminalEnvFrom(runtimeDir: string, windowSession: string): Record<string, string> {
  return { [ENV.runtimeDir]: runtimeDir, [ENV.window]: windowSession };
}

/** Env names earlier versions put in terminals; a collection that still holds them drops them. */
export const STALE_TERMINAL_ENV = HOOK_TTL_JOB_TYPES.map((type) => `${ENV.hookTtlPrefix}${type.toUpperCase()}`);

/** The window's hook settings file (src/claude/hookSettings.ts reads it): the hook TTLs as durations. */
export function windowHookSettingsFrom(settings: ResolvedSettings): { ttl: Record<HookTtlJobType, string> } {
  const ttl = {} as Record<HookTtlJobType, string>;
  // A duration string: bare digits would read as seconds, milliseconds as a number would do too.
  for (const type of HOOK_TTL_JOB_TYPES) ttl[type] = `${Math.round(settings.hookTtlMs[type] / 1000)}s`;
  return { ttl };
}
