// Installs Leasehold's hook entries into a Claude Code settings file, and takes them out
// again, touching nothing else in the file.
//
// Claude Code facts this relies on (checked against the hooks and settings docs at
// https://code.claude.com/docs/en/hooks and /en/settings, via their mirrors of
// 2026-02..2026-09, Claude Code 2.1.x; see docs/claude-code-facts.md):
// - settings files: user ~/.claude/settings.json, project <dir>/.claude/settings.json,
//   local <dir>/.claude/settings.local.json (not committed);
// - shape: {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command",
//   "command": "...", "timeout": <seconds>}]}]}}; matcher only matters for tool events
//   (a regex over tool names) and for SessionStart/Notification/SessionEnd sub-kinds;
// - a command hook runs through a shell, so the command is quoted for sh;
// - the subagent tool is "Agent" since 2.1.63 (formerly "Task"); the matcher lists both.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { LeaseholdError } from '../core/errors.ts';
import { isJsonObject, loadJsonObjectFile, saveJsonObjectFile } from './jsonSettingsFile.ts';
import type { JsonObject } from './jsonSettingsFile.ts';

export type SettingsScope = 'user' | 'project' | 'local';

export const HOOKED_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'Notification',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'SessionEnd',
] as const;
export type HookedEvent = (typeof HOOKED_EVENTS)[number];

/**
 * Every tool (Claude Code 2.1.332: "*" matches all): PostToolUse launches backgrounded Bash and
 * background subagents, and any tool that ran after a permission prompt (Edit, Write, an MCP
 * tool, ...) takes the pane from blocked back to working. The hook runs async, and a plain
 * tool call with no prompt open costs a file check (hookMain.ts), not a server event.
 */
export const POST_TOOL_USE_MATCHER = '*';

/** Seconds. The hook spools instead of waiting, so it needs far less than Claude Code's default. */
export const HOOK_TIMEOUT_SECONDS = 10;

/**
 * Present in every command we install and in no one else's: uninstall and status find our
 * entries by it. A trailing sh comment, so it changes nothing about what runs.
 */
export const LEASEHOLD_HOOK_MARKER = '# leasehold hook';

export interface HookInstallOptions {
  scope: SettingsScope;
  /** Required for project and local scope. */
  projectDir?: string;
  homeDir?: string;
  /** Runs the hook CLI, without the event, e.g. buildHookCommand(). */
  hookCommand: string;
}

export interface HookTarget {
  scope: SettingsScope;
  projectDir?: string;
  homeDir?: string;
}

export interface InstallSummary {
  file: string;
  changed: boolean;
  created: boolean;
  backup?: string;
  /** Events that got a new entry (including ones whose old entry was replaced). */
  added: HookedEvent[];
  /** Events whose earlier Leasehold entry had a different command or timeout and was replaced. */
  updated: HookedEvent[];
  unchanged: HookedEvent[];
}

export interface UninstallSummary {
  file: string;
  changed: boolean;
  deleted: boolean;
  backup?: string;
  /** Event names that had a Leasehold entry. */
  removed: string[];
}

export interface HooksStatus {
  file: string;
  exists: boolean;
  installed: HookedEvent[];
  missing: HookedEvent[];
  /** Events holding a Leasehold entry that differs from what install would write now (old runtime path, say). */
  outdated: HookedEvent[];
}

