// Runs an in-extension-host suite in a desktop VS Code through @vscode/test-electron, with the
// same bundle the code-server runner uses (see ../README.md). Needs a VS Code executable on
// the machine (no download here) and @vscode/test-electron installed (a dev dependency the
// extension's package.json adds when it wants this path).
//
//   node test/e2e/host/runDesktop.ts --vscode /usr/share/code/code \
//     --extension . [--extension test/e2e/fixtures/smoke-extension] [--workspace dir] \
//     test/e2e/fixtures/host-suite/smoke.host.ts
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { buildHostSuite } from '../harness/hostSuite.ts';
import { repoRoot } from '../harness/codeServer.ts';

interface TestElectron {
  runTests(options: {
    vscodeExecutablePath: string;
    extensionDevelopmentPath: string | string[];
    extensionTestsPath: string;
    extensionTestsEnv?: Record<string, string | undefined>;
    launchArgs?: string[];
  }): Promise<number>;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    vscode: { type: 'string' },
    extension: { type: 'string', multiple: true },
    workspace: { type: 'string' },
  },
});
const vscodeExecutablePath = values.vscode ?? process.env.LEASEHOLD_VSCODE_EXECUTABLE;
if (!vscodeExecutablePath || positionals.length === 0) {
  console.error('usage: runDesktop.ts --vscode <VS Code executable> --extension <folder>... <test files>');
  process.exit(2);
}
const moduleName = '@vscode/test-electron';
let testElectron: TestElectron;
try {
  testElectron = (await import(moduleName)) as TestElectron;
} catch {
  console.error(`${moduleName} is not installed: npm install --save-dev ${moduleName}`);
  process.exit(2);
}
const outDir = path.join(repoRoot, 'test-artifacts', 'e2e', 'host-suite-desktop');
const bundle = await buildHostSuite(positionals, path.join(outDir, 'bundle'));
const resultFile = path.join(outDir, 'result.json');
const workspace = values.workspace ?? fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-host-'));
const exitCode = await testElectron.runTests({
  vscodeExecutablePath,
  extensionDevelopmentPath: (values.extension ?? [repoRoot]).map((p) => path.resolve(p)),
  extensionTestsPath: bundle.testsPath,
  extensionTestsEnv: { ...bundle.env, LEASEHOLD_HOST_RESULT_FILE: resultFile },
  launchArgs: [workspace, '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
});
console.log(`host suite result: ${resultFile}`);
process.exit(exitCode);
