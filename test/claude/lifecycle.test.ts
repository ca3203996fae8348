// The wait signal through Claude Code's lifecycle, against the REAL Claude Code CLI (the
// pinned devDependency) running interactively in tmux with Leasehold's hooks installed by
// `leasehold hooks install`, a real `leasehold serve` and real hook processes. The ONLY fake
// is the scripted stand-in for the Anthropic Messages API (there is no model here).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { ClaudeTui } from './support/claudeCode.ts';
import { claudePerTest } from './support/leaseholdWorld.ts';
import type { LeaseholdWorld } from './support/leaseholdWorld.ts';
import { apiError, text, toolUse, turn } from './support/modelStandIn.ts';

const PANE = 'claude-pane';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('real Claude Code: the wait signal through the lifecycle (model API is a scripted stand-in)', function () {
  this.timeout(120_000);
  const claudeIn = claudePerTest(PANE);
  let world: LeaseholdWorld;
  const startClaude = async (): Promise<ClaudeTui> => {
    world = claudeIn.world;
    return claudeIn.start(['Bash', 'Agent']);
  };

  it('a backgrounded Bash whose command holds single quotes is held on its own process, and released when that process ends (item 3)', async () => {
    const claude = await startClaude();
    world.model.script(turn([toolUse('Bash', { command: "sleep 40; echo 'it''s done'", description: 'quoted wait', run_in_background: true })]), text('Started it.'));
    await claude.submit('start the quoted job');
    await claude.waitForText('Started it.');
    const lease = await world.until(async () => (await world.leases(PANE)).find((view) => view.state !== 'ended'), 'the shell lease');
    assert.equal(lease.observer.kind, 'pid', `the lease must be held on the job's process, got ${JSON.stringify(lease.observer)}`);
    const pid = (lease.observer as { pid: number }).pid;
    // Claude Code runs the command as `bash -c ... eval '<quoted>'`: that wrapper is the job.
    const args = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
    assert.match(args, /eval 'sleep 40/);
    // Stopped outside any hook (as from the tasks UI): the hold loop sees the pid end.
    process.kill(pid, 'SIGKILL');
    await world.until(() => !alive(pid), 'the job to die');
    const ended = await world.until(async () => (await world.leases(PANE)).find((view) => view.lease_id === lease.lease_id && view.state === 'ended'), 'the lease to end', 8_000);
    assert.equal(ended.end_reason, 'released');
  });

  it('a turn that ends in an API error (StopFailure) leaves "working" (item 2)', async () => {
    const claude = await startClaude();
    // Every model request fails (Claude Code retries some): the turn ends in StopFailure.
    world.model.setFallback(apiError(400, 'invalid_request_error', 'scripted failure'));
    await claude.submit('this turn fails');
    await world.until(async () => (await world.pane(PANE)).display_state === 'working', 'UserPromptSubmit to show working');
    await claude.waitForText(/scripted failure|API Error/);
    const pane = await world.until(async () => {
      const view = await world.pane(PANE);
      return view.display_state !== 'working' ? view : undefined;
    }, 'StopFailure to end "working"', 8_000);
    assert.equal(pane.display_state, 'idle');
  });

  it('SessionEnd leaves no session-driven display state behind (item 2)', async () => {
    const claude = await startClaude();
    world.model.script(text('Hello.'));
    await claude.submit('say hello');
    await claude.waitForText('Hello.');
    await claude.submit('/exit');
    await world.until(async () => (await world.pane(PANE)).display_state === 'unknown', 'SessionEnd to reset the display', 10_000);
  });

  it('a job that outlives /clear keeps one lease, carried to the new session, still held on its pid (item 1)', async () => {
    const claude = await startClaude();
    world.model.script(turn([toolUse('Bash', { command: 'sleep 45', description: 'long job', run_in_background: true })]), text('Started it.'));
    await claude.submit('start the long job');
    await claude.waitForText('Started it.');
    const lease = await world.until(async () => (await world.leases(PANE)).find((view) => view.state !== 'ended'), 'the shell lease');
    const before = (await world.pane(PANE)).sessions ?? [];
    await claude.submit('/clear');
    await world.until(async () => ((await world.pane(PANE)).sessions ?? []).some((id) => !before.includes(id)), 'the new session to bind');
    // The new session's first turn: its Stop lists the surviving task.
    world.model.script(text('Still here.'));
    await claude.submit('are you there');
    await claude.waitForText('Still here.');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the Stop hook's reconcile
    const leases = await world.leases(PANE);
    assert.equal(leases.length, 1, `one job, one lease: ${JSON.stringify(leases.map((view) => [view.job_ref, view.state, view.observer.kind]))}`);
    assert.equal(leases[0]!.lease_id, lease.lease_id);
    assert.notEqual(leases[0]!.state, 'ended');
    assert.equal(leases[0]!.observer.kind, 'pid');
    const rows = (await world.ledger()).filter((row) => row.pane === PANE);
    assert.equal(rows.length, 1);
  });

  it('a background task that completes is released on its task-notification, with the status as the end reason (item 4)', async () => {
    const claude = await startClaude();
    world.model.script(turn([toolUse('Bash', { command: 'sleep 4', description: 'short job', run_in_background: true })]), text('Started it.'));
    await claude.submit('start the short job');
    await claude.waitForText('Started it.');
    const lease = await world.until(async () => (await world.leases(PANE)).find((view) => view.state !== 'ended'), 'the shell lease');
    // The job ends; Claude Code starts a turn by itself with a <task-notification> prompt.
    world.model.script(text('Noted.'));
    const ended = await world.until(async () => (await world.leases(PANE)).find((view) => view.lease_id === lease.lease_id && view.state === 'ended'), 'the lease to end', 20_000);
    assert.equal(ended.end_reason, 'released');
    // What the planner parses is what the real Claude Code sends: the notification names the
    // lease's job_ref and the status.
    const notified = await world.until(
      () => world.model.requests.map((request) => JSON.stringify(request.messages ?? [])).find((body) => body.includes('<task-notification>')),
      'the task-notification turn',
      20_000,
    );
    assert.ok(notified.includes(`<task-id>${lease.job_ref}</task-id>`), notified.slice(0, 2000));
    assert.match(notified, /<status>completed<\/status>/);
  });
});