/** Quotes one word for POSIX sh: double quotes, with the four characters special inside them escaped. */
export function shellQuote(word: string): string {
  return `"${word.replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * `"<node>" "<cli>" hook`, with absolute paths so the hook works from any shell and PATH.
 * When the runtime is Electron (VS Code's own, as when the extension installs the hooks) it
 * must run as Node, or the command would open another VS Code window.
 */
export function buildHookCommand(
  cliScriptPath: string,
  runtimePath: string = process.execPath,
  runtimeIsElectron: boolean = process.versions.electron !== undefined,
): string {
  const asNode = runtimeIsElectron ? 'ELECTRON_RUN_AS_NODE=1 ' : '';
  return `${asNode}${shellQuote(runtimePath)} ${shellQuote(cliScriptPath)} hook`;
}

export function settingsPathFor(target: HookTarget): string {
  if (target.scope === 'user') return join(target.homeDir ?? homedir(), '.claude', 'settings.json');
  if (target.projectDir === undefined || target.projectDir === '') {
    throw new LeaseholdError('invalid_argument', `scope "${target.scope}" needs a project directory`, { field: 'projectDir' });
  }
  const name = target.scope === 'project' ? 'settings.json' : 'settings.local.json';
  return join(target.projectDir, '.claude', name);
}

interface HookHandler {
  type: 'command';
  command: string;
  timeout: number;
  async?: true;
}

/**
 * Events whose hook runs with `"async": true` (Claude Code does not wait for it: off the
 * agent's critical path). Only events whose effect is order-safe on the server: display changes
 * are judged by when they were observed (a later observation wins), and a launch that arrives
 * after the Stop listing that leased its task only pins that lease on its process. The events
 * that end leases or bind sessions (UserPromptSubmit's task-notification, Stop, SubagentStart,
 * SubagentStop, SessionStart, SessionEnd) stay synchronous: their order is their meaning.
 */
export const ASYNC_EVENTS: readonly HookedEvent[] = ['PostToolUse', 'PostToolUseFailure', 'Notification', 'PermissionRequest'];

function handlerFor(event: HookedEvent, hookCommand: string): HookHandler {
  const handler: HookHandler = { type: 'command', command: `${hookCommand} ${event} ${LEASEHOLD_HOOK_MARKER}`, timeout: HOOK_TIMEOUT_SECONDS };
  if (ASYNC_EVENTS.includes(event)) handler.async = true;
  return handler;
}

function groupFor(event: HookedEvent, hookCommand: string): JsonObject {
  const hooks = [handlerFor(event, hookCommand)];
  return event === 'PostToolUse' ? { matcher: POST_TOOL_USE_MATCHER, hooks } : { hooks };
}

function isOurs(handler: unknown): boolean {
  return isJsonObject(handler) && typeof handler.command === 'string' && handler.command.includes(LEASEHOLD_HOOK_MARKER);
}

function refuseShape(file: string, what: string): never {
  throw new LeaseholdError('invalid_argument', `${file}: ${what}; Leasehold changed nothing.`, { field: 'settings_file', details: { file } });
}

/** The hooks object, checked to have the documented shape wherever we will read or write. */
function hooksSection(data: JsonObject, file: string): JsonObject | undefined {
  if (data.hooks === undefined) return undefined;
  if (!isJsonObject(data.hooks)) refuseShape(file, '"hooks" must be an object');
  for (const [event, groups] of Object.entries(data.hooks)) {
    if (!Array.isArray(groups)) refuseShape(file, `"hooks.${event}" must be an array of matcher groups`);
    groups.forEach((group, index) => {
      if (!isJsonObject(group) || (group.hooks !== undefined && !Array.isArray(group.hooks))) {
        refuseShape(file, `"hooks.${event}[${index}]" must be an object with a "hooks" array`);
      }
    });
  }
  return data.hooks;
}

/** Removes our handlers from one event's groups; drops groups that held only ours. */
function withoutOurs(groups: unknown[]): unknown[] {
  const kept: unknown[] = [];
  for (const group of groups) {
    const handlers = (group as JsonObject).hooks as unknown[] | undefined;
    if (!handlers || !handlers.some(isOurs)) {
      kept.push(group);
      continue;
    }
    const remaining = handlers.filter((handler) => !isOurs(handler));
    if (remaining.length > 0) kept.push({ ...(group as JsonObject), hooks: remaining });
  }
  return kept;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Our current group for an event, if the file holds exactly what install would write. */
function hasCurrentEntry(groups: unknown[], event: HookedEvent, hookCommand: string): boolean {
  const wanted = groupFor(event, hookCommand);
  return groups.some((group) => sameJson(group, wanted));
}

function holdsOurs(group: unknown): boolean {
  return ((group as JsonObject).hooks as unknown[] | undefined)?.some(isOurs) ?? false;
}

function hasAnyEntry(groups: unknown[]): boolean {
  return groups.some(holdsOurs);
}

/** Exactly one group of ours, and it is what install would write now. */
function isExactlyCurrent(groups: unknown[], event: HookedEvent, hookCommand: string): boolean {
  const ours = groups.filter(holdsOurs);
  return ours.length === 1 && sameJson(ours[0], groupFor(event, hookCommand));
}

/**
 * Adds one matcher group per hooked event, each holding only Leasehold's handler, so other
 * tools' groups are never rewritten. Idempotent: when every entry is already current the
 * file is not written at all. An entry from an older install (different runtime path) is
 * replaced in place of being duplicated.
 */
export function installHooks(options: HookInstallOptions): InstallSummary {
  const path = settingsPathFor(options);
  const file = loadJsonObjectFile(path);
  const data = structuredClone(file.data);
  const hooks = hooksSection(data, path) ?? {};
  const summary: InstallSummary = { file: path, changed: false, created: false, added: [], updated: [], unchanged: [] };

  for (const event of HOOKED_EVENTS) {
    const groups = (hooks[event] as unknown[] | undefined) ?? [];
    if (isExactlyCurrent(groups, event, options.hookCommand)) {
      summary.unchanged.push(event);
      continue;
    }
    if (hasAnyEntry(groups)) summary.updated.push(event);
    summary.added.push(event);
    hooks[event] = [...withoutOurs(groups), groupFor(event, options.hookCommand)];
  }
  if (summary.added.length > 0) data.hooks = hooks;

  const saved = saveJsonObjectFile(file, data);
  return { ...summary, changed: saved.changed, created: saved.created, ...(saved.backupPath ? { backup: saved.backupPath } : {}) };
}

/** Removes every Leasehold entry (found by the marker), and any hooks keys that only they filled. */
export function uninstallHooks(target: HookTarget): UninstallSummary {
  const path = settingsPathFor(target);
  const file = loadJsonObjectFile(path);
  const data = structuredClone(file.data);
  const hooks = hooksSection(data, path);
  const removed: string[] = [];
  if (hooks) {
    for (const [event, groups] of Object.entries(hooks)) {
      if (!hasAnyEntry(groups as unknown[])) continue;
      removed.push(event);
      const kept = withoutOurs(groups as unknown[]);
      if (kept.length > 0) hooks[event] = kept;
      else delete hooks[event];
    }
    if (removed.length > 0 && Object.keys(hooks).length === 0) delete data.hooks;
  }
  const saved = saveJsonObjectFile(file, data, { deleteIfEmpty: true });
  return { file: path, changed: saved.changed, deleted: saved.deleted, removed, ...(saved.backupPath ? { backup: saved.backupPath } : {}) };
}

/** What is installed where, for `leasehold hooks status` and the extension. Reads only. */
export function hooksStatus(options: HookInstallOptions): HooksStatus {
  const path = settingsPathFor(options);
  const file = loadJsonObjectFile(path);
  const hooks = hooksSection(file.data, path) ?? {};
  const status: HooksStatus = { file: path, exists: file.exists, installed: [], missing: [], outdated: [] };
  for (const event of HOOKED_EVENTS) {
    const groups = (hooks[event] as unknown[] | undefined) ?? [];
    if (hasCurrentEntry(groups, event, options.hookCommand)) status.installed.push(event);
    else if (hasAnyEntry(groups)) status.outdated.push(event);
    else status.missing.push(event);
  }
  return status;
}
