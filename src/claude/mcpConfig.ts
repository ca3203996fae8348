// The MCP side of the glue: how Claude Code reaches a Leasehold endpoint's /mcp URL.
//
// Claude Code facts (https://code.claude.com/docs/en/mcp, checked via mirrors of 2026-08;
// see docs/claude-code-facts.md):
// - project scope lives in <project>/.mcp.json as {"mcpServers": {"<name>": {"type": "http",
//   "url": "...", "headers": {"Authorization": "Bearer ..."}}}};
// - `claude mcp add --transport http [--scope project] <name> <url> --header "K: V"`; the
//   docs put --header after the url (it takes several values, so before the name it would
//   swallow the name);
// - "${VAR}" in url and headers is expanded from the environment, which keeps a token out
//   of a committed .mcp.json.
// - a server from .mcp.json stays "Pending approval" (`claude mcp list`) until approved; the
//   approval is `enabledMcpjsonServers: ["<name>"]` in <project>/.claude/settings.local.json
//   (what Claude Code's own approval dialog writes there; rejections go to
//   `disabledMcpjsonServers`). Headless runs also need the tools allowed: the permission rule
//   `mcp__<name>__*` in `permissions.allow` (or `--allowedTools 'mcp__<name>__*'`). Both keys
//   and the rule form were checked in the Claude Code 2.1.332 bundle (settings schema,
//   the MCP approval dialog, the permission-rule validator: "globs are permitted only in the
//   tool position after a literal mcp__<server>__ prefix").

import { join } from 'node:path';
import { invalidArgument, LeaseholdError } from '../core/errors.ts';
import { isJsonObject, loadJsonObjectFile, saveJsonObjectFile } from './jsonSettingsFile.ts';
import type { JsonObject } from './jsonSettingsFile.ts';

export interface McpEndpoint {
  /** Names the server "leasehold-<slug>"; lower-case letters, digits and "-". */
  slug: string;
  /** The endpoint's MCP URL, e.g. http://127.0.0.1:PORT/mcp. */
  url: string;
  /** The endpoint's bearer token. Written literally unless tokenEnvVar is set. */
  token: string;
  /** When set, the config says "Bearer ${VAR}" and Claude Code reads the token from the environment. */
  tokenEnvVar?: string;
}

export interface McpServerEntry {
  type: 'http';
  url: string;
  headers: { Authorization: string };
}

export interface WriteMcpSummary {
  file: string;
  serverName: string;
  changed: boolean;
  created: boolean;
  /** An entry of that name existed with a different url or token and was replaced. */
  replaced: boolean;
  backup?: string;
  /** True when the token is written literally: .mcp.json is usually committed. */
  containsSecret: boolean;
}

const SLUG = /^[a-z0-9][a-z0-9-]*$/;
const ENV_VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function mcpServerName(slug: string): string {
  if (!SLUG.test(slug)) throw invalidArgument('slug', `endpoint slug "${slug}" must be lower-case letters, digits and "-", starting with a letter or digit`);
  return `leasehold-${slug}`;
}

