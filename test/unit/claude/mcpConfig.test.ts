import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMcpAddCommand, buildMcpJson, mcpApprovalAdvice, writeMcpApproval, writeMcpConfig } from '../../../src/claude/mcpConfig.ts';

const ENDPOINT = { slug: 'reviewer', url: 'http://127.0.0.1:41234/mcp', token: 'lh_tok_abc123' };

describe('MCP config for Claude Code', () => {
  let project: string;
  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'leasehold-mcp-'));
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  const mcpJson = () => join(project, '.mcp.json');

  it('approval: enabledMcpjsonServers and permissions.allow in .claude/settings.local.json, merged, idempotent, un-rejecting', () => {
    const local = join(project, '.claude', 'settings.local.json');
    const first = writeMcpApproval(project, 'reviewer');
    assert.deepEqual([first.created, first.changed, first.permissionRule], [true, true, 'mcp__leasehold-reviewer__*']);
    assert.deepEqual(JSON.parse(readFileSync(local, 'utf8')), {
      enabledMcpjsonServers: ['leasehold-reviewer'],
      permissions: { allow: ['mcp__leasehold-reviewer__*'] },
    });
    const text = readFileSync(local, 'utf8');
    assert.equal(writeMcpApproval(project, 'reviewer').changed, false);
    assert.equal(readFileSync(local, 'utf8'), text, 'a second approval leaves the file byte-identical');

    writeFileSync(local, JSON.stringify({ disabledMcpjsonServers: ['leasehold-triage', 'x'], permissions: { allow: ['Bash(ls)'], deny: ['Read(.env)'] }, other: 1 }));
    const unrejected = writeMcpApproval(project, 'triage');
    assert.equal(unrejected.unrejected, true);
    assert.deepEqual(JSON.parse(readFileSync(local, 'utf8')), {
      disabledMcpjsonServers: ['x'],
      permissions: { allow: ['Bash(ls)', 'mcp__leasehold-triage__*'], deny: ['Read(.env)'] },
      other: 1,
      enabledMcpjsonServers: ['leasehold-triage'],
    });
    writeFileSync(local, JSON.stringify({ enabledMcpjsonServers: 'leasehold-triage' }));
    assert.throws(() => writeMcpApproval(project, 'triage'), /"enabledMcpjsonServers" must be an array of strings; Leasehold changed nothing/);
    assert.match(mcpApprovalAdvice('reviewer'), /Pending approval.*--allowedTools 'mcp__leasehold-reviewer__\*'.*--approve/);
  });

  it('builds the .mcp.json entry: an http server with a bearer header', () => {
    assert.deepEqual(buildMcpJson(ENDPOINT), {
      mcpServers: {
        'leasehold-reviewer': { type: 'http', url: 'http://127.0.0.1:41234/mcp', headers: { Authorization: 'Bearer lh_tok_abc123' } },
      },
    });
  });

  it('builds the equivalent claude mcp add line, with --header after the url as the docs show', () => {
    assert.equal(
      buildMcpAddCommand(ENDPOINT),
      "claude mcp add --transport http --scope project leasehold-reviewer 'http://127.0.0.1:41234/mcp' --header 'Authorization: Bearer lh_tok_abc123'",
    );
  });

  it('quotes the add line so a shell passes every value through unchanged', () => {
    const odd = { ...ENDPOINT, token: "it's $HOME `x`" };
    const line = buildMcpAddCommand(odd).replace(/^claude /, 'printf "%s\\n" ');
    const words = execFileSync('sh', ['-c', line], { encoding: 'utf8' }).trimEnd().split('\n');
    assert.deepEqual(words.slice(-2), ['--header', "Authorization: Bearer it's $HOME `x`"]);
  });

  it('can reference the token through an environment variable instead of writing it', () => {
    const entry = buildMcpJson({ ...ENDPOINT, tokenEnvVar: 'LEASEHOLD_TOKEN' }).mcpServers['leasehold-reviewer'];
    assert.equal(entry.headers.Authorization, 'Bearer ${LEASEHOLD_TOKEN}');
  });

  it('refuses a slug, url or env var name Claude Code could not use', () => {
    assert.throws(() => buildMcpJson({ ...ENDPOINT, slug: 'Bad Slug' }), /slug/);
    assert.throws(() => buildMcpJson({ ...ENDPOINT, url: '127.0.0.1:4/mcp' }), /url/);
    assert.throws(() => buildMcpJson({ ...ENDPOINT, tokenEnvVar: 'not-a-var' }), /environment variable/);
  });

  it('creates .mcp.json and says the token is now in a file that is often committed', () => {
    const summary = writeMcpConfig(project, ENDPOINT);
    assert.equal(summary.created, true);
    assert.equal(summary.containsSecret, true);
    assert.deepEqual(JSON.parse(readFileSync(mcpJson(), 'utf8')), buildMcpJson(ENDPOINT));
  });

  it('merges beside other servers and keys without touching them, and is idempotent', () => {
    const original = { mcpServers: { github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } }, note: 'keep' };
    writeFileSync(mcpJson(), JSON.stringify(original, null, 2) + '\n');
    writeMcpConfig(project, ENDPOINT);
    const after = JSON.parse(readFileSync(mcpJson(), 'utf8'));
    assert.deepEqual(after.mcpServers.github, original.mcpServers.github);
    assert.equal(after.note, 'keep');
    const bytes = readFileSync(mcpJson());
    const again = writeMcpConfig(project, ENDPOINT);
    assert.equal(again.changed, false);
    assert.ok(readFileSync(mcpJson()).equals(bytes));
    assert.equal(existsSync(`${mcpJson()}.leasehold-backup`), true);
  });

  it('replaces its own entry when the token changes', () => {
    writeMcpConfig(project, ENDPOINT);
    const summary = writeMcpConfig(project, { ...ENDPOINT, token: 'lh_tok_new' });
    assert.equal(summary.replaced, true);
    assert.equal(JSON.parse(readFileSync(mcpJson(), 'utf8')).mcpServers['leasehold-reviewer'].headers.Authorization, 'Bearer lh_tok_new');
  });

  it('refuses an invalid .mcp.json and changes nothing', () => {
    writeFileSync(mcpJson(), '{"mcpServers": {"a": 1,}}');
    assert.throws(() => writeMcpConfig(project, ENDPOINT), /\.mcp\.json is not valid JSON at line 1/);
    assert.equal(readFileSync(mcpJson(), 'utf8'), '{"mcpServers": {"a": 1,}}');
  });
});
