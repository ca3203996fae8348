// `leasehold hooks install|uninstall|status` over src/claude/settingsInstaller.ts, and
// `leasehold mcp-config ENDPOINT` over src/claude/mcpConfig.ts.
import type { Command } from 'commander';
import { buildHookCommand, hooksStatus, installHooks, settingsPathFor, uninstallHooks } from '../../claude/settingsInstaller.ts';
import type { SettingsScope } from '../../claude/settingsInstaller.ts';
import { buildMcpAddCommand, buildMcpJson, mcpApprovalAdvice, writeMcpApproval, writeMcpConfig } from '../../claude/mcpConfig.ts';
import type { McpEndpoint } from '../../claude/mcpConfig.ts';
import { connect, type ConnectionOptions } from '../connect.ts';
import { locateHookBundle } from '../hookBundle.ts';
import { printJson, UsageError } from '../output.ts';

const SCOPES: SettingsScope[] = ['user', 'project', 'local'];

interface TargetOptions {
  scope?: string;
  projectDir?: string;
}

function target(options: TargetOptions): { scope: SettingsScope; projectDir: string } {
  const scope = (options.scope ?? 'user') as SettingsScope;
  if (!SCOPES.includes(scope)) throw new UsageError(`--scope must be one of ${SCOPES.join(', ')} (got "${options.scope}")`);
  return { scope, projectDir: options.projectDir ?? process.cwd() };
}

/** The command written into settings: this Node and the hook bundle, both absolute, so any shell can run it. */
function hookCommand(): string {
  const bundle = locateHookBundle();
  if (bundle === undefined) throw new UsageError('the hook bundle dist/cli/hook.js was not found next to this CLI; build it with `node scripts/build.mjs`');
  return buildHookCommand(bundle, process.execPath);
}

const list = (events: string[]) => (events.length ? events.join(', ') : 'none');

export function registerHooks(program: Command): void {
  const hooks = program.command('hooks').description("install Leasehold's hooks into Claude Code settings, remove them, or show them");
  const json = (command: Command) => (command.optsWithGlobals() as { json?: boolean }).json === true;
  const scopeOption = '--scope <scope>';
  const scopeHelp = 'user (~/.claude/settings.json, default), project (<dir>/.claude/settings.json) or local (<dir>/.claude/settings.local.json)';

  hooks
    .command('install')
    .description('merge the hook entries into a Claude Code settings file (idempotent; backs the file up before the first change)')
    .option(scopeOption, scopeHelp)
    .option('--project-dir <dir>', 'project directory for project/local scope (default: the current directory)')
    .action((options: TargetOptions, command: Command) => {
      const summary = installHooks({ ...target(options), hookCommand: hookCommand() });
      if (json(command)) return printJson(summary);
      if (!summary.changed) {
        process.stdout.write(`Leasehold hooks are already installed in ${summary.file}; nothing changed.\n`);
        return;
      }
      process.stdout.write(
        `${summary.created ? 'Created' : 'Updated'} ${summary.file}: hooks for ${list(summary.added)}` +
          `${summary.updated.length ? ` (replaced older entries for ${list(summary.updated)})` : ''}.\n` +
          (summary.backup ? `Backup of the previous file: ${summary.backup}\n` : ''),
      );
    });

  hooks
    .command('uninstall')
    .description('remove exactly the entries Leasehold added')
    .option(scopeOption, scopeHelp)
    .option('--project-dir <dir>', 'project directory for project/local scope (default: the current directory)')
    .action((options: TargetOptions, command: Command) => {
      const summary = uninstallHooks(target(options));
      if (json(command)) return printJson(summary);
      if (!summary.changed) {
        process.stdout.write(`No Leasehold hooks in ${summary.file}; nothing changed.\n`);
        return;
      }
      process.stdout.write(`Removed Leasehold hooks for ${list(summary.removed)} from ${summary.file}${summary.deleted ? ' (the file held nothing else and was removed)' : ''}.\n`);
    });

  hooks
    .command('status')
    .description('show which hook entries are installed, missing or outdated')
    .option(scopeOption, scopeHelp)
    .option('--project-dir <dir>', 'project directory for project/local scope (default: the current directory)')
    .action((options: TargetOptions, command: Command) => {
      const where = target(options);
      const command_ = hookCommand();
      const status = hooksStatus({ ...where, hookCommand: command_ });
      if (json(command)) return printJson({ ...status, scope: where.scope, hook_command: command_ });
      process.stdout.write(
        `${settingsPathFor(where)}${status.exists ? '' : ' (does not exist)'}\n` +
          `installed: ${list(status.installed)}\nmissing:   ${list(status.missing)}\noutdated:  ${list(status.outdated)}\n` +
          `hook command: ${command_}\n`,
      );
    });
}

/** The env var the printed config reads the token from when no token was given. */
export const ENDPOINT_TOKEN_ENV = 'LEASEHOLD_ENDPOINT_TOKEN';

