import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaseholdError } from '../../../src/core/errors.ts';
import {
  buildHookCommand,
  HOOKED_EVENTS,
  hooksStatus,
  installHooks,
  LEASEHOLD_HOOK_MARKER,
  POST_TOOL_USE_MATCHER,
  settingsPathFor,
  shellQuote,
  uninstallHooks,
} from '../../../src/claude/settingsInstaller.ts';

const HOOK = buildHookCommand('/opt/leasehold/dist/cli.cjs', '/usr/local/bin/node');

describe('Claude Code hooks installer', () => {
  let root: string;
  let home: string;
  let project: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'leasehold-hooks-'));
    home = join(root, 'home');
    project = join(root, 'project');
    mkdirSync(home);
    mkdirSync(project);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const user = () => ({ scope: 'user' as const, homeDir: home, hookCommand: HOOK });
  const settingsFile = () => join(home, '.claude', 'settings.json');
  const read = (path = settingsFile()) => JSON.parse(readFileSync(path, 'utf8'));

  it('puts each scope in the file Claude Code reads for it', () => {
    assert.equal(settingsPathFor({ scope: 'user', homeDir: home }), join(home, '.claude', 'settings.json'));
    assert.equal(settingsPathFor({ scope: 'project', projectDir: project }), join(project, '.claude', 'settings.json'));
    assert.equal(settingsPathFor({ scope: 'local', projectDir: project }), join(project, '.claude', 'settings.local.json'));
    assert.throws(() => settingsPathFor({ scope: 'local' }), /project directory/);
  });

  it('creates the settings file with one entry per hooked event, a short timeout and the tool matcher', () => {
    const summary = installHooks(user());
    assert.equal(summary.created, true);
    assert.deepEqual(summary.added, [...HOOKED_EVENTS]);
    const hooks = read().hooks;
    assert.deepEqual(Object.keys(hooks), [...HOOKED_EVENTS]);
    assert.deepEqual(hooks.PostToolUse, [
      {
        matcher: POST_TOOL_USE_MATCHER,
        hooks: [{ type: 'command', command: `"/usr/local/bin/node" "/opt/leasehold/dist/cli.cjs" hook PostToolUse ${LEASEHOLD_HOOK_MARKER}`, timeout: 10, async: true }],
      },
    ]);
    assert.equal(hooks.Stop[0].matcher, undefined);
    // Off the agent's critical path only where order cannot matter on the server.
    const asyncEvents = HOOKED_EVENTS.filter((event) => hooks[event][0].hooks[0].async === true);
    assert.deepEqual(asyncEvents, ['Notification', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure']);
    assert.ok(readFileSync(settingsFile(), 'utf8').endsWith('}\n'));
  });

  it('writes a command that runs in sh from any directory, even with spaces and $ in the paths', () => {
    const dir = join(root, 'my $dir "x"');
    mkdirSync(dir);
    const script = join(dir, 'cli.mjs');
    writeFileSync(script, 'console.log(JSON.stringify(process.argv.slice(2)))');
    const command = `${buildHookCommand(script)} Stop ${LEASEHOLD_HOOK_MARKER}`;
    const out = execFileSync('sh', ['-c', command], { cwd: tmpdir(), encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), ['hook', 'Stop']);
    assert.equal(shellQuote('a`b'), '"a\\`b"');
  });

  it('keeps every other key and hook untouched, in the file’s own indentation', () => {
    mkdirSync(join(home, '.claude'));
    const original = {
      model: 'opus',
      permissions: { allow: ['Bash(npm test:*)'] },
      hooks: {
        PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'prettier --write' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }],
      },
    };
    writeFileSync(settingsFile(), JSON.stringify(original, null, 4) + '\n');
    installHooks(user());
    const text = readFileSync(settingsFile(), 'utf8');
    assert.match(text, /^ {4}"model"/m, 'four-space file stays four-space');
    const after = read();
    assert.equal(after.model, 'opus');
    assert.deepEqual(after.permissions, original.permissions);
    assert.deepEqual(after.hooks.PreToolUse, original.hooks.PreToolUse);
    assert.deepEqual(after.hooks.PostToolUse[0], original.hooks.PostToolUse[0]);
    assert.equal(after.hooks.PostToolUse.length, 2);
  });

  it('installing twice changes nothing: same bytes, no new backup, summary says unchanged', () => {
    installHooks(user());
    const first = readFileSync(settingsFile());
    const second = installHooks(user());
    assert.equal(second.changed, false);
    assert.deepEqual(second.added, []);
    assert.deepEqual(second.unchanged, [...HOOKED_EVENTS]);
    assert.ok(readFileSync(settingsFile()).equals(first));
  });

  it('backs the file up once, before the first change, and never overwrites that backup', () => {
    mkdirSync(join(home, '.claude'));
    writeFileSync(settingsFile(), '{\n  "theme": "dark"\n}\n');
    const summary = installHooks(user());
    const backup = `${settingsFile()}.leasehold-backup`;
    assert.equal(summary.backup, backup);
    assert.equal(readFileSync(backup, 'utf8'), '{\n  "theme": "dark"\n}\n');
    uninstallHooks(user());
    installHooks({ ...user(), hookCommand: buildHookCommand('/elsewhere/cli.cjs', '/usr/bin/node') });
    assert.equal(readFileSync(backup, 'utf8'), '{\n  "theme": "dark"\n}\n');
  });

  it('replaces an entry from an older install (moved runtime) instead of duplicating it', () => {
    installHooks(user());
    const moved = buildHookCommand('/opt/leasehold-2/dist/cli.cjs', '/usr/local/bin/node');
    assert.deepEqual(hooksStatus({ ...user(), hookCommand: moved }).outdated, [...HOOKED_EVENTS]);
    const summary = installHooks({ ...user(), hookCommand: moved });
    assert.deepEqual(summary.updated, [...HOOKED_EVENTS]);
    const stop = read().hooks.Stop;
    assert.equal(stop.length, 1);
    assert.match(stop[0].hooks[0].command, /leasehold-2/);
  });

  it('uninstall removes exactly what install added and restores the original content', () => {
    mkdirSync(join(home, '.claude'));
    const original = '{\n  "theme": "dark",\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n            "type": "command",\n            "command": "say done"\n          }\n        ]\n      }\n    ]\n  }\n}\n';
    writeFileSync(settingsFile(), original);
    installHooks(user());
    assert.equal(read().hooks.Stop.length, 2);
    const summary = uninstallHooks(user());
    assert.deepEqual([...summary.removed].sort(), [...HOOKED_EVENTS].sort());
    assert.equal(readFileSync(settingsFile(), 'utf8'), original);
  });

  it('uninstall deletes a settings file that only Leasehold created', () => {
    installHooks({ scope: 'local', projectDir: project, hookCommand: HOOK });
    const path = join(project, '.claude', 'settings.local.json');
    assert.ok(existsSync(path));
    const summary = uninstallHooks({ scope: 'local', projectDir: project });
    assert.equal(summary.deleted, true);
    assert.equal(existsSync(path), false);
  });

  it('uninstall leaves a file without Leasehold entries alone', () => {
    mkdirSync(join(home, '.claude'));
    writeFileSync(settingsFile(), '{"theme":"dark"}');
    const summary = uninstallHooks(user());
    assert.equal(summary.changed, false);
    assert.equal(readFileSync(settingsFile(), 'utf8'), '{"theme":"dark"}');
  });

  it('refuses a settings file that is not valid JSON, naming the file and position, and changes nothing', () => {
    mkdirSync(join(home, '.claude'));
    const broken = '{\n  "theme": "dark",\n  "hooks": {,}\n}\n';
    writeFileSync(settingsFile(), broken);
    assert.throws(
      () => installHooks(user()),
      (error: unknown) => {
        assert.ok(error instanceof LeaseholdError);
        assert.equal(error.code, 'invalid_argument');
        assert.ok(error.message.includes(settingsFile()), error.message);
        assert.match(error.message, /line 3, column 13/);
        assert.match(error.message, /changed nothing/);
        return true;
      },
    );
    assert.equal(readFileSync(settingsFile(), 'utf8'), broken);
    assert.equal(existsSync(`${settingsFile()}.leasehold-backup`), false);
  });

  it('refuses a hooks section of the wrong shape rather than guessing', () => {
    mkdirSync(join(home, '.claude'));
    writeFileSync(settingsFile(), '{"hooks": {"Stop": {"command": "x"}}}');
    assert.throws(() => installHooks(user()), /hooks\.Stop" must be an array/);
  });

  it('status reports what is installed, missing and outdated', () => {
    assert.deepEqual(hooksStatus(user()).missing, [...HOOKED_EVENTS]);
    installHooks(user());
    const status = hooksStatus(user());
    assert.deepEqual(status.installed, [...HOOKED_EVENTS]);
    assert.deepEqual(status.missing, []);
  });
});

describe('hook command runtime', () => {
  it("runs VS Code's Electron runtime as Node, so a hook never opens a window", () => {
    assert.equal(
      buildHookCommand('/ext/dist/cli/hook.js', '/usr/share/code/code', true),
      'ELECTRON_RUN_AS_NODE=1 "/usr/share/code/code" "/ext/dist/cli/hook.js" hook',
    );
    assert.equal(buildHookCommand('/x/hook.js', '/usr/bin/node', false), '"/usr/bin/node" "/x/hook.js" hook');
  });
});
