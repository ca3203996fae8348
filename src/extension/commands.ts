// Everything a user can do, as a table of commands (palette category "Leasehold"). Each takes
// optional arguments (tree node, tooltip link, or a plain object from tests) and asks through
// UI only for what is missing. A command returns its result, or {error} after showing it.
import * as vscode from 'vscode';
import { LeaseholdApiError, ServerUnreachableError, type LeaseholdClient } from '../client/client.ts';
import { buildMcpAddCommand, buildMcpJson } from '../claude/mcpConfig.ts';
import { SLUG_PATTERN, slugRuleMessage, type EndpointView, type VendEndpointRequest } from '../core/wire/claims.ts';
import type { Ctx } from './context.ts';
import { endpointRefOf, leaseIdOf, scopeArgOf, stringArg, ttlArgOf, type HooksScope } from './model/commandArgs.ts';
import { hooksSummaryText } from './model/hooksSummary.ts';
import { LEDGER_SCHEME, ledgerMarkdown } from './model/ledger.ts';
import { effectiveLeaseText } from './model/treeModels.ts';
import { scopeChoices, scopeFromPicks } from './model/vendScope.ts';
import { TTL_PROMPT, parseTtlInput, ttlInputValue, validateTtlInput } from './model/ttlInput.ts';
import { runCli } from './server/cliRunner.ts';

/** Shown to the user as is (no "Leasehold:" stack trace). */
class UserError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** Dismissed prompt: not an error. */
class Cancelled extends Error {}

interface StoredEndpointSecret {
  token: string;
  mcp_url: string;
  slug: string;
}

const secretKey = (endpointId: string) => `leasehold.endpointToken.${endpointId}`;

type Handler = (ctx: Ctx, ...args: unknown[]) => Promise<unknown> | unknown;

function requireClient(ctx: Ctx): LeaseholdClient {
  const client = ctx.client;
  if (!client) {
    throw new UserError('server_unavailable', `the lease server is not connected (${ctx.supervisor.state.kind}). Run "Leasehold: Restart Server", or see "Leasehold: Show Log".`);
  }
  return client;
}

function given<T>(value: T | undefined): T {
  if (value === undefined) throw new Cancelled();
  return value;
}

async function pickEndpoint(ctx: Ctx, arg: unknown, purpose: string, filter: (endpoint: EndpointView) => boolean = (endpoint) => endpoint.state === 'active'): Promise<EndpointView> {
  const client = requireClient(ctx);
  const ref = endpointRefOf(arg);
  if (ref) return client.getEndpoint(ref);
  const endpoints = (await client.listEndpoints()).filter(filter);
  if (endpoints.length === 0) throw new UserError('no_endpoints', 'there is no endpoint to choose. Vend one first ("Leasehold: Vend Endpoint…").');
  const picked = await vscode.window.showQuickPick(
    endpoints.map((endpoint) => ({ label: endpoint.slug, description: effectiveLeaseText(endpoint), detail: endpoint.name !== endpoint.slug ? endpoint.name : undefined, endpoint })),
    { title: `Leasehold: ${purpose}`, placeHolder: 'Choose an endpoint' },
  );
  return given(picked).endpoint;
}

async function askTtl(title: string, value: string, allowEmpty: boolean): Promise<number | null | undefined> {
  const text = given(
    await vscode.window.showInputBox({
      title,
      prompt: allowEmpty ? `${TTL_PROMPT}. Leave empty for the server default.` : TTL_PROMPT,
      value,
      validateInput: (input) => (allowEmpty && input.trim() === '' ? undefined : validateTtlInput(input)),
    }),
  );
  if (allowEmpty && text.trim() === '') return null;
  const parsed = parseTtlInput(text);
  if (!parsed.ok) throw new UserError('invalid_ttl', parsed.message);
  return parsed.seconds;
}

function ttlFromArg(arg: unknown, key = 'ttl'): number | null | undefined {
  const text = ttlArgOf(arg, key);
  if (text === undefined) return undefined;
  const parsed = parseTtlInput(text);
  if (!parsed.ok) throw new UserError('invalid_ttl', parsed.message);
  return parsed.seconds;
}

