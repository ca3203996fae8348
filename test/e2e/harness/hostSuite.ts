// Runs a mocha suite inside code-server's extension host, the way @vscode/test-electron runs
// `extensionTestsPath` inside a desktop VS Code. The suite's files are bundled to CommonJS
// (vscode and mocha external) so the same bundle loads in either host.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';
import { openWorkbench } from './browser.ts';
import type { Workbench, WorkbenchOptions } from './browser.ts';
import { repoRoot, startCodeServer } from './codeServer.ts';
import type { CodeServer, CodeServerOptions } from './codeServer.ts';
import type { HostSuiteResult } from '../host/run.ts';

export type { HostSuiteResult, HostTestCase } from '../host/run.ts';

export const testRunnerExtension = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'test-runner');

export interface HostSuiteBundle {
  /** The bundled test entry (exports run()); pass it as extensionTestsPath. */
  testsPath: string;
  /** The bundled test files, in the order given. */
  testFiles: string[];
  /** Env for the extension host that tells run() which files to load. */
  env: Record<string, string>;
}

/** Bundles ../host/run.ts and each test file to CommonJS under outDir. */
export async function buildHostSuite(testFiles: string[], outDir: string): Promise<HostSuiteBundle> {
  fs.rmSync(outDir, { recursive: true, force: true });
  const common = {
    bundle: true,
    platform: 'node' as const,
    format: 'cjs' as const,
    target: 'node20',
    external: ['vscode', 'mocha'],
    sourcemap: 'inline' as const,
    logLevel: 'warning' as const,
  };
  const testsPath = path.join(outDir, 'run.cjs');
  await build({ ...common, entryPoints: [path.join(repoRoot, 'test', 'e2e', 'host', 'run.ts')], outfile: testsPath });
  const bundled: string[] = [];
  for (const [index, file] of testFiles.entries()) {
    const out = path.join(outDir, 'tests', `${index}-${path.basename(file).replace(/\.[cm]?[jt]s$/, '')}.cjs`);
    await build({ ...common, entryPoints: [path.resolve(file)], outfile: out });
    bundled.push(out);
  }
  // mocha resolves from the repo's node_modules whatever outDir is.
  fs.writeFileSync(path.join(outDir, 'package.json'), '{ "type": "commonjs" }\n');
  return { testsPath, testFiles: bundled, env: { LEASEHOLD_HOST_TEST_FILES: bundled.join(path.delimiter) } };
}

export interface HostRunOutcome {
  status: 'passed' | 'failed';
  durationMs?: number;
  error?: { message: string; stack?: string };
  result: HostSuiteResult | null;
}

export interface RunHostSuiteOptions {
  /** Test files (TypeScript or JavaScript) using mocha's bdd globals and `vscode`. */
  files: string[];
  /** Extensions under test (unpacked folders); the test-runner fixture is added. */
  extensions?: string[];
  /** Extra env for the extension host (e.g. the test lease server's runtime dir). */
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
  workspace?: string;
  /** Where to bundle and write results; default test-artifacts/e2e/host-suite. */
  outDir?: string;
  /** How long the whole suite may take (default 5 min). */
  timeoutMs?: number;
  /** Per-test mocha timeout inside the host (default 60 s). */
  testTimeoutMs?: number;
  grep?: string;
  codeServer?: Omit<CodeServerOptions, 'extensions' | 'env' | 'settings' | 'workspace'>;
  workbench?: WorkbenchOptions;
  /** Called with the open workbench while the suite runs (e.g. to take screenshots). */
  duringRun?: (workbench: Workbench) => Promise<void>;
}

/**
 * Starts code-server with the extensions and the test-runner fixture, opens the workbench
 * (code-server starts an extension host only for a connected window), waits for the result
 * file and stops everything. Resolves with the outcome; does not throw on test failures.
 */
export async function runHostSuite(options: RunHostSuiteOptions): Promise<HostRunOutcome & { server: Pick<CodeServer, 'startMs'>; log: string }> {
  const outDir = options.outDir ?? path.join(repoRoot, 'test-artifacts', 'e2e', 'host-suite');
  const bundle = await buildHostSuite(options.files, path.join(outDir, 'bundle'));
  const resultFile = path.join(outDir, 'result.json');
  fs.rmSync(resultFile, { force: true });
  fs.rmSync(`${resultFile}.lock`, { force: true });
  const server = await startCodeServer({
    ...options.codeServer,
    extensions: [...(options.extensions ?? []), testRunnerExtension],
    settings: options.settings,
    workspace: options.workspace,
    env: {
      ...options.env,
      ...bundle.env,
      LEASEHOLD_E2E_TESTS_PATH: bundle.testsPath,
      LEASEHOLD_E2E_RESULT_FILE: resultFile,
      LEASEHOLD_HOST_TIMEOUT_MS: String(options.testTimeoutMs ?? 60_000),
      ...(options.grep ? { LEASEHOLD_HOST_GREP: options.grep } : {}),
    },
  });
  let workbench: Workbench | undefined;
  try {
    workbench = await openWorkbench(server, options.workbench);
    if (options.duringRun) await options.duringRun(workbench);
    const timeoutMs = options.timeoutMs ?? 5 * 60_000;
    const deadline = Date.now() + timeoutMs;
    while (!fs.existsSync(resultFile)) {
      if (Date.now() > deadline) {
        throw new Error(
          `no host test result at ${resultFile} after ${timeoutMs} ms (did the test-runner extension activate?)\n` +
            `code-server log tail:\n${server.log().slice(-3_000)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const outcome = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as HostRunOutcome;
    return { ...outcome, server: { startMs: server.startMs }, log: server.log() };
  } finally {
    await workbench?.close();
    server.collectLogs(path.join(outDir, 'logs'));
    await server.stop();
  }
}
