// The edges of Claude Code's lifecycle (issue 8 items 5-7), against the REAL Claude Code CLI
// (the pinned devDependency) running interactively in tmux with Leasehold's hooks installed by
// `leasehold hooks install`, a real `leasehold serve` and real hook processes. The ONLY fake
// is the scripted stand-in for the Anthropic Messages API (there is no model here).
import assert from 'node:assert/strict';
import { claudeBinary } from './support/claudeCode.ts';
import type { ClaudeTui } from './support/claudeCode.ts';
import { readProcessInfo } from '../../src/server/observe/processInfo.ts';
import fs from 'node:fs';
import path from 'node:path';
import { claudePerTest } from './support/leaseholdWorld.ts';
import { runHook } from '../support/hook.ts';
import type { LeaseholdWorld } from './support/leaseholdWorld.ts';
import { text, toolUse, turn } from './support/modelStandIn.ts';
import type { MessagesRequest, Turn } from './support/modelStandIn.ts';

const PANE = 'claude-pane';

/**
 * Records every hook payload Claude Code sends, beside Leasehold's own hooks: a project
 * settings file in the (trusted) work dir adds a command hook that appends stdin to a file.
 * Returns a reader of what was recorded so far.
 */
function recordPayloads(home: { workDir: string; dir: string }): () => Array<Record<string, unknown>> {
  const file = path.join(home.dir, 'payloads.jsonl');
  const events = ['SessionStart', 'UserPromptSubmit', 'Notification', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'StopFailure', 'SubagentStart', 'SubagentStop', 'SessionEnd'];
  const hooks = Object.fromEntries(events.map((event) => [event, [{ matcher: '', hooks: [{ type: 'command', command: `(cat; echo) >> '${file}'` }] }]]));
  fs.mkdirSync(path.join(home.workDir, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(home.workDir, '.claude', 'settings.json'), JSON.stringify({ hooks }));
  return () => {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  };
}

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
  const claudeIn = claudePerTest(PANE);
  let world: LeaseholdWorld;
  const claudeHome = () => claudeIn.world.home;
  const startClaude = async (allowedTools = ['Bash', 'Agent', 'SendMessage', 'ToolSearch'], env: NodeJS.ProcessEnv = {}): Promise<ClaudeTui> => {
    world = claudeIn.world;
    return claudeIn.start(allowedTools, env);
  };

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

  it('a permission prompt reads blocked, and working again as soon as the approved tool ran, while the turn goes on (item 6)', async () => {
    const recorded = recordPayloads(claudeHome());
    const claude = await startClaude(['Agent']); // Bash is not pre-approved: Claude Code asks
    let answering = false;
    world.model.script(turn([toolUse('Bash', { command: 'rm -f approved-run.txt', description: 'needs approval' })]), async () => {
      answering = true;
      await new Promise((resolve) => setTimeout(resolve, 4000)); // the model thinks after the tool ran
      return text('All done.');
    });
    await claude.submit('run the command');
    await claude.waitForText(/Do you want to proceed/);
    await world.until(async () => (await world.pane(PANE)).display_state === 'blocked', 'the prompt to read blocked');
    // "1. Yes". A key sent while the dialog is still settling can be lost: send it until the tool ran.
    await world.until(async () => {
      if (recorded().some((payload) => payload.hook_event_name === 'PostToolUse')) return true;
      if (/Do you want to proceed/.test(claude.screen())) await claude.keys('Enter');
      await new Promise((resolve) => setTimeout(resolve, 700));
      return false;
    }, 'the approved tool to run');
    await world
      .until(async () => (await world.pane(PANE)).display_state === 'working', 'the approved tool to read working again', 3000)
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\nrecorded: ${recorded().map((payload) => `${String(payload.hook_event_name)}:${String(payload.notification_type ?? payload.tool_name ?? '')}`).join(' ')}`);
      });
    assert.ok(!claude.screen().includes('All done.'), 'working came while the turn still ran, not at its end');
    await claude.waitForText('All done.');
    await world.until(async () => (await world.pane(PANE)).display_state === 'idle', 'Stop to read idle');
    assert.ok(answering);
    const events = recorded().map((payload) => `${String(payload.hook_event_name)}${payload.notification_type ? `:${String(payload.notification_type)}` : ''}`);
    assert.ok(events.includes('PermissionRequest'), events.join(' '));
    // The order Leasehold relies on: the prompt's own events come before the approved tool's PostToolUse.
    const after = events.indexOf('PostToolUse');
    assert.ok(after > events.indexOf('PermissionRequest'), events.join(' '));
    if (events.includes('Notification:permission_prompt')) assert.ok(events.indexOf('Notification:permission_prompt') < after, events.join(' '));
  });

  it("a background agent at work renews its own lease: its tool calls are news, so it stays inside the no-news bound (item 3)", async () => {
    const claude = await startClaude();
    const brief = 'brief-for-the-worker';
    let steps = 0;
    world.model.setFallback(
      routed(
        brief,
        () => (++steps <= 2 ? turn([toolUse('Bash', { command: 'sleep 2', description: `worker step ${steps}` })]) : text('Worker done.')),
        text('Noted.'),
      ),
    );
    world.model.script(turn([toolUse('Agent', { description: 'worker', prompt: brief, subagent_type: 'general-purpose', run_in_background: true })]));
    await claude.submit('launch a worker');
    const lease = await world.until(async () => (await world.leases(PANE)).find((view) => view.job_type === 'subagent'), 'the subagent lease');
    const renewed = await world.until(async () => {
      const view = await world.client.getWaitLease(lease.lease_id);
      return view.renew_count > 0 ? view : undefined;
    }, "the agent's tool call to renew its lease", 30_000);
    assert.equal(renewed.observer.kind, 'none', 'an agent has no process of its own: news is all there is');
    assert.ok(renewed.last_evidence_at !== null);
  });

  it('an approved Write (not only Bash) takes the pane from blocked back to working while the turn goes on (item 6, PostToolUse on every tool)', async () => {
    const claude = await startClaude(['Agent']);
    world.model.script(turn([toolUse('Write', { file_path: `${claudeHome().workDir}/approved.txt`, content: 'ok' })]), async () => {
      await new Promise((resolve) => setTimeout(resolve, 4000));
      return text('All written.');
    });
    await claude.submit('write the file');
    await claude.waitForText(/Do you want to (create|make this edit|proceed)/);
    await world.until(async () => (await world.pane(PANE)).display_state === 'blocked', 'the prompt to read blocked');
    await world.until(async () => {
      if ((await world.pane(PANE)).display_state !== 'blocked') return true;
      if (/Do you want to/.test(claude.screen())) await claude.keys('Enter');
      await new Promise((resolve) => setTimeout(resolve, 700));
      return false;
    }, 'the approved Write to leave blocked');
    assert.equal((await world.pane(PANE)).display_state, 'working');
    assert.ok(!claude.screen().includes('All written.'), 'working came while the turn still ran');
    await claude.waitForText('All written.');
  });

  // agent_needs_input, worker_permission_prompt, elicitation_dialog and elicitation_url_dialog
  // need teammates, swarm workers or an MCP server that elicits, which this suite cannot drive
  // with the real CLI here. So the REAL Notification payload Claude Code just sent for its
  // permission prompt is replayed through the REAL hook process with each of those types
  // (named as the 2.1.332 bundle names them), then the recorded PostToolUse payload after it.
  it("every notification type that waits on the human reads blocked, types that don't change nothing, and the next tool reads working (item 6, recorded real payloads)", async () => {
    const recorded = recordPayloads(claudeHome());
    const claude = await startClaude(['Agent']);
    world.model.script(turn([toolUse('Bash', { command: 'rm -f approved-run.txt', description: 'needs approval' })]), text('All done.'));
    await claude.submit('run the command');
    await claude.waitForText(/Do you want to proceed/);
    // Claude Code sends the permission_prompt Notification only after the prompt has waited a while.
    await world.until(() => recorded().some((payload) => payload.notification_type === 'permission_prompt'), 'the permission_prompt Notification', 30_000);
    await world.until(async () => {
      if (/All done\./.test(claude.screen())) return true;
      if (/Do you want to proceed/.test(claude.screen())) await claude.keys('Enter');
      await new Promise((resolve) => setTimeout(resolve, 700));
      return false;
    }, 'the approved turn to end');
    const notification = await world.until(() => recorded().find((payload) => payload.hook_event_name === 'Notification' && payload.notification_type === 'permission_prompt'), 'the recorded permission_prompt Notification');
    const postToolUse = recorded().find((payload) => payload.hook_event_name === 'PostToolUse')!;
    const env = { ...world.claudeEnv(PANE) };
    for (const type of ['permission_prompt', 'worker_permission_prompt', 'elicitation_dialog', 'elicitation_url_dialog', 'agent_needs_input']) {
      await runHook('Notification', { ...notification, notification_type: type }, env);
      assert.equal((await world.pane(PANE)).display_state, 'blocked', type);
      await runHook('PostToolUse', postToolUse, env);
      assert.equal((await world.pane(PANE)).display_state, 'working', `the tool after ${type}`);
    }
    for (const type of ['agent_completed', 'push_notification', 'plugin_notification', 'computer_use_exit', 'auth_storage_failure', 'auth_success']) {
      await runHook('Notification', { ...notification, notification_type: type }, env);
      assert.equal((await world.pane(PANE)).display_state, 'working', `${type} says nothing about the pane`);
    }
  });

  it('"move to background and exit": the job stays held on its pid, one lease, one row; the detached session never drives the pane it left; `claude attach` binds the pane it is attached in (item 7)', async () => {
    const recorded = recordPayloads(claudeHome());
    const claude = await startClaude(['Bash', 'Agent']);
    world.model.script(turn([toolUse('Bash', { command: 'sleep 60', description: 'long job', run_in_background: true })]), text('Started it.'));
    await claude.submit('start the long job');
    await claude.waitForText('Started it.');
    const lease = await world.until(async () => (await world.leases(PANE)).find((view) => view.state !== 'ended' && view.observer.kind === 'pid'), 'the pid-held shell lease');
    const original = lease.session_id;

    await claude.submit('/exit');
    await claude.waitForText('Move to background');
    await claude.keys('2');
    await claude.keys('Enter');
    const fork = await world.until(() => recorded().find((payload) => payload.hook_event_name === 'SessionStart' && payload.source === 'fork'), "the daemon session's SessionStart (fork)", 30_000);
    const forkId = String(fork.session_id);
    assert.ok(recorded().some((payload) => payload.hook_event_name === 'SessionEnd' && payload.reason === 'prompt_input_exit' && payload.session_id === original));
    // The terminal went back to a shell: the session that left never drives it again.
    await world.until(async () => (await world.pane(PANE)).display_state === 'unknown', 'SessionEnd to leave the display unknown');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const left = await world.pane(PANE);
    assert.equal(left.display_state, 'unknown', 'the detached session set no display on the pane it left');
    assert.ok(!(left.sessions ?? []).includes(forkId), 'the detached session is bound to no pane');
    const held = await world.client.getWaitLease(lease.lease_id);
    assert.notEqual(held.state, 'ended', 'the job runs on under the daemon: still held on its pid');
    assert.equal(held.observer.kind, 'pid');

    // Attach in another terminal, registered as a pane by its shell (pid + start time).
    const other = claude.openWindow();
    const shell = other.panePid();
    await world.client.registerPane({ name: 'other-pane', source: 'cli', shell_pid: shell, shell_start_time: readProcessInfo(shell)!.startTime });
    await other.submit(`${claudeBinary()} attach ${forkId.slice(0, 8)}`);
    await other.waitForText(/Started it\./, 30_000);
    world.model.script(text('Attached answer.'));
    await other.submit('hello from the other pane');
    await other.waitForText('Attached answer.');
    const attached = await world.until(async () => {
      const view = await world.pane('other-pane');
      return (view.sessions ?? []).includes(forkId) && view.display_state === 'idle' ? view : undefined;
    }, 'the attached session to bind the pane it is attached in and drive its display');
    assert.equal(attached.display_state, 'idle');
    assert.equal((await world.pane(PANE)).display_state, 'unknown', 'the pane it left is still not driven');
    // The fork's Stop lists the same task: it takes over the lease rather than start a second one.
    await world.until(async () => (await world.client.getWaitLease(lease.lease_id)).session_id === forkId, 'the attached fork to take over the lease');
    const rows = (await world.ledger()).filter((row) => row.job_ref === lease.job_ref);
    assert.equal(rows.length, 1, `one job, one lease, one row: ${JSON.stringify(rows)}`);
    assert.equal((await world.client.getWaitLease(lease.lease_id)).state, 'active');
  });
});
