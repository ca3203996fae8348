// The shared maintenance schedule: runs never overlap, a request during a run gets one more
// run after it, a timer only ever moves earlier, and the next deadline re-arms it.
import assert from 'node:assert/strict';
import { DeadlineScheduler } from '../../src/server/maintenance/deadlineScheduler.ts';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeadlineScheduler', () => {
  it('never overlaps runs, and a reschedule during a run gets exactly one more run', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const scheduler = new DeadlineScheduler({
      run: async () => {
        runs += 1;
        active += 1;
        maxActive = Math.max(maxActive, active);
        if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
        active -= 1;
      },
      nextDelayMs: async () => null,
      backstopIntervalMs: 60_000,
    });
    scheduler.start();
    await settle(5);
    scheduler.reschedule();
    scheduler.reschedule();
    scheduler.dueIn(0);
    await settle(10);
    assert.equal(runs, 1, 'still inside the first run');
    release();
    await settle(20);
    assert.equal(runs, 2, 'one more run for all the requests made during the first');
    assert.equal(maxActive, 1);
    await scheduler.stop();
  });

  it('arms at the next deadline after a run, and dueIn only moves the timer earlier', async () => {
    const runAt: number[] = [];
    const started = Date.now();
    let nextDelay: number | null = 30;
    const scheduler = new DeadlineScheduler({
      run: async () => {
        runAt.push(Date.now() - started);
      },
      nextDelayMs: async () => {
        const delay = nextDelay;
        nextDelay = null;
        return delay;
      },
      backstopIntervalMs: 60_000,
    });
    scheduler.start();
    await settle(5);
    scheduler.dueIn(10_000); // later than the armed deadline: ignored
    for (let waited = 0; runAt.length < 2 && waited < 2000; waited += 10) await settle(10);
    assert.equal(runAt.length, 2, `the start run and the deadline run (${runAt.join(', ')} ms)`);
    assert.ok(runAt[1]! >= 30, `ran at ${runAt[1]} ms, not before the 30 ms deadline`);
    await settle(50);
    assert.equal(runAt.length, 2, 'no deadline left: no further run');
    await scheduler.stop();
    scheduler.dueIn(0);
    await settle(10);
    assert.equal(runAt.length, 2, 'nothing runs after stop');
  });
});
