// Per-job-type TTLs and the Stop display state for the hook: defaults, overlaid by an
// optional <runtime dir>/hook-settings.json, overlaid by the VS Code window's own file
// (<runtime dir>/windows/<LEASEHOLD_VSCODE_WINDOW>.hook-settings.json, which the extension
// rewrites whenever leasehold.hookTtl.* changes, so terminals already open follow the setting),
// overlaid by LEASEHOLD_HOOK_* environment variables. Every TTL is bounded (MAX_HOOK_TTL_MS); a bad value falls back to the default
// with a warning, because a hook must never fail Claude Code over its own configuration.
//
// hook-settings.json: {"ttl": {"shell": "45m", "subagent": 5400000}, "stop_display_state": "done"}
// env: LEASEHOLD_HOOK_TTL_SHELL=45m, LEASEHOLD_HOOK_TTL_SUBAGENT, _MONITOR, _WORKFLOW,
//      LEASEHOLD_HOOK_STOP_STATE=idle|done
// A TTL is a duration ("90s", "45m", "2h", bare seconds "3600") or, in JSON, a number of ms.
import { join } from 'node:path';
import { parseDurationSeconds } from '../core/duration.ts';
import { runtimeFiles } from '../runtime/paths.ts';
import { DEFAULT_HOOK_SETTINGS, JOB_TYPES, MAX_HOOK_TTL_MS } from './hookInput.ts';
import type { HookSettings, JobType } from './hookInput.ts';
import { nodeFs } from '../runtime/builtins.ts';

// node:fs through builtins.ts: an ESM import of it costs the hook process ~6 ms (see there).
const { readFileSync } = nodeFs();

export const HOOK_SETTINGS_FILE = 'hook-settings.json';

export interface LoadedHookSettings {
  settings: HookSettings;
  /** What was ignored and why; the hook logs these. */
  warnings: string[];
}

function ttlMs(value: unknown, where: string, warnings: string[]): number | undefined {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    const parsed = parseDurationSeconds(value);
    if (parsed.ok) ms = parsed.seconds * 1000;
    else warnings.push(`${where}: ${parsed.message}; using the default`);
  } else if (value !== undefined) warnings.push(`${where}: must be a duration string or milliseconds; using the default`);
  if (ms === undefined) return undefined;
  if (!Number.isInteger(ms) || ms <= 0) {
    warnings.push(`${where}: must be a positive whole number of milliseconds; using the default`);
    return undefined;
  }
  if (ms > MAX_HOOK_TTL_MS) {
    // Never unbounded: a larger wish is cut to the cap (the server clamps again).
    warnings.push(`${where}: ${ms} ms is above the hook cap of ${MAX_HOOK_TTL_MS} ms; using the cap`);
    return MAX_HOOK_TTL_MS;
  }
  return ms;
}

function stopState(value: unknown, where: string, warnings: string[]): HookSettings['stopDisplayState'] | undefined {
  if (value === undefined) return undefined;
  if (value === 'idle' || value === 'done') return value;
  warnings.push(`${where}: must be "idle" or "done"; using the default`);
  return undefined;
}

/** A settings file's object, {} when it does not exist; anything else unreadable is a warning. */
function readSettingsFile(path: string, warnings: string[]): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    warnings.push(`${path}: must hold a JSON object; ignored`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`${path}: ${(error as Error).message}; ignored`);
  }
  return {};
}

function overlayFile(settings: HookSettings, path: string, warnings: string[]): void {
  const file = readSettingsFile(path, warnings);
  const fileTtl = file.ttl !== null && typeof file.ttl === 'object' ? (file.ttl as Record<string, unknown>) : {};
  for (const jobType of JOB_TYPES as readonly JobType[]) {
    const fromFile = ttlMs(fileTtl[jobType], `${path} ttl.${jobType}`, warnings);
    if (fromFile !== undefined) settings.ttlMsByJobType[jobType] = fromFile;
  }
  const state = stopState(file.stop_display_state, `${path} stop_display_state`, warnings);
  if (state !== undefined) settings.stopDisplayState = state;
}

export function loadHookSettings(runtimeDir: string, env: NodeJS.ProcessEnv = process.env): LoadedHookSettings {
  const warnings: string[] = [];
  const settings: HookSettings = structuredClone(DEFAULT_HOOK_SETTINGS);
  overlayFile(settings, join(runtimeDir, HOOK_SETTINGS_FILE), warnings);
  if (env.LEASEHOLD_VSCODE_WINDOW) overlayFile(settings, runtimeFiles.windowHookSettings(runtimeDir, env.LEASEHOLD_VSCODE_WINDOW), warnings);
  for (const jobType of JOB_TYPES as readonly JobType[]) {
    const envName = `LEASEHOLD_HOOK_TTL_${jobType.toUpperCase()}`;
    const fromEnv = env[envName] === undefined || env[envName] === '' ? undefined : ttlMs(env[envName], envName, warnings);
    if (fromEnv !== undefined) settings.ttlMsByJobType[jobType] = fromEnv;
  }
  const state = stopState(env.LEASEHOLD_HOOK_STOP_STATE || undefined, 'LEASEHOLD_HOOK_STOP_STATE', warnings);
  if (state !== undefined) settings.stopDisplayState = state;
  return { settings, warnings };
}