async function vendEndpoint(ctx: Ctx, arg?: unknown) {
  const client = requireClient(ctx);
  const slug =
    stringArg(arg, 'slug') ??
    given(
      await vscode.window.showInputBox({
        title: 'Leasehold: Vend Endpoint (1/3)',
        prompt: 'Endpoint slug: 1-63 of a-z, 0-9 and "-", starting with a letter or digit',
        placeHolder: 'reviewer',
        validateInput: (input) => (SLUG_PATTERN.test(input.trim()) ? undefined : slugRuleMessage()),
      }),
    ).trim();
  let ttl = ttlFromArg(arg, 'leaseTtl');
  if (ttl === undefined && stringArg(arg, 'slug') === undefined) ttl = await askTtl('Leasehold: Vend Endpoint (2/3): default lease TTL', '', true);
  const argScope = (arg as { scope?: unknown } | undefined)?.scope;
  let scope: string[] | undefined = Array.isArray(argScope) ? argScope.filter((verb): verb is string => typeof verb === 'string') : undefined;
  if (scope === undefined && stringArg(arg, 'slug') === undefined) {
    const picked = given(
      await vscode.window.showQuickPick(scopeChoices(), {
        title: 'Leasehold: Vend Endpoint (3/3): scope',
        placeHolder: 'Verbs this endpoint may call: the drain verbs are checked; the rest are offered unchecked',
        canPickMany: true,
      }),
    );
    const checked = scopeFromPicks(picked.map((choice) => choice.verb));
    if (!checked.ok) throw new UserError('invalid_scope', checked.message);
    scope = checked.scope;
  }
  const vended = await client.vendEndpoint({
    slug,
    ...(stringArg(arg, 'name') ? { name: stringArg(arg, 'name') } : {}),
    ...(ttl !== undefined && ttl !== null ? { default_lease_ttl_seconds: ttl } : {}),
    ...(scope !== undefined ? { scope: scope as VendEndpointRequest['scope'] } : {}),
  });
  const secret: StoredEndpointSecret = { token: vended.token, mcp_url: vended.mcp_url, slug: vended.endpoint.slug };
  await ctx.ext.secrets.store(secretKey(vended.endpoint.id), JSON.stringify(secret));
  ctx.log.info(`vended endpoint ${vended.endpoint.slug} (${vended.endpoint.id}); its token is kept in VS Code's secret storage`);
  ctx.scheduleRefresh({ endpoints: true });
  void vscode.window.showInformationMessage(`Leasehold: vended endpoint ${vended.endpoint.slug} (lease TTL ${effectiveLeaseText(vended.endpoint)}). Its token is shown only now; VS Code keeps it in secret storage for "Copy MCP Config".`, 'Copy MCP Config').then((choice) => {
    if (choice) void vscode.commands.executeCommand('leasehold.copyMcpConfig', { endpoint: vended.endpoint.id });
  });
  return { endpoint: vended.endpoint, mcp_url: vended.mcp_url };
}

async function editEndpointLeaseTtl(ctx: Ctx, arg?: unknown) {
  const endpoint = await pickEndpoint(ctx, arg, 'Edit Endpoint Lease TTL');
  const ttl = ttlFromArg(arg) ?? (ttlArgOf(arg) === undefined ? await askTtl(`Leasehold: lease TTL of ${endpoint.slug} (now ${effectiveLeaseText(endpoint)})`, ttlInputValue(endpoint.default_lease_ttl_seconds), false) : undefined);
  const edited = await requireClient(ctx).editEndpoint(endpoint.id, { default_lease_ttl_seconds: ttl ?? null });
  ctx.scheduleRefresh({ endpoints: true });
  void vscode.window.showInformationMessage(`Leasehold: ${edited.slug} lease TTL is now ${effectiveLeaseText(edited)}.`);
  return edited;
}

async function resetEndpointLeaseTtl(ctx: Ctx, arg?: unknown) {
  const endpoint = await pickEndpoint(ctx, arg, 'Reset Endpoint Lease TTL to Server Default', (e) => e.state === 'active' && e.default_lease_ttl_seconds !== null);
  const edited = await requireClient(ctx).editEndpoint(endpoint.id, { default_lease_ttl_seconds: null });
  ctx.scheduleRefresh({ endpoints: true });
  void vscode.window.showInformationMessage(`Leasehold: ${edited.slug} lease TTL is now ${effectiveLeaseText(edited)}.`);
  return edited;
}