export function registerMcpConfig(program: Command): void {
  program
    .command('mcp-config <endpoint>')
    .description("print the .mcp.json entry and the `claude mcp add` line for an endpoint's MCP URL; --write merges it into the project's .mcp.json")
    .option('--token <token>', `the endpoint token (shown once, at vend; env ${ENDPOINT_TOKEN_ENV})`)
    .option('--token-env <VAR>', 'write "Bearer ${VAR}" so Claude Code reads the token from the environment instead of the file')
    .option('--url <url>', 'the MCP URL (default: the running server\'s /mcp)')
    .option('--mcp-scope <scope>', 'scope for the printed `claude mcp add` line: local, project (default) or user', 'project')
    .option('--write', "merge the entry into <project dir>/.mcp.json (idempotent; backs it up before the first change)")
    .option(
      '--approve',
      "with your consent: approve the server and allow its tools for Claude Code in <project dir>/.claude/settings.local.json (enabledMcpjsonServers, permissions.allow 'mcp__leasehold-<slug>__*'); without it, Claude Code keeps the server 'Pending approval' and headless runs need --allowedTools",
    )
    .option('--project-dir <dir>', 'project directory for --write and --approve (default: the current directory)')
    .action(
      async (
        ref: string,
        options: { token?: string; tokenEnv?: string; url?: string; mcpScope: string; write?: boolean; approve?: boolean; projectDir?: string },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals() as ConnectionOptions & { json?: boolean };
        if (!['local', 'project', 'user'].includes(options.mcpScope)) throw new UsageError('--mcp-scope must be local, project or user');
        // `--token` here is the endpoint's token. Commander gives it to the program-wide
        // --token (the human API token) when it is declared there too, so both are read as
        // the endpoint token, and the server lookup uses LEASEHOLD_TOKEN or the token file.
        const endpointToken = options.token ?? globals.token;
        let slug = ref;
        let url = options.url;
        if (url === undefined) {
          const client = connect({ ...globals, token: undefined }, 5_000);
          slug = (await client.getEndpoint(ref)).slug;
          url = `${client.baseUrl}/mcp`;
        }
        const token = endpointToken ?? (process.env[ENDPOINT_TOKEN_ENV] || undefined);
        const endpoint: McpEndpoint = { slug, url, token: token ?? '' };
        let notice: string | undefined;
        if (options.tokenEnv !== undefined) endpoint.tokenEnvVar = options.tokenEnv;
        else if (token === undefined) {
          endpoint.tokenEnvVar = ENDPOINT_TOKEN_ENV;
          notice =
            `No endpoint token given: Leasehold shows a token only once, when the endpoint is vended, and never stores it. ` +
            `This config reads it from $${ENDPOINT_TOKEN_ENV} when Claude Code starts; set that variable, or pass --token TOKEN ` +
            `(or re-vend the endpoint with \`leasehold endpoint vend\` to get a new one).`;
        }
        const mcpJson = buildMcpJson(endpoint);
        const addLine = buildMcpAddCommand(endpoint, options.mcpScope as 'local' | 'project' | 'user');
        const written = options.write ? writeMcpConfig(options.projectDir ?? process.cwd(), endpoint) : undefined;
        const approved = options.approve ? writeMcpApproval(options.projectDir ?? process.cwd(), slug) : undefined;
        if (notice) process.stderr.write(`leasehold: ${notice}\n`);
        if (globals.json) {
          return printJson({
            mcp_json: mcpJson,
            claude_mcp_add: addLine,
            token_in_config: endpoint.tokenEnvVar === undefined,
            ...(written ? { written } : {}),
            ...(approved ? { approved } : { approval_needed: mcpApprovalAdvice(slug) }),
          });
        }
        process.stdout.write(`# .mcp.json\n${JSON.stringify(mcpJson, null, 2)}\n\n# or, with the Claude Code CLI:\n${addLine}\n`);
        if (written) {
          process.stdout.write(
            written.changed
              ? `\n${written.created ? 'Created' : 'Updated'} ${written.file}${written.replaced ? ` (replaced the earlier ${written.serverName} entry)` : ''}.${written.backup ? ` Backup: ${written.backup}` : ''}\n`
              : `\n${written.file} already holds this entry; nothing changed.\n`,
          );
          if (written.containsSecret) process.stdout.write(`Note: ${written.file} now holds the token in clear text; do not commit it (or use --token-env VAR).\n`);
        }
        if (approved) {
          process.stdout.write(
            approved.changed
              ? `\n${approved.created ? 'Created' : 'Updated'} ${approved.file}: approved ${approved.serverName} (enabledMcpjsonServers${approved.unrejected ? ', and removed it from disabledMcpjsonServers' : ''}) and allowed its tools (permissions.allow ${approved.permissionRule}).${approved.backup ? ` Backup: ${approved.backup}` : ''}\n`
              : `\n${approved.file} already approves ${approved.serverName} and allows ${approved.permissionRule}; nothing changed.\n`,
          );
        } else {
          process.stdout.write(`\n${mcpApprovalAdvice(slug)}\n`);
        }
      },
    );
}
