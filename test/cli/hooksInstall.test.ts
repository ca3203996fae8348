// `leasehold hooks install|uninstall|status` and `leasehold mcp-config` as a user runs them:
// real processes on real settings files in a scratch HOME and project.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOOKED_EVENTS } from '../../src/claude/settingsInstaller.ts';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/storage.ts';

const HOOK_BUNDLE = fileURLToPath(new URL('../../dist/cli/hook.js', import.meta.url));

describe('leasehold hooks / mcp-config (real processes)', function () {
  this.timeout(60_000);
  let home: string;
  let project: string;
  const env = () => ({ HOME: home, LEASEHOLD_RUNTIME_DIR: join(home, 'run') });

  beforeEach(() => {
    home = tempDir('home');
    project = tempDir('project');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('merges into user settings without touching anything else, idempotently, with one backup; uninstall removes exactly what it added', async () => {
    const settingsPath = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    const original = {
      model: 'opus',
      hooks: { PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'prettier --write' }] }], Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] },
    };
    const originalText = `${JSON.stringify(original, null, 4)}\n`;
    writeFileSync(settingsPath, originalText);

    const first = await runCli(['hooks', 'install', '--json'], { env: env() });
    assert.equal(first.code, 0, first.stderr);
    const summary = JSON.parse(first.stdout);
    assert.equal(summary.changed, true);
    assert.equal(summary.backup, `${settingsPath}.leasehold-backup`);
    assert.equal(readFileSync(summary.backup, 'utf8'), originalText, 'the backup is the file as it was');

    const installed = JSON.parse(readFileSync(settingsPath, 'utf8'));
    assert.equal(installed.model, 'opus');
    assert.deepEqual(installed.hooks.PostToolUse[0], original.hooks.PostToolUse[0], "another tool's group is untouched");
    assert.deepEqual(installed.hooks.Stop[0], original.hooks.Stop[0]);
    const ours = installed.hooks.PostToolUse[1];
    assert.equal(ours.matcher, '*', 'every tool: any tool that ran after a prompt ends "blocked"');
    assert.equal(ours.hooks[0].async, true);
    const command: string = ours.hooks[0].command;
    assert.ok(command.startsWith(`"${process.execPath}" "${HOOK_BUNDLE}" hook PostToolUse`), command);
    assert.match(readFileSync(settingsPath, 'utf8'), /^ {4}"model"/m, 'keeps the 4-space indent');

    const afterFirst = readFileSync(settingsPath, 'utf8');
    const second = await runCli(['hooks', 'install'], { env: env() });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /already installed.*nothing changed/);
    assert.equal(readFileSync(settingsPath, 'utf8'), afterFirst, 'installing twice changes nothing');

    const status = await runCli(['hooks', 'status', '--json'], { env: env() });
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout).missing, []);
    assert.equal(JSON.parse(status.stdout).installed.length, HOOKED_EVENTS.length);

    const removed = await runCli(['hooks', 'uninstall', '--json'], { env: env() });
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(readFileSync(settingsPath, 'utf8')), original, 'uninstall removes exactly what install added');
    const statusAfter = await runCli(['hooks', 'status', '--json'], { env: env() });
    assert.equal(JSON.parse(statusAfter.stdout).installed.length, 0);
  });

  it('the installed command runs the hook from a plain sh with no PATH', async () => {
    await runCli(['hooks', 'install', '--scope', 'project', '--project-dir', project], { env: env() });
    const settings = JSON.parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'));
    const command: string = settings.hooks.PreToolUse === undefined ? settings.hooks.UserPromptSubmit[0].hooks[0].command : '';
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync('/bin/sh', ['-c', command], {
      env: { HOME: home, LEASEHOLD_RUNTIME_DIR: join(home, 'run') },
      input: JSON.stringify({ session_id: 's1', hook_event_name: 'UserPromptSubmit', prompt: 'hi' }),
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, '', 'prints nothing on stdout');
    assert.equal(readFileSync(join(home, 'run', 'spool', readFileSync(join(home, 'run', 'hook.log'), 'utf8').match(/spooled event (\S+)/)![1]! + '.json'), 'utf8').includes('"working"'), true);
  });

  it('local scope writes .claude/settings.local.json; refuses a settings file that is not JSON and changes nothing', async () => {
    const local = await runCli(['hooks', 'install', '--scope', 'local', '--project-dir', project], { env: env() });
    assert.equal(local.code, 0, local.stderr);
    assert.ok(existsSync(join(project, '.claude', 'settings.local.json')));
    assert.ok(!existsSync(join(project, '.claude', 'settings.json')));

    const broken = '{ "hooks": { "Stop": [ }\n';
    writeFileSync(join(project, '.claude', 'settings.json'), broken);
    const refused = await runCli(['hooks', 'install', '--scope', 'project', '--project-dir', project], { env: env() });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /settings\.json is not valid JSON[^]*Leasehold changed nothing/);
    assert.equal(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'), broken);
    assert.ok(!existsSync(join(project, '.claude', 'settings.json.leasehold-backup')));
    const refusedUninstall = await runCli(['hooks', 'uninstall', '--scope', 'project', '--project-dir', project], { env: env() });
    assert.equal(refusedUninstall.code, 1);

    const badScope = await runCli(['hooks', 'install', '--scope', 'team'], { env: env() });
    assert.equal(badScope.code, 2);
    assert.match(badScope.stderr, /--scope must be one of user, project, local/);
  });

  it('mcp-config prints the .mcp.json entry and the claude mcp add line; --write merges idempotently; a missing token is said plainly', async () => {
    const url = 'http://127.0.0.1:4555/mcp';
    const printed = await runCli(['mcp-config', 'reviewer', '--url', url, '--token', 'lhe_secret'], { env: env() });
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /"leasehold-reviewer": \{\n\s+"type": "http",\n\s+"url": "http:\/\/127\.0\.0\.1:4555\/mcp"/);
    assert.match(printed.stdout, /claude mcp add --transport http --scope project leasehold-reviewer 'http:\/\/127\.0\.0\.1:4555\/mcp' --header 'Authorization: Bearer lhe_secret'/);

    const missing = await runCli(['mcp-config', 'reviewer', '--url', url], { env: env() });
    assert.equal(missing.code, 0, missing.stderr);
    assert.match(missing.stderr, /No endpoint token given: Leasehold shows a token only once, when the endpoint is vended/);
    assert.match(missing.stdout, /Bearer \$\{LEASEHOLD_ENDPOINT_TOKEN\}/);

    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { other: { type: 'stdio', command: 'x' } } }, null, 2));
    const write = await runCli(['mcp-config', 'reviewer', '--url', url, '--write', '--project-dir', project, '--json'], {
      env: { ...env(), LEASEHOLD_ENDPOINT_TOKEN: 'lhe_fromenv' },
    });
    assert.equal(write.code, 0, write.stderr);
    const config = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
    assert.deepEqual(config.mcpServers.other, { type: 'stdio', command: 'x' });
    assert.equal(config.mcpServers['leasehold-reviewer'].headers.Authorization, 'Bearer lhe_fromenv');
    const text = readFileSync(join(project, '.mcp.json'), 'utf8');
    const again = await runCli(['mcp-config', 'reviewer', '--url', url, '--write', '--project-dir', project], { env: { ...env(), LEASEHOLD_ENDPOINT_TOKEN: 'lhe_fromenv' } });
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already holds this entry; nothing changed/);
    assert.equal(readFileSync(join(project, '.mcp.json'), 'utf8'), text);
    assert.match(again.stdout, /"Pending approval".*--allowedTools 'mcp__leasehold-reviewer__\*'.*Pass --approve/s, 'without consent it says what is needed');
    assert.equal(existsSync(join(project, '.claude', 'settings.local.json')), false, 'and writes no approval');

    const approve = await runCli(['mcp-config', 'reviewer', '--url', url, '--write', '--approve', '--project-dir', project], { env: { ...env(), LEASEHOLD_ENDPOINT_TOKEN: 'lhe_fromenv' } });
    assert.equal(approve.code, 0, approve.stderr);
    assert.match(approve.stdout, /approved leasehold-reviewer \(enabledMcpjsonServers\) and allowed its tools \(permissions\.allow mcp__leasehold-reviewer__\*\)/);
    const local = JSON.parse(readFileSync(join(project, '.claude', 'settings.local.json'), 'utf8'));
    assert.deepEqual([local.enabledMcpjsonServers, local.permissions.allow], [['leasehold-reviewer'], ['mcp__leasehold-reviewer__*']]);
  });
});