async function revokeEndpoint(ctx: Ctx, arg?: unknown) {
  const endpoint = await pickEndpoint(ctx, arg, 'Revoke Endpoint');
  const confirmed = (arg as { confirmed?: unknown } | undefined)?.confirmed === true;
  if (!confirmed) {
    const answer = await vscode.window.showWarningMessage(
      `Revoke endpoint ${endpoint.slug}?`,
      { modal: true, detail: 'Its token stops working at once and the todos it holds go back to their queues at once. This cannot be undone.' },
      'Revoke',
    );
    if (answer !== 'Revoke') throw new Cancelled();
  }
  const revoked = await requireClient(ctx).revokeEndpoint(endpoint.id);
  await ctx.ext.secrets.delete(secretKey(endpoint.id));
  ctx.scheduleRefresh({ endpoints: true });
  void vscode.window.showInformationMessage(`Leasehold: revoked endpoint ${revoked.slug}.`);
  return revoked;
}

async function copyMcpConfig(ctx: Ctx, arg?: unknown) {
  const endpoint = await pickEndpoint(ctx, arg, 'Copy MCP Config');
  const stored = await ctx.ext.secrets.get(secretKey(endpoint.id));
  if (!stored) {
    throw new UserError(
      'token_unavailable',
      `the token of ${endpoint.slug} is not stored here: an endpoint's token is shown only when it is vended (the server keeps only a hash), and it was not vended from this VS Code. Vend a new endpoint, or use the config saved when it was vended.`,
    );
  }
  const secret = JSON.parse(stored) as StoredEndpointSecret;
  const mcpEndpoint = { slug: endpoint.slug, url: secret.mcp_url, token: secret.token };
  const json = JSON.stringify(buildMcpJson(mcpEndpoint), null, 2);
  const format = (arg as { format?: unknown } | undefined)?.format;
  const text = format === 'command' ? buildMcpAddCommand(mcpEndpoint) : json;
  await vscode.env.clipboard.writeText(text);
  void vscode.window
    .showInformationMessage(`Leasehold: copied the MCP config of ${endpoint.slug} (${format === 'command' ? 'a `claude mcp add` command' : '.mcp.json'}). It holds the endpoint's token: do not commit it.`, format === 'command' ? 'Copy .mcp.json Instead' : 'Copy claude mcp add Instead')
    .then((choice) => {
      if (choice) void vscode.commands.executeCommand('leasehold.copyMcpConfig', { endpoint: endpoint.id, format: format === 'command' ? 'json' : 'command' });
    });
  return { copied: text };
}

async function addTodo(ctx: Ctx, arg?: unknown) {
  const client = requireClient(ctx);
  const queueNode = (arg as { kind?: unknown; group?: { queue?: unknown } } | undefined)?.group?.queue;
  const queue =
    (typeof queueNode === 'string' ? queueNode : undefined) ??
    stringArg(arg, 'queue') ??
    given(
      await vscode.window.showInputBox({
        title: 'Leasehold: Add Todo (1/2)',
        prompt: 'Queue name (a-z, 0-9, "-")',
        placeHolder: 'reviews',
        validateInput: (input) => (SLUG_PATTERN.test(input.trim()) ? undefined : slugRuleMessage('queue')),
      }),
    ).trim();
  const title =
    stringArg(arg, 'title') ??
    given(
      await vscode.window.showInputBox({
        title: 'Leasehold: Add Todo (2/2)',
        prompt: 'Title',
        validateInput: (input) => (input.trim() === '' ? 'title is required' : input.length > 500 ? 'title must be at most 500 characters' : undefined),
      }),
    ).trim();
  const todo = await client.createTodo({ queue, title });
  void vscode.window.showInformationMessage(`Leasehold: added "${todo.title}" to queue ${todo.queue}.`);
  return todo;
}

/** A todo node of the Todos view, or {todoId}. */
function todoIdOf(arg: unknown): string | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const node = arg as { todo?: { id?: unknown }; todoId?: unknown };
  if (typeof node.todoId === 'string') return node.todoId;
  return typeof node.todo?.id === 'string' ? node.todo.id : undefined;
}

async function copyTodoId(ctx: Ctx, arg?: unknown) {
  let todoId = todoIdOf(arg);
  if (!todoId) {
    const todos = await requireClient(ctx).listTodos();
    if (todos.length === 0) throw new UserError('no_todos', 'there is no todo yet ("Leasehold: Add Todo…").');
    const picked = await vscode.window.showQuickPick(
      todos.map((todo) => ({ label: todo.title, description: `${todo.queue} · ${todo.state} · epoch ${todo.claim_epoch}`, detail: todo.id, todoId: todo.id })),
      { title: 'Leasehold: Copy Todo ID', placeHolder: 'Which todo?' },
    );
    todoId = given(picked).todoId;
  }
  await vscode.env.clipboard.writeText(todoId);
  void vscode.window.showInformationMessage(`Leasehold: copied todo id ${todoId}.`);
  return { copied: todoId };
}

