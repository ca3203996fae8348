// What Leasehold's hooks add to the agent's turn, measured on the REAL Claude Code (the pinned
// devDependency) against the scripted Messages-API stand-in (test/claude/support, the only
// fake) and a real `leasehold serve`: the wall time of `claude -p` whose turn runs --tools
// foreground Bash calls one after another (each fires PostToolUse), plus SessionStart,
// UserPromptSubmit, Stop and SessionEnd. Three settings, interleaved round by round:
//   none     no hooks
//   sync     Leasehold's hooks with every entry synchronous (before: Claude Code waits for each)
//   current  Leasehold's hooks as `leasehold hooks install` writes them (PostToolUse,
//            PostToolUseFailure, Notification, PermissionRequest run "async": true)
//
//   node scripts/build.mjs && node bench/hookTurn.ts [--rounds 5] [--tools 10]
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { makeClaudeHome, runClaudeHeadless } from '../test/claude/support/claudeCode.ts';
import { startModelStandIn, text, toolUse, turn } from '../test/claude/support/modelStandIn.ts';
import { runCli, startServeProcess } from '../test/support/cli.ts';
import { tempDir } from '../test/support/storage.ts';
import { median, percentile } from './stats.ts';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

type Setting = 'none' | 'sync' | 'current';

export async function benchHookTurn(): Promise<void> {
  const rounds = arg('--rounds', 5);
  const tools = arg('--tools', 10);
  const runtimeDir = tempDir('bench-turn-run');
  const server = await startServeProcess([], { LEASEHOLD_DATA_DIR: tempDir('bench-turn-data'), LEASEHOLD_RUNTIME_DIR: runtimeDir });
  const model = await startModelStandIn();
  const homes = { none: makeClaudeHome(), sync: makeClaudeHome(), current: makeClaudeHome() };
  try {
    for (const setting of ['sync', 'current'] as const) {
      const installed = await runCli(['hooks', 'install', '--scope', 'user'], { env: { HOME: homes[setting].dir, LEASEHOLD_RUNTIME_DIR: runtimeDir } });
      if (installed.code !== 0) throw new Error(`hooks install failed: ${installed.stderr}`);
    }
    // "Before": the same entries with every hook synchronous.
    const syncPath = homes.sync.settingsPath;
    writeFileSync(syncPath, readFileSync(syncPath, 'utf8').replace(/,\s*"async": true/g, ''));
    const samples: Record<Setting, number[]> = { none: [], sync: [], current: [] };
    for (let round = -1; round < rounds; round++) {
      for (const setting of ['none', 'sync', 'current'] as const) {
        const script = Array.from({ length: tools }, (_, index) => turn([toolUse('Bash', { command: 'true', description: `step ${index}` })]));
        model.script(...script, text('Done.'));
        const started = performance.now();
        const run = await runClaudeHeadless({ home: homes[setting], model, prompt: 'run the steps', allowedTools: ['Bash'], env: { LEASEHOLD_RUNTIME_DIR: runtimeDir, LEASEHOLD_PANE: `bench-${setting}` }, timeoutMs: 120_000 });
        const ms = performance.now() - started;
        if (run.code !== 0) throw new Error(`claude -p (${setting}) exited ${run.code}: ${run.stderr.slice(0, 500)}`);
        if (round >= 0) samples[setting].push(ms); // round -1 warms caches
      }
    }
    const none = median(samples.none);
    const events = tools + 4;
    process.stdout.write(
      `Real Claude Code turn with ${tools} foreground Bash calls (${events} hooked events: SessionStart, UserPromptSubmit, ${tools}× PostToolUse, Stop, SessionEnd), ${rounds} interleaved rounds (Node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(1)).join(' ')})\n`,
    );
    for (const setting of ['none', 'sync', 'current'] as const) {
      const m = median(samples[setting]);
      process.stdout.write(`${setting.padEnd(8)} median ${m.toFixed(0).padStart(6)} ms  p90 ${percentile(samples[setting], 90).toFixed(0).padStart(6)} ms  added to the turn ${(m - none).toFixed(0).padStart(5)} ms\n`);
    }
    const sync = median(samples.sync);
    const current = median(samples.current);
    process.stdout.write(
      `per PostToolUse (the async events' share): before ${((sync - none) / events).toFixed(1)} ms per hooked event on average; ` +
        `taken off the critical path: ${((sync - current) / tools).toFixed(1)} ms per PostToolUse\n`,
    );
  } finally {
    await model.close();
    await server.stop();
    for (const home of Object.values(homes)) home.cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchHookTurn();
