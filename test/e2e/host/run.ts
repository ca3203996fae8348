// The in-extension-host test entry: what @vscode/test-electron calls `extensionTestsPath`
// and what the code-server test-runner fixture loads. It runs mocha inside the extension
// host over the files named by LEASEHOLD_HOST_TEST_FILES and resolves with a JSON-able
// summary, or rejects (with the summary as `error.result`) when a test failed.
//
// Shipped to the host as a CommonJS bundle made by `buildHostSuite()` in
// ../harness/hostSuite.ts, because a desktop VS Code's Electron may not strip types.
//
// Env (set it on the code-server process, or in test-electron's `extensionTestsEnv`):
//   LEASEHOLD_HOST_TEST_FILES    test files, separated by path.delimiter (required)
//   LEASEHOLD_HOST_TIMEOUT_MS    mocha timeout per test (default 60000)
//   LEASEHOLD_HOST_GREP          mocha grep
//   LEASEHOLD_HOST_RESULT_FILE   also write the summary here as JSON
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface HostTestCase {
  title: string;
  fullTitle: string;
  file: string | undefined;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number | undefined;
  error: { message: string; stack: string | undefined } | undefined;
}

export interface HostSuiteResult {
  passed: number;
  failed: number;
  pending: number;
  durationMs: number;
  tests: HostTestCase[];
}

interface MochaTestLike {
  title: string;
  file?: string;
  duration?: number;
  fullTitle(): string;
}

export async function run(): Promise<HostSuiteResult> {
  const files = (process.env.LEASEHOLD_HOST_TEST_FILES ?? '').split(path.delimiter).filter(Boolean);
  if (files.length === 0) throw new Error('LEASEHOLD_HOST_TEST_FILES names no test file');
  const { default: Mocha } = await import('mocha');
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: Number(process.env.LEASEHOLD_HOST_TIMEOUT_MS ?? 60_000),
    ...(process.env.LEASEHOLD_HOST_GREP ? { grep: process.env.LEASEHOLD_HOST_GREP } : {}),
  });
  for (const file of files) mocha.addFile(path.resolve(file));
  await mocha.loadFilesAsync();

  const started = Date.now();
  const tests: HostTestCase[] = [];
  const record = (test: MochaTestLike, state: HostTestCase['state'], error?: unknown) =>
    tests.push({
      title: test.title,
      fullTitle: test.fullTitle(),
      file: test.file,
      state,
      durationMs: test.duration,
      error:
        error === undefined
          ? undefined
          : error instanceof Error
            ? { message: error.message, stack: error.stack }
            : { message: String(error), stack: undefined },
    });

  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', (test: MochaTestLike) => record(test, 'passed'));
    runner.on('fail', (test: MochaTestLike, error: unknown) => record(test, 'failed', error));
    runner.on('pending', (test: MochaTestLike) => record(test, 'pending'));
  });

  const result: HostSuiteResult = {
    passed: tests.filter((t) => t.state === 'passed').length,
    failed: tests.filter((t) => t.state === 'failed').length,
    pending: tests.filter((t) => t.state === 'pending').length,
    durationMs: Date.now() - started,
    tests,
  };
  const resultFile = process.env.LEASEHOLD_HOST_RESULT_FILE;
  if (resultFile) {
    fs.mkdirSync(path.dirname(resultFile), { recursive: true });
    fs.writeFileSync(resultFile, JSON.stringify(result, null, 2));
  }
  if (result.failed > 0) {
    const names = tests.filter((t) => t.state === 'failed').map((t) => `${t.fullTitle}: ${t.error?.message}`);
    throw Object.assign(new Error(`${result.failed} of ${tests.length} host tests failed:\n${names.join('\n')}`), {
      result,
    });
  }
  return result;
}
