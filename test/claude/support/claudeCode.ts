/**
 * Runs the REAL Claude Code CLI (the pinned devDependency @anthropic-ai/claude-code) against
 * the scripted model stand-in (./modelStandIn.ts, the only fake), with an isolated HOME and
 * config dir so nothing of the machine's own Claude Code setup is read or written.
 *
 * API (reused by other suites, e.g. the MCP worker suite):
 *
 *   claudeBinary()                        // absolute path of the native `claude` binary
 *   claudeVersion()                       // "2.1.332"
 *   const home = makeClaudeHome({ settings?, mcpServers? })
 *       // mkdtemp HOME with ~/.claude/settings.json (settings merged in), onboarding, trust of
 *       // home.workDir and the stand-in's API key pre-approved; home.dir, home.workDir,
 *       // home.configDir, home.settingsPath, home.cleanup()
 *   claudeEnv(home, model, extra?)        // env for a claude process: HOME, CLAUDE_CONFIG_DIR,
 *       // ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
 *
 *   Headless:
 *   const run = await runClaudeHeadless({ home, model, prompt, allowedTools?: ['Bash', 'Agent'],
 *                                         env?, args?, timeoutMs? })
 *       // claude -p <prompt> --permission-mode default --allowedTools ... --output-format json
 *       // resolves { code, stdout, stderr, json? } when the process exits
 *
 *   Interactive (tmux; each session on its own tmux server socket):
 *   const tui = await startClaudeInteractive({ home, model, env?, args?, width?, height?, launch? })
 *       // launch: false leaves the pane's shell at its prompt; type claudeCommand(args) later
 *   await tui.waitForText(/regex|text/, timeoutMs?)   // polls capture-pane
 *   await tui.type('hello')                          // literal text (send-keys -l)
 *   await tui.keys('Enter') / tui.keys('C-b')        // tmux key names
 *   await tui.submit('/clear')                       // type + Enter
 *   tui.screen()                                     // current capture-pane text
 *   tui.openWindow(env?)                             // another tmux window (a shell), as a ClaudeTui
 *   killProcessesOf(home)                            // what Claude Code's background daemon left
 *   tui.panePid()                                    // pid of the shell/claude in the pane
 *   await tui.stop()                                 // kills the tmux server (and claude)
 *
 * As root `--dangerously-skip-permissions` is refused unless IS_SANDBOX=1, so permissions go
 * through `--permission-mode default --allowedTools ...`.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { ModelStandIn } from './modelStandIn.ts';

export const STAND_IN_API_KEY = 'sk-ant-api03-leasehold-stand-in-key-0000000000000000000000000000000000AA';

const require = createRequire(import.meta.url);

/**
 * The native binary. npm's postinstall copies it over bin/claude.exe; where install scripts
 * did not run (npm ci --ignore-scripts), the platform package holds the same binary.
 */
export function claudeBinary(): string {
  const wrapperDir = path.dirname(require.resolve('@anthropic-ai/claude-code/package.json'));
  const wrapperBin = path.join(wrapperDir, 'bin', 'claude.exe');
  try {
    if (fs.statSync(wrapperBin).size > 1_000_000) return wrapperBin;
  } catch {
    // fall through to the platform package
  }
  const platformPkg = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  const dir = path.dirname(require.resolve(`${platformPkg}/package.json`));
  return path.join(dir, 'claude');
}

let cachedVersion: string | undefined;
export function claudeVersion(): string {
  cachedVersion ??= /(\d+\.\d+\.\d+)/.exec(execFileSync(claudeBinary(), ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } }))?.[1] ?? 'unknown';
  return cachedVersion;
}

export interface ClaudeHome {
  dir: string;
  /** The project directory claude runs in (trusted). */
  workDir: string;
  configDir: string;
  settingsPath: string;
  cleanup(): void;
}

export function makeClaudeHome(options: { settings?: Record<string, unknown>; mcpServers?: Record<string, unknown> } = {}): ClaudeHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-claude-'));
  const configDir = path.join(dir, '.claude');
  const workDir = path.join(dir, 'project');
  fs.mkdirSync(configDir, { recursive: true });
  fs.mkdirSync(workDir, { recursive: true });
  const settingsPath = path.join(configDir, 'settings.json');
  fs.writeFileSync(settingsPath, JSON.stringify(options.settings ?? {}, null, 2));
  // Onboarding done, the work dir trusted, the stand-in's key approved: no first-run dialogs.
  const state: Record<string, unknown> = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: '2.1.332',
    theme: 'dark',
    numStartups: 5,
    customApiKeyResponses: { approved: [STAND_IN_API_KEY.slice(-20)], rejected: [] },
    projects: { [workDir]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
  };
  if (options.mcpServers) state.mcpServers = options.mcpServers;
  fs.writeFileSync(path.join(configDir, '.claude.json'), JSON.stringify(state, null, 2));
  fs.writeFileSync(path.join(dir, '.claude.json'), JSON.stringify(state, null, 2));
  return { dir, workDir, configDir, settingsPath, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }) };
}

export function claudeEnv(home: ClaudeHome, model: ModelStandIn, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home.dir,
    CLAUDE_CONFIG_DIR: home.configDir,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    SHELL: '/bin/bash',
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: STAND_IN_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // A scripted API error must end the turn at once, not after Claude Code's retries.
    CLAUDE_CODE_MAX_RETRIES: '0',
    ...extra,
  };
}

