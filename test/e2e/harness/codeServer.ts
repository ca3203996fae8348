// Starts and stops a code-server (VS Code 1.139 served to a browser) for one e2e scenario:
// loopback only, no auth, its own user-data and extensions dirs, the extensions under test
// installed unpacked, and extra env that reaches the extension host and its terminals.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface CodeServerOptions {
  /** Unpacked extension folders (each with a package.json); installed as `<publisher>.<name>-<version>`. */
  extensions?: string[];
  /** Packaged extensions, installed with `code-server --install-extension` before start. */
  vsix?: string[];
  /** Symlink the extension folders (default, picks up rebuilds) or copy them. */
  extensionInstall?: 'symlink' | 'copy';
  /** Folder opened as the workspace; default a fresh temp folder. */
  workspace?: string;
  /** Merged over the harness defaults into User/settings.json. */
  settings?: Record<string, unknown>;
  /** Extra env for code-server, hence for the extension host, its terminals and what they spawn. */
  env?: Record<string, string>;
  /** code-server binary; default $LEASEHOLD_CODE_SERVER, then the install script's cache. */
  binary?: string;
  /** Node 24 binary that runs code-server; default $LEASEHOLD_E2E_NODE, then this process's node. */
  node?: string;
  /** How long to wait for code-server to answer (default 60 s). */
  startTimeoutMs?: number;
  /** Keep the temp dirs after stop() (for debugging). Also $LEASEHOLD_E2E_KEEP=1. */
  keepDirs?: boolean;
}

export interface CodeServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly origin: string;
  readonly workspace: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  /** Unique per run; set in the env of every process this code-server starts. */
  readonly sessionId: string;
  readonly pid: number;
  /** Milliseconds from spawn to code-server answering /healthz. */
  readonly startMs: number;
  /** `http://127.0.0.1:<port>/?folder=<workspace>` */
  workbenchUrl(folder?: string): string;
  /** code-server's stdout and stderr so far. */
  log(): string;
  /** Copies code-server's output and the workbench logs (extension host, terminals) into dir. */
  collectLogs(dir: string): void;
  /** SIGTERM to the process group, SIGKILL after a grace period; kills processes left over
   * from this session (terminal shells, detached servers); returns code-server's output. */
  stop(): Promise<string>;
}

/** User settings the harness always writes: extensions run (no Restricted Mode), nothing
 * opens by itself, terminals render in the DOM so their text can be read. */
export const defaultSettings: Record<string, unknown> = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'terminal.integrated.gpuAcceleration': 'off',
  'terminal.integrated.enablePersistentSessions': false,
  'terminal.integrated.defaultProfile.linux': 'bash',
  'terminal.integrated.profiles.linux': { bash: { path: 'bash', args: ['--noprofile', '--norc'] } },
  'terminal.integrated.showExitAlert': false,
};

export function defaultCodeServerBinary(): string {
  if (process.env.LEASEHOLD_CODE_SERVER) return process.env.LEASEHOLD_CODE_SERVER;
  const cache = process.env.LEASEHOLD_E2E_CACHE ?? path.join(os.homedir(), '.cache', 'leasehold-e2e');
  return path.join(cache, 'code-server', 'bin', 'code-server');
}

function nodeMajor(nodeBin: string): number | undefined {
  if (nodeBin === process.execPath) return Number(process.versions.node.split('.')[0]);
  return undefined;
}