/** A human release of a claimed todo: back to its queue, and the old holder's epoch is fenced. */
async function requeueTodo(ctx: Ctx, arg?: unknown) {
  const client = requireClient(ctx);
  let todoId = todoIdOf(arg);
  if (!todoId) {
    const claimed = (await client.listTodos({ state: 'claimed' })).filter((todo) => !todo.held_by_other);
    if (claimed.length === 0) throw new UserError('no_claims', 'no claimed todo of yours to requeue.');
    const picked = await vscode.window.showQuickPick(
      claimed.map((todo) => ({ label: todo.title, description: `${todo.queue} · ${todo.holder?.slug ?? ''} · epoch ${todo.claim_epoch}`, todoId: todo.id })),
      { title: 'Leasehold: Requeue Todo', placeHolder: 'Requeue which claimed todo?' },
    );
    todoId = given(picked).todoId;
  }
  if ((arg as { confirmed?: unknown } | undefined)?.confirmed !== true) {
    const answer = await vscode.window.showWarningMessage(
      'Requeue this todo?',
      { modal: true, detail: 'It goes back to its queue at once. Its holder\'s claim epoch is fenced: its heartbeat, release and complete are refused with lease_lapsed.' },
      'Requeue',
    );
    if (answer !== 'Requeue') throw new Cancelled();
  }
  const todo = await client.requeueTodo(todoId);
  ctx.scheduleRefresh({ claims: true });
  void vscode.window.showInformationMessage(`Leasehold: requeued "${todo.title}" (queue ${todo.queue}); the old holder's claim is fenced.`);
  return todo;
}

