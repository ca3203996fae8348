// Which JavaScript runtime runs the lease server. The server needs node:sqlite (Node 22.13) and
// its bundled HTTP client undici 8, which declares Node 22.19 (on 22.13 it fails as it loads):
// Node 22.19 or later. Preferred: the runtime VS Code itself runs on (process.execPath with
// ELECTRON_RUN_AS_NODE=1), so nothing needs installing; else the `leasehold.serverRuntime`
// setting; else a `node` on PATH. No vscode import: the probes are injected.

export const MIN_NODE = { major: 22, minor: 19 } as const;
export const MIN_NODE_TEXT = `${MIN_NODE.major}.${MIN_NODE.minor}`;

export function nodeVersionRunsServer(version: string | undefined): boolean {
  if (!version) return false;
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  if (!Number.isFinite(major) || !Number.isFinite(minor)) return false;
  return major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor);
}

export interface ServerRuntime {
  command: string;
  /** Extra env for the child (ELECTRON_RUN_AS_NODE for VS Code's own runtime). */
  env: Record<string, string>;
  nodeVersion: string;
  /** For the log: where it came from. */
  source: 'vscode' | 'setting' | 'path';
}

export type RuntimeChoice = { ok: true; runtime: ServerRuntime } | { ok: false; message: string; action: 'configureRuntime' };

export interface RuntimeProbe {
  /** The extension host's own runtime. */
  execPath: string;
  nodeVersion: string;
  /** True when the host is Electron (desktop VS Code): it then needs ELECTRON_RUN_AS_NODE=1. */
  isElectron: boolean;
  /**
   * Whether the host can load node:sqlite. Not implied by its Node version: some Electron
   * builds left the module out (electron/electron#47671, fixed by #47706). Default: true.
   */
  hostHasSqlite?: boolean;
  /** The `leasehold.serverRuntime` setting ('' when unset). */
  setting: string;
  /** Runs `<command>` to load node:sqlite and print its Node version; undefined when it cannot run or lacks node:sqlite. */
  versionOf(command: string): Promise<string | undefined>;
  /** `node` (or `node.exe`) on PATH, if any. */
  findNodeOnPath(): Promise<string | undefined>;
}

export async function chooseServerRuntime(probe: RuntimeProbe): Promise<RuntimeChoice> {
  const hostEnv: Record<string, string> = probe.isElectron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
  if (probe.setting.trim() !== '') {
    const command = probe.setting.trim();
    const version = await probe.versionOf(command);
    if (nodeVersionRunsServer(version)) return { ok: true, runtime: { command, env: {}, nodeVersion: version as string, source: 'setting' } };
    return {
      ok: false,
      action: 'configureRuntime',
      message: version
        ? `leasehold.serverRuntime names ${command}, which is Node ${version}; the lease server needs Node ${MIN_NODE_TEXT} or later. Point the setting at a newer node, or clear it.`
        : `leasehold.serverRuntime names ${command}, which could not be run. Point it at a Node ${MIN_NODE_TEXT}+ executable, or clear it.`,
    };
  }
  const hostHasSqlite = probe.hostHasSqlite ?? true;
  if (nodeVersionRunsServer(probe.nodeVersion) && hostHasSqlite) {
    return { ok: true, runtime: { command: probe.execPath, env: hostEnv, nodeVersion: probe.nodeVersion, source: 'vscode' } };
  }
  const onPath = await probe.findNodeOnPath();
  const pathVersion = onPath ? await probe.versionOf(onPath) : undefined;
  if (onPath && nodeVersionRunsServer(pathVersion)) {
    return { ok: true, runtime: { command: onPath, env: {}, nodeVersion: pathVersion as string, source: 'path' } };
  }
  const found = onPath ? ` The node on PATH (${onPath}) is ${pathVersion ? `Node ${pathVersion}` : 'not runnable or lacks node:sqlite'}.` : ' There is no node on PATH.';
  const host = hostHasSqlite ? `Node ${probe.nodeVersion}` : `Node ${probe.nodeVersion} built without node:sqlite`;
  return {
    ok: false,
    action: 'configureRuntime',
    message: `The lease server needs Node.js ${MIN_NODE_TEXT} or later. This VS Code runs ${host}.${found} Install Node.js ${MIN_NODE_TEXT}+ from https://nodejs.org (or update VS Code), then set leasehold.serverRuntime to its path or put it on PATH, and run "Leasehold: Restart Server".`,
  };
}

/**
 * How the extension runs the bundled CLI (`leasehold hooks install`, ...): on the chosen runtime
 * with its env. On VS Code's own runtime that env carries ELECTRON_RUN_AS_NODE=1, so the CLI runs
 * as Node (not a second VS Code) and, seeing process.versions.electron, writes hook commands
 * that set ELECTRON_RUN_AS_NODE=1 too; a real node gets no such variable from here.
 */
export function cliInvocation(
  runtime: Pick<ServerRuntime, 'command' | 'env'>,
  cliScript: string,
  args: readonly string[],
  baseEnv: NodeJS.ProcessEnv,
  runtimeDir: string,
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const env: NodeJS.ProcessEnv = { ...baseEnv, ...runtime.env, LEASEHOLD_RUNTIME_DIR: runtimeDir };
  return { command: runtime.command, args: [cliScript, ...args], env };
}
