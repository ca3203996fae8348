// The real-Claude-Code harness itself: the pinned `claude` binary talks to the scripted
// model stand-in (the ONLY fake in this suite: there is no model here) and runs a real tool.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { claudeVersion, makeClaudeHome, runClaudeHeadless } from './support/claudeCode.ts';
import type { ClaudeHome } from './support/claudeCode.ts';
import { startModelStandIn, text, toolUse, turn } from './support/modelStandIn.ts';
import type { ModelStandIn } from './support/modelStandIn.ts';

const PINNED = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).devDependencies['@anthropic-ai/claude-code'] as string;

describe('real Claude Code harness (stand-in model API)', function () {
  this.timeout(90_000);
  let model: ModelStandIn;
  let home: ClaudeHome;
  beforeEach(async () => {
    model = await startModelStandIn();
    home = makeClaudeHome();
  });
  afterEach(async () => {
    await model.close();
    home.cleanup();
  });

  it('runs the pinned Claude Code version', () => {
    assert.equal(claudeVersion(), PINNED);
  });

  it('plays a scripted tool call through the real CLI and records every request', async () => {
    const marker = path.join(home.workDir, 'ran.txt');
    model.script(turn([toolUse('Bash', { command: `echo ok > ${marker}`, description: 'write a marker' })]), text('All done.'));
    const run = await runClaudeHeadless({ home, model, prompt: 'write the marker', allowedTools: ['Bash'] });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json?.result, 'All done.');
    assert.equal(fs.readFileSync(marker, 'utf8').trim(), 'ok');
    const turns = model.turnRequests();
    assert.equal(turns.length, 2);
    // The second turn carries the Bash result back to the model.
    assert.match(JSON.stringify(turns[1]!.messages), /tool_result/);
  });
});