function validate(endpoint: McpEndpoint): void {
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    throw invalidArgument('url', `MCP url "${endpoint.url}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument('url', `MCP url must be http or https, got ${url.protocol}`);
  if (endpoint.tokenEnvVar !== undefined && !ENV_VAR.test(endpoint.tokenEnvVar)) {
    throw invalidArgument('tokenEnvVar', `"${endpoint.tokenEnvVar}" is not an environment variable name`);
  }
  if (endpoint.tokenEnvVar === undefined && endpoint.token.trim() === '') throw invalidArgument('token', 'an MCP token is required');
}

function authorizationValue(endpoint: McpEndpoint): string {
  return `Bearer ${endpoint.tokenEnvVar !== undefined ? `\${${endpoint.tokenEnvVar}}` : endpoint.token}`;
}

export function buildMcpServerEntry(endpoint: McpEndpoint): McpServerEntry {
  validate(endpoint);
  return { type: 'http', url: endpoint.url, headers: { Authorization: authorizationValue(endpoint) } };
}

/** The whole .mcp.json document for this one endpoint, as `leasehold mcp-config` prints it. */
export function buildMcpJson(endpoint: McpEndpoint): { mcpServers: Record<string, McpServerEntry> } {
  return { mcpServers: { [mcpServerName(endpoint.slug)]: buildMcpServerEntry(endpoint) } };
}

/** Quotes one word for sh with single quotes (nothing is special inside them but ' itself). */
function singleQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The equivalent `claude mcp add` line, ready to paste into a shell. */
export function buildMcpAddCommand(endpoint: McpEndpoint, scope: 'local' | 'project' | 'user' = 'project'): string {
  const entry = buildMcpServerEntry(endpoint);
  return [
    'claude mcp add --transport http --scope',
    scope,
    mcpServerName(endpoint.slug),
    singleQuote(entry.url),
    '--header',
    singleQuote(`Authorization: ${entry.headers.Authorization}`),
  ].join(' ');
}

/**
 * Merges the entry into <projectDir>/.mcp.json: other servers and keys stay as they are, an
 * identical entry leaves the file untouched, a changed one is replaced, and a file that is
 * not valid JSON is refused without any change.
 */
export function writeMcpConfig(projectDir: string, endpoint: McpEndpoint): WriteMcpSummary {
  const path = join(projectDir, '.mcp.json');
  const name = mcpServerName(endpoint.slug);
  const entry = buildMcpServerEntry(endpoint);
  const file = loadJsonObjectFile(path);
  const data: JsonObject = structuredClone(file.data);
  if (data.mcpServers !== undefined && !isJsonObject(data.mcpServers)) {
    throw new LeaseholdError('invalid_argument', `${path}: "mcpServers" must be an object; Leasehold changed nothing.`, {
      field: 'settings_file',
      details: { file: path },
    });
  }
  const servers: JsonObject = (data.mcpServers as JsonObject | undefined) ?? {};
  const replaced = servers[name] !== undefined && JSON.stringify(servers[name]) !== JSON.stringify(entry);
  servers[name] = entry;
  data.mcpServers = servers;
  const saved = saveJsonObjectFile(file, data);
  return {
    file: path,
    serverName: name,
    changed: saved.changed,
    created: saved.created,
    replaced,
    containsSecret: endpoint.tokenEnvVar === undefined,
    ...(saved.backupPath ? { backup: saved.backupPath } : {}),
  };
}

/** The permission rule that allows every tool of this endpoint's server. */
export function mcpPermissionRule(slug: string): string {
  return `mcp__${mcpServerName(slug)}__*`;
}

/** What a user must do before Claude Code can call the server, said in the command's output. */
export function mcpApprovalAdvice(slug: string): string {
  const name = mcpServerName(slug);
  const rule = mcpPermissionRule(slug);
  return (
    `Claude Code lists a .mcp.json server as "Pending approval" until you approve it (the prompt on the next interactive start, or /mcp), ` +
    `and a headless run (claude -p) needs its tools allowed: --allowedTools '${rule}'. ` +
    `Pass --approve to write both ("enabledMcpjsonServers": ["${name}"] and "permissions.allow": ["${rule}"]) into <project>/.claude/settings.local.json.`
  );
}

export interface WriteApprovalSummary {
  file: string;
  serverName: string;
  permissionRule: string;
  changed: boolean;
  created: boolean;
  backup?: string;
  /** The server had been rejected (disabledMcpjsonServers) and that rejection was removed. */
  unrejected: boolean;
}

function stringList(data: JsonObject, key: string, path: string): string[] {
  const value = data[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new LeaseholdError('invalid_argument', `${path}: "${key}" must be an array of strings; Leasehold changed nothing.`, {
      field: 'settings_file',
      details: { file: path },
    });
  }
  return value as string[];
}

/**
 * Approves the endpoint's .mcp.json server and allows its tools where Claude Code reads
 * them: <projectDir>/.claude/settings.local.json (not committed). Merges; idempotent.
 */
export function writeMcpApproval(projectDir: string, slug: string): WriteApprovalSummary {
  const path = join(projectDir, '.claude', 'settings.local.json');
  const name = mcpServerName(slug);
  const rule = mcpPermissionRule(slug);
  const file = loadJsonObjectFile(path);
  const data: JsonObject = structuredClone(file.data);
  const enabled = stringList(data, 'enabledMcpjsonServers', path);
  const disabled = stringList(data, 'disabledMcpjsonServers', path);
  if (data.permissions !== undefined && !isJsonObject(data.permissions)) {
    throw new LeaseholdError('invalid_argument', `${path}: "permissions" must be an object; Leasehold changed nothing.`, { field: 'settings_file', details: { file: path } });
  }
  const permissions: JsonObject = (data.permissions as JsonObject | undefined) ?? {};
  const allow = stringList(permissions, 'allow', path);
  if (!enabled.includes(name)) data.enabledMcpjsonServers = [...enabled, name];
  const unrejected = disabled.includes(name);
  if (unrejected) data.disabledMcpjsonServers = disabled.filter((item) => item !== name);
  if (!allow.includes(rule)) data.permissions = { ...permissions, allow: [...allow, rule] };
  const saved = saveJsonObjectFile(file, data);
  return {
    file: path,
    serverName: name,
    permissionRule: rule,
    changed: saved.changed,
    created: saved.created,
    unrejected,
    ...(saved.backupPath ? { backup: saved.backupPath } : {}),
  };
}
