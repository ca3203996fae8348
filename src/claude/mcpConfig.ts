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