async function runHooksCommand(ctx: Ctx, action: 'install' | 'uninstall', arg?: unknown) {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const scope: HooksScope =
    scopeArgOf(arg) ??
    given(
      await vscode.window.showQuickPick(
        [
          { label: 'user', description: '~/.claude/settings.json', detail: 'Every Claude Code session of this user', scope: 'user' as const },
          { label: 'project', description: '.claude/settings.json', detail: folder ? `Shared with the project (committed) in ${folder}` : 'Needs an open folder', scope: 'project' as const },
          { label: 'local', description: '.claude/settings.local.json', detail: folder ? `This project, this machine only (not committed) in ${folder}` : 'Needs an open folder', scope: 'local' as const },
        ],
        { title: `Leasehold: ${action === 'install' ? 'Install' : 'Uninstall'} Claude Code Hooks`, placeHolder: 'Which Claude Code settings file?' },
      ),
    ).scope;
  if (scope !== 'user' && !folder) throw new UserError('no_folder', `the ${scope} scope writes into the open folder's .claude directory; open a folder first, or choose user.`);
  const choice = await ctx.cliRuntime();
  if (!choice.ok) throw new UserError('no_runtime', choice.message);
  let output: string;
  try {
    output = await runCli({ runtime: choice.runtime, cliScript: ctx.cliScript, runtimeDir: ctx.runtimeDir, cwd: folder ?? ctx.ext.extensionPath, log: (line) => ctx.log.info(line) }, ['hooks', action, '--scope', scope, ...(folder ? ['--project-dir', folder] : []), '--json']);
  } catch (error) {
    throw new UserError('hooks_failed', (error as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    parsed = output.trim();
  }
  const summary = hooksSummaryText(action, scope, parsed);
  ctx.log.info(summary.text);
  void ctx.checkHooks({ offer: false });
  void vscode.window.showInformationMessage(`Leasehold: ${summary.text}`, ...(summary.file ? ['Open File'] : [])).then((open) => {
    if (open && summary.file) void vscode.window.showTextDocument(vscode.Uri.file(summary.file));
  });
  return { scope, summary: summary.text, output: parsed };
}

async function releaseWaitLease(ctx: Ctx, arg?: unknown) {
  const client = requireClient(ctx);
  let leaseId = leaseIdOf(arg);
  if (!leaseId) {
    const live = [...ctx.panes.values()].flatMap((snapshot) => snapshot.pane.leases.filter((lease) => lease.state !== 'ended').map((lease) => ({ lease, pane: snapshot.pane.name })));
    if (live.length === 0) throw new UserError('no_leases', 'no live wait-lease to release.');
    const picked = await vscode.window.showQuickPick(
      live.map(({ lease, pane }) => ({ label: lease.job_ref, description: [lease.description, lease.kind, lease.state].filter(Boolean).join(' · '), detail: `pane ${ctx.terminals.terminalOf(pane)?.name ?? pane}`, leaseId: lease.lease_id })),
      { title: 'Leasehold: Release Wait-Lease', placeHolder: 'Release which wait-lease? (Release is not completion: the job may still run.)' },
    );
    leaseId = given(picked).leaseId;
  }
  const result = await client.releaseWaitLeaseByOwner(leaseId, stringArg(arg, 'reason') ?? 'released from VS Code');
  ctx.scheduleRefresh({ panes: true });
  void vscode.window.showInformationMessage(`Leasehold: released wait-lease ${stringArg(arg, 'jobRef') ?? leaseId}.`);
  return result;
}

async function showLedger(ctx: Ctx, arg?: unknown) {
  const rows = await requireClient(ctx).ledger({ limit: typeof (arg as { limit?: unknown } | undefined)?.limit === 'number' ? (arg as { limit: number }).limit : 500 });
  const labels = new Map(ctx.rows().map((row) => [row.pane, row.label]));
  const descriptions = new Map([...ctx.panes.values()].flatMap((snapshot) => snapshot.pane.leases.map((lease) => [lease.lease_id, lease.description ?? undefined] as const)));
  ctx.ledgerText = ledgerMarkdown(rows, Date.now(), { paneLabel: (pane) => labels.get(pane), description: (id) => descriptions.get(id) });
  const uri = vscode.Uri.parse(`${LEDGER_SCHEME}:/Leasehold%20Ledger.md`);
  ctx.ledgerChanged.fire(uri);
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(document, 'markdown');
  // A rendered table, not Markdown source.
  await vscode.commands.executeCommand('markdown.showPreview', uri);
  return { rows: rows.length };
}

export const COMMANDS: Record<string, Handler> = {
  'leasehold.vendEndpoint': vendEndpoint,
  'leasehold.editEndpointLeaseTtl': editEndpointLeaseTtl,
  'leasehold.resetEndpointLeaseTtl': resetEndpointLeaseTtl,
  'leasehold.revokeEndpoint': revokeEndpoint,
  'leasehold.copyMcpConfig': copyMcpConfig,
  'leasehold.addTodo': addTodo,
  'leasehold.copyTodoId': copyTodoId,
  'leasehold.requeueTodo': requeueTodo,
  'leasehold.installHooks': (ctx, arg) => runHooksCommand(ctx, 'install', arg),
  'leasehold.uninstallHooks': (ctx, arg) => runHooksCommand(ctx, 'uninstall', arg),
  'leasehold.releaseWaitLease': releaseWaitLease,
  'leasehold.showLedger': showLedger,
  'leasehold.showLog': (ctx) => ctx.log.show(),
  'leasehold.restartServer': async (ctx) => {
    await ctx.supervisor.restart();
    return { state: ctx.supervisor.state };
  },
  'leasehold.refresh': async (ctx) => {
    await ctx.refreshNow();
    return { endpoints: ctx.endpoints?.length ?? 0, panes: ctx.panes.size };
  },
  'leasehold.openRuntimeSetting': () => vscode.commands.executeCommand('workbench.action.openSettings', 'leasehold.serverRuntime'),
};

function describe(error: unknown): { code: string; message: string; field?: string } {
  if (error instanceof UserError) return { code: error.code, message: error.message };
  if (error instanceof LeaseholdApiError) return { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) };
  if (error instanceof ServerUnreachableError) return { code: 'server_unreachable', message: `${error.message}. Run "Leasehold: Restart Server", or see "Leasehold: Show Log".` };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

export function registerCommands(ctx: Ctx): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(ctx, ...args);
      } catch (error) {
        if (error instanceof Cancelled) return { cancelled: true };
        const problem = describe(error);
        ctx.log.warn(`${id}: ${problem.code}: ${problem.message}`);
        if (error instanceof ServerUnreachableError) void ctx.supervisor.suspectDown(problem.message);
        void vscode.window.showErrorMessage(`Leasehold: ${problem.message}`, 'Show Log').then((choice) => {
          if (choice) ctx.log.show();
        });
        return { error: problem };
      }
    }),
  );
}