export interface HeadlessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json?: Record<string, unknown>;
}

export function runClaudeHeadless(options: {
  home: ClaudeHome;
  model: ModelStandIn;
  prompt: string;
  allowedTools?: string[];
  env?: NodeJS.ProcessEnv;
  args?: string[];
  timeoutMs?: number;
}): Promise<HeadlessResult> {
  const args = ['-p', options.prompt, '--permission-mode', 'default', '--output-format', 'json'];
  if (options.allowedTools && options.allowedTools.length > 0) args.push('--allowedTools', ...options.allowedTools);
  args.push(...(options.args ?? []));
  return new Promise((resolve, reject) => {
    const child = spawn(claudeBinary(), args, { cwd: options.home.workDir, env: claudeEnv(options.home, options.model, options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, ...(json ? { json } : {}) });
    });
  });
}

export interface ClaudeTui {
  socket: string;
  target: string;
  screen(): string;
  waitForText(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  type(text: string): Promise<void>;
  keys(...names: string[]): Promise<void>;
  submit(text: string): Promise<void>;
  panePid(): number;
  /** A new tmux window on the same server running a plain shell (claude's environment plus `env`). */
  openWindow(env?: NodeJS.ProcessEnv): ClaudeTui;
  stop(): Promise<void>;
}

/**
 * Kills every process still running with this Claude home as its HOME (by pid): what Claude
 * Code's background daemon ("move to background", `claude --bg`) left behind, which outlives
 * the tmux server. Linux /proc only.
 */
export function killProcessesOf(claudeHome: ClaudeHome): void {
  const marker = `HOME=${claudeHome.dir}\0`;
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker)) process.kill(pid, 'SIGKILL');
    } catch {
      // gone, or not ours to read
    }
  }
}

function tmux(socket: string, args: string[]): string {
  return execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The shell command line that starts the interactive claude with `args`. */
export function claudeCommand(args: readonly string[] = []): string {
  return [claudeBinary(), '--permission-mode', 'default', ...args].map((word) => `'${word.replace(/'/g, `'"'"'`)}'`).join(' ');
}

/** Starts `claude` (interactive) in a detached tmux session on its own socket. */
export async function startClaudeInteractive(options: {
  home: ClaudeHome;
  model: ModelStandIn;
  env?: NodeJS.ProcessEnv;
  args?: string[];
  width?: number;
  height?: number;
  /** Run a shell in the pane and claude inside it (so the pane outlives claude). Default true. */
  inShell?: boolean;
  /** With inShell: type the claude command now (default) or leave the shell at its prompt (type claudeCommand(args) later). */
  launch?: boolean;
}): Promise<ClaudeTui> {
  const socket = path.join(options.home.dir, 'tmux.sock');
  const env = claudeEnv(options.home, options.model, options.env);
  const envArgs = Object.entries(env).flatMap(([key, value]) => (value === undefined ? [] : ['-e', `${key}=${value}`]));
  const command = claudeCommand(options.args);
  const inShell = options.inShell ?? true;
  const target = 'lh:0.0';
  tmux(socket, [
    'new-session', '-d', '-s', 'lh', '-x', String(options.width ?? 160), '-y', String(options.height ?? 50), '-c', options.home.workDir, ...envArgs,
    inShell ? 'bash --norc --noprofile' : command,
  ]);
  if (inShell && options.launch !== false) {
    tmux(socket, ['send-keys', '-t', target, '-l', command]);
    tmux(socket, ['send-keys', '-t', target, 'Enter']);
  }
  return tuiOn(socket, target, options.home, options.model);
}

/** A ClaudeTui on one tmux pane (`session:window.pane`) of the server on `socket`. */
function tuiOn(socket: string, target: string, claudeHome: ClaudeHome, model: ModelStandIn): ClaudeTui {
  const tui: ClaudeTui = {
    socket,
    target,
    screen: () => {
      try {
        return tmux(socket, ['capture-pane', '-p', '-t', target]);
      } catch {
        return '';
      }
    },
    async waitForText(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = tui.screen();
        if (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`tmux screen never showed ${String(pattern)}; last screen:\n${text}`);
        await sleep(150);
      }
    },
    async type(text) {
      tmux(socket, ['send-keys', '-t', target, '-l', text]);
      await sleep(100);
    },
    async keys(...names) {
      tmux(socket, ['send-keys', '-t', target, ...names]);
      await sleep(100);
    },
    async submit(text) {
      await tui.type(text);
      await sleep(300);
      await tui.keys('Enter');
    },
    panePid: () => Number(tmux(socket, ['display-message', '-p', '-t', target, '#{pane_pid}']).trim()),
    openWindow(env = {}) {
      const envArgs = Object.entries(claudeEnv(claudeHome, model, env)).flatMap(([key, value]) => (value === undefined ? [] : ['-e', `${key}=${value}`]));
      const index = tmux(socket, ['new-window', '-P', '-F', '#{window_index}', '-t', 'lh', '-c', claudeHome.workDir, ...envArgs, 'bash --norc --noprofile']).trim();
      return tuiOn(socket, `lh:${index}.0`, claudeHome, model);
    },
    async stop() {
      try {
        tmux(socket, ['kill-server']);
      } catch {
        // already gone
      }
      await sleep(100);
    },
  };
  return tui;
}
