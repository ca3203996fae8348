// The Linux boot-time clock counts a suspend (CLOCK_BOOTTIME through /proc/uptime) while
// reading /proc/uptime only when a suspend may have happened. The three sources are injected:
// a suspend freezes hrtime (CLOCK_MONOTONIC) while the wall clock and uptime run on.
import assert from 'node:assert/strict';
import { LinuxBootTimeClock, UPTIME_RECHECK_MS } from '../../src/server/clock/leaseClock.ts';

function machine() {
  const state = { hr: 5_000, wall: Date.UTC(2026, 11, 3, 12, 0, 0), uptime: 1_000_000, uptimeReads: 0 };
  const clock = new LinuxBootTimeClock({
    bootId: 'boot-a',
    readHrMs: () => state.hr,
    readWallMs: () => state.wall,
    readUptimeMs: () => {
      state.uptimeReads += 1;
      return state.uptime;
    },
  });
  const run = (ms: number) => {
    state.hr += ms;
    state.wall += ms;
    state.uptime += ms;
  };
  const suspend = (ms: number) => {
    state.wall += ms;
    state.uptime += ms;
  };
  return { state, clock, run, suspend };
}

describe('Linux boot-time clock', () => {
  it('follows hrtime between checks, without reading /proc/uptime on every reading', () => {
    const { state, clock, run } = machine();
    const reads = state.uptimeReads;
    for (let index = 0; index < 50; index++) {
      run(1);
      clock.read();
    }
    assert.equal(clock.read().bootMs, 1_000_050);
    assert.equal(state.uptimeReads - reads, 0, '50 readings within the recheck interval read no file');
    run(UPTIME_RECHECK_MS);
    assert.equal(clock.read().bootMs, 1_000_050 + UPTIME_RECHECK_MS);
    assert.equal(state.uptimeReads - reads, 1, 'rechecked once the interval passed');
  });

  it('counts a suspend at the first reading after it: the wall clock ran ahead of hrtime', () => {
    const { clock, run, suspend } = machine();
    run(10);
    clock.read();
    suspend(600_000);
    run(1);
    assert.equal(clock.read().bootMs, 1_000_000 + 10 + 600_000 + 1, 'the slept ten minutes are counted at once');
  });

  it('counts a suspend hidden by a wall-clock step back within the recheck interval', () => {
    const { state, clock, run, suspend } = machine();
    clock.read();
    suspend(600_000);
    state.wall -= 600_000; // an NTP step back of the same size: the wall clock shows no gap
    run(1);
    assert.equal(clock.read().bootMs, 1_000_001, 'not seen yet');
    run(UPTIME_RECHECK_MS);
    assert.equal(clock.read().bootMs, 1_000_000 + 600_000 + 1 + UPTIME_RECHECK_MS, 'counted at the recheck');
  });

  it('never goes backwards, and a wall step back moves no boot reading', () => {
    const { state, clock, run } = machine();
    run(50);
    const before = clock.read().bootMs;
    state.wall -= 3_600_000;
    run(1);
    assert.equal(clock.read().bootMs, before + 1);
  });
});
