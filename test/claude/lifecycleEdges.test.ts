// The edges of Claude Code's lifecycle (issue 8 items 5-7), against the REAL Claude Code CLI
// (the pinned devDependency) running interactively in tmux with Leasehold's hooks installed by
// `leasehold hooks install`, a real `leasehold serve` and real hook processes. The ONLY fake
// is the scripted stand-in for the Anthropic Messages API (there is no model here).
import assert from 'node:assert/strict';
import { startClaudeInteractive } from './support/claudeCode.ts';
import type { ClaudeTui } from './support/claudeCode.ts';
import { startLeaseholdWorld } from './support/leaseholdWorld.ts';
import type { LeaseholdWorld } from './support/leaseholdWorld.ts';
import { text, toolUse, turn } from './support/modelStandIn.ts';
import type { MessagesRequest, Turn } from './support/modelStandIn.ts';

const PANE = 'claude-pane';

/** True when the request comes from the subagent whose brief (first user message) holds `brief`. */
function fromSubagent(request: MessagesRequest, brief: string): boolean {
  return JSON.stringify(request.messages?.[0] ?? '').includes(brief) && !JSON.stringify(request.messages?.[0] ?? '').includes('tool_use');
}

/** A turn that answers the subagent with `forAgent` and the main thread with `forMain`. */
function routed(brief: string, forAgent: Turn, forMain: Turn): Turn {
  return (request) => (fromSubagent(request, brief) ? forAgent : forMain);
}

describe('real Claude Code: lifecycle edges (model API is a scripted stand-in)', function () {
  this.timeout(120_000);
  let world: LeaseholdWorld;
  let tui: ClaudeTui | undefined;

  beforeEach(async () => {
    world = await startLeaseholdWorld();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && tui) console.log(`--- screen ---\n${tui.screen()}\n--- hook log ---\n${world.hookLog()}`);
    await tui?.stop();
    tui = undefined;
    await world.stop();
  });

  async function startClaude(allowedTools = ['Bash', 'Agent', 'SendMessage', 'ToolSearch']): Promise<ClaudeTui> {
    tui = await startClaudeInteractive({ home: world.home, model: world.model, env: world.claudeEnv(PANE), args: ['--allowedTools', ...allowedTools] });
    await tui.waitForText('manual mode');
    await world.until(async () => (await world.pane(PANE)).sessions?.length, 'SessionStart to bind the pane');
    return tui;
  }

  it('a finished background agent resumed by SendMessage (SubagentStart again, same agent_id, no launch) gets a lease again (item 5)', async () => {
    const claude = await startClaude();
    const brief = 'brief-for-the-helper';
    // Launch: the main thread starts a background agent; the agent answers at once and finishes.
    world.model.setFallback(routed(brief, text('Helper done.'), text('Noted.')));
    world.model.script(turn([toolUse('Agent', { description: 'helper', prompt: brief, subagent_type: 'general-purpose', run_in_background: true })]));
    await claude.submit('launch a helper');
    const first = await world.until(async () => (await world.leases(PANE)).find((view) => view.job_type === 'subagent'), 'the subagent lease');
    const agentId = first.job_ref;
    await world.until(async () => (await world.leases(PANE)).find((view) => view.lease_id === first.lease_id && view.state === 'ended'), 'SubagentStop to release it');

    // Resume: SendMessage restarts the finished agent; this time it works (a foreground sleep).
    let resumedRunning = false;
    world.model.setFallback(
      routed(
        brief,
        (request) => {
          const last = JSON.stringify(request.messages?.at(-1) ?? '');
          if (last.includes('coordinator sent a message')) {
            resumedRunning = true;
            return turn([toolUse('Bash', { command: 'sleep 6', description: 'helper works' })]);
          }
          return text('Helper done again.');
        },
        text('Noted.'),
      ),
    );
    world.model.script(turn([toolUse('ToolSearch', { query: 'select:SendMessage', max_results: 5 })]), turn([toolUse('SendMessage', { to: agentId, message: 'once more please' })]));
    await claude.submit('message the helper again');
    const again = await world.until(
      async () => (await world.leases(PANE)).find((view) => view.job_ref === agentId && view.lease_id !== first.lease_id && view.state !== 'ended'),
      'a new lease for the resumed agent',
      30_000,
    );
    await world.until(() => resumedRunning, 'the resumed agent to start working');
    assert.notEqual((await world.client.getWaitLease(again.lease_id)).state, 'ended', 'held while the resumed agent works');
    assert.equal(again.job_type, 'subagent');
    assert.equal(again.kind, 'declared');
    const ended = await world.until(
      async () => (await world.leases(PANE)).find((view) => view.lease_id === again.lease_id && view.state === 'ended'),
      'the resumed agent to finish and release it',
      30_000,
    );
    assert.equal(ended.end_reason, 'released');
    const rows = (await world.ledger()).filter((row) => row.job_ref === agentId);
    assert.equal(rows.length, 2, `two runs, two ledger rows: ${JSON.stringify(rows)}\n${world.hookLog()}`);
    assert.ok(rows.every((row) => row.censoring === 'exact'), JSON.stringify(rows));
  });
});