/** Installs an unpacked extension folder into extensionsDir as `<publisher>.<name>-<version>`. */
export function installUnpackedExtension(
  extensionFolder: string,
  extensionsDir: string,
  how: 'symlink' | 'copy' = 'symlink',
): string {
  const manifestPath = path.join(extensionFolder, 'package.json');
  if (!fs.existsSync(manifestPath)) throw new Error(`extension folder ${extensionFolder} has no package.json`);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { publisher?: string; name?: string; version?: string };
  if (!manifest.publisher || !manifest.name || !manifest.version) {
    throw new Error(`${manifestPath} needs publisher, name and version to be installed unpacked`);
  }
  const target = path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  fs.mkdirSync(extensionsDir, { recursive: true });
  if (how === 'symlink') fs.symlinkSync(path.resolve(extensionFolder), target, 'dir');
  else fs.cpSync(path.resolve(extensionFolder), target, { recursive: true, dereference: true });
  return target;
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pids of live processes whose environment carries LEASEHOLD_E2E_SESSION=<sessionId>. */
export function sessionProcesses(sessionId: string): number[] {
  const needle = Buffer.from(`LEASEHOLD_E2E_SESSION=${sessionId}\0`);
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`).includes(needle)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const binary = options.binary ?? defaultCodeServerBinary();
  if (!fs.existsSync(binary)) {
    throw new Error(`code-server not found at ${binary}; run scripts/e2e/install-code-server.sh (or set LEASEHOLD_CODE_SERVER)`);
  }
  const nodeBin = options.node ?? process.env.LEASEHOLD_E2E_NODE ?? process.execPath;
  const major = nodeMajor(nodeBin);
  if (major !== undefined && major < 24) {
    throw new Error(`code-server 4.139 needs Node 24 but ${nodeBin} is Node ${process.versions.node}; run through scripts/e2e/run.sh or set LEASEHOLD_E2E_NODE`);
  }
  const keepDirs = options.keepDirs ?? process.env.LEASEHOLD_E2E_KEEP === '1';
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-e2e-'));
  const userDataDir = path.join(root, 'user-data');
  const extensionsDir = path.join(root, 'extensions');
  const workspace = options.workspace ?? path.join(root, 'workspace');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(path.join(root, 'tmp'), { recursive: true });
  fs.writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...defaultSettings, ...options.settings }, null, 2),
  );
  // Its own config file: code-server otherwise writes ~/.config/code-server/config.yaml.
  const configPath = path.join(root, 'config.yaml');
  fs.writeFileSync(configPath, 'auth: none\ncert: false\n');
  for (const extension of options.extensions ?? []) {
    installUnpackedExtension(extension, extensionsDir, options.extensionInstall ?? 'symlink');
  }

  for (const vsix of options.vsix ?? []) {
    const installed = spawnSync(
      nodeBin,
      [binary, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', path.resolve(vsix)],
      { encoding: 'utf8', timeout: 120_000, env: { ...process.env, XDG_DATA_HOME: path.join(root, 'xdg-data'), XDG_CONFIG_HOME: path.join(root, 'xdg-config') } },
    );
    if (installed.status !== 0) {
      throw new Error(`code-server --install-extension ${vsix} failed (${installed.status ?? installed.signal}):\n${installed.stdout}${installed.stderr}`);
    }
  }

  const sessionId = `${process.pid}-${Date.now().toString(36)}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    // Node 24 first: code-server's `#!/usr/bin/env node`, the extension host, and anything a
    // terminal runs with `node` all get the runtime code-server was built for.
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
    LEASEHOLD_E2E_SESSION: sessionId,
    // code-server writes ~/.local/share/code-server and VS Code its IPC sockets in the temp
    // dir: keep both inside this run's folder so nothing outlives stop().
    XDG_DATA_HOME: path.join(root, 'xdg-data'),
    XDG_CONFIG_HOME: path.join(root, 'xdg-config'),
    TMPDIR: path.join(root, 'tmp'),
    // Outside the repo's mocha/NODE_OPTIONS: the extension host is not a test process.
    NODE_OPTIONS: undefined,
    // Keep everything on loopback: no marketplace queries to open-vsx.org.
    EXTENSIONS_GALLERY: JSON.stringify({
      serviceUrl: 'http://127.0.0.1:9/gallery',
      itemUrl: 'http://127.0.0.1:9/item',
      resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}',
    }),
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];

  const logPath = path.join(root, 'code-server.log');
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeLoopbackPort();
    const args = [
      binary,
      '--config', configPath,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      workspace,
    ];
    const output: string[] = [];
    const logStream = fs.createWriteStream(logPath, { flags: 'a' });
    const started = Date.now();
    const child: ChildProcess = spawn(nodeBin, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      logStream.write(chunk);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    let exited: number | string | null | undefined;
    const exitPromise = new Promise<void>((resolve) =>
      child.on('exit', (code, signal) => {
        exited = code ?? signal;
        resolve();
      }),
    );
    const origin = `http://127.0.0.1:${port}`;
    let ready = false;
    while (Date.now() - started < startTimeoutMs && exited === undefined) {
      try {
        const response = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) {
          ready = true;
          break;
        }
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    const startMs = Date.now() - started;
    const stop = async (removeDirs = true): Promise<string> => {
      if (exited === undefined && child.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
        await Promise.race([exitPromise, sleep(5_000)]);
        if (exited === undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
          await Promise.race([exitPromise, sleep(2_000)]);
        }
      }
      // Terminal shells run in their own sessions (node-pty setsid) and a server the
      // extension spawned detached outlives the group; the session marker finds them.
      const stragglers = sessionProcesses(sessionId);
      for (const pid of stragglers) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // gone
        }
      }
      if (stragglers.length) {
        await sleep(500);
        for (const pid of stragglers.filter(alive)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
        output.push(`[harness] stopped ${stragglers.length} leftover process(es) of this session: ${stragglers.join(', ')}\n`);
      }
      await new Promise<void>((resolve) => logStream.end(resolve));
      if (removeDirs && !keepDirs) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      return output.join('');
    };
    if (ready) {
      return {
        port,
        origin,
        workspace,
        userDataDir,
        extensionsDir,
        sessionId,
        pid: child.pid!,
        startMs,
        workbenchUrl: (folder = workspace) => `${origin}/?folder=${encodeURIComponent(folder)}`,
        log: () => output.join(''),
        collectLogs: (dir: string) => {
          fs.mkdirSync(dir, { recursive: true });
          fs.writeFileSync(path.join(dir, 'code-server.log'), output.join(''));
          const logsDir = path.join(userDataDir, 'logs');
          if (fs.existsSync(logsDir)) fs.cpSync(logsDir, path.join(dir, 'logs'), { recursive: true });
        },
        stop: () => stop(),
      };
    }
    const text = output.join('');
    await stop(false);
    lastError = new Error(
      exited !== undefined
        ? `code-server exited (${exited}) before answering on ${origin}:\n${text.slice(-4_000)}`
        : `code-server did not answer on ${origin}/healthz within ${startTimeoutMs} ms:\n${text.slice(-4_000)}`,
    );
    if (!/EADDRINUSE/.test(text)) break;
  }
  if (!keepDirs) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  throw lastError;
}
