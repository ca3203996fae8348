/**
 * A real Leasehold server (`leasehold serve` child process, SQLite in a temp dir) with
 * Leasehold's hooks installed by the real `leasehold hooks install --scope user` into an
 * isolated Claude Code home, for suites that drive the real Claude Code against the model
 * stand-in (the only fake).
 *
 *   const world = await startLeaseholdWorld();   // server + runtime dir + model + claude home
 *   world.claudeEnv(pane)                        // env to add for claude: LEASEHOLD_RUNTIME_DIR, LEASEHOLD_PANE
 *   world.client                                 // the typed client (human token)
 *   await world.leases(pane) / world.ledger() / world.pane(pane)
 *   await world.until(() => condition, what, timeoutMs?)
 *   world.hookLog()                              // the hook's log (for failure messages)
 *   await world.stop()
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LeaseholdClient } from '../../../src/client/client.ts';
import { runCli, startServeProcess } from '../../support/cli.ts';
import { killProcessesOf, makeClaudeHome, startClaudeInteractive } from './claudeCode.ts';
import type { ClaudeHome, ClaudeTui } from './claudeCode.ts';
import { startModelStandIn } from './modelStandIn.ts';
import type { ModelStandIn } from './modelStandIn.ts';

export interface LeaseholdWorld {
  home: ClaudeHome;
  model: ModelStandIn;
  runtimeDir: string;
  client: LeaseholdClient;
  claudeEnv(pane?: string): NodeJS.ProcessEnv;
  leases(pane: string): ReturnType<LeaseholdClient['listWaitLeases']>;
  ledger(): ReturnType<LeaseholdClient['ledger']>;
  pane(pane: string): ReturnType<LeaseholdClient['getPane']>;
  until<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs?: number): Promise<T>;
  hookLog(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startLeaseholdWorld(): Promise<LeaseholdWorld> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-world-'));
  const runtimeDir = path.join(base, 'run');
  const dataDir = path.join(base, 'data');
  fs.mkdirSync(runtimeDir, { mode: 0o700 });
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const server = await startServeProcess([], { LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_RUNTIME_DIR: runtimeDir });
  const home = makeClaudeHome();
  const installed = await runCli(['hooks', 'install', '--scope', 'user'], { env: { HOME: home.dir, LEASEHOLD_RUNTIME_DIR: runtimeDir } });
  if (installed.code !== 0) throw new Error(`hooks install failed: ${installed.stderr}`);
  const model = await startModelStandIn();
  const client = LeaseholdClient.fromRuntimeDir(runtimeDir);
  if (!client) throw new Error('no server.json after serve started');
  const world: LeaseholdWorld = {
    home,
    model,
    runtimeDir,
    client,
    claudeEnv: (pane) => ({ LEASEHOLD_RUNTIME_DIR: runtimeDir, ...(pane ? { LEASEHOLD_PANE: pane } : {}) }),
    leases: (pane) => client.listWaitLeases({ pane }),
    ledger: () => client.ledger({}),
    pane: (pane) => client.getPane(pane),
    async until(probe, what, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (value !== undefined && value !== false) return value as never;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nhook log:\n${world.hookLog()}`);
        await sleep(200);
      }
    },
    hookLog: () => {
      try {
        return fs.readFileSync(path.join(runtimeDir, 'hook.log'), 'utf8').slice(-4000);
      } catch {
        return '(no hook.log)';
      }
    },
    async stop() {
      killProcessesOf(home);
      await model.close();
      await server.stop();
      home.cleanup();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
  return world;
}

/**
 * Mocha hooks for a suite whose every test gets a fresh world and one interactive Claude Code
 * in tmux on `pane` (started by `start`); on failure the screen and the hook log are printed.
 *
 *   const claudeIn = claudePerTest('claude-pane');
 *   const claude = await claudeIn.start(['Bash', 'Agent']);   // waits for SessionStart to bind
 *   claudeIn.world.model.script(...)
 */
export function claudePerTest(pane: string): { readonly world: LeaseholdWorld; start(allowedTools: string[], env?: NodeJS.ProcessEnv): Promise<ClaudeTui> } {
  let world: LeaseholdWorld | undefined;
  let tui: ClaudeTui | undefined;
  beforeEach(async () => {
    world = await startLeaseholdWorld();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && tui) console.log(`--- screen ---\n${tui.screen()}\n--- hook log ---\n${world?.hookLog()}`);
    await tui?.stop();
    tui = undefined;
    await world?.stop();
    world = undefined;
  });
  return {
    get world() {
      if (!world) throw new Error('no world outside a test');
      return world;
    },
    async start(allowedTools, env = {}) {
      const current = this.world;
      tui = await startClaudeInteractive({ home: current.home, model: current.model, env: { ...current.claudeEnv(pane), ...env }, args: ['--allowedTools', ...allowedTools] });
      await tui.waitForText('manual mode');
      await current.until(async () => (await current.client.listPanes()).some((view) => view.name === pane && (view.sessions?.length ?? 0) > 0), 'SessionStart to bind the pane');
      return tui;
    },
  };
}
