// Extension figures. `packageVsix()` builds the .vsix exactly as `npm run package` does
// (production esbuild bundles, then `vsce package --no-dependencies`), but in a scratch copy so
// the shared working tree's dist/ (and a running workbench using it) is left alone. The e2e run
// (test/e2e/extension.e2e.ts) calls it and also measures activation time and the lease-change →
// status-bar latency in a real workbench; `npm run bench extension` prints the .vsix size and the
// last e2e run's figures (test-artifacts/e2e/figures.txt).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report } from './stats.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface VsixFigures {
  file: string;
  bytes: number;
  files: string[];
  buildMs: number;
}

/** Builds leasehold-<version>.vsix in a scratch folder and returns its size and contents. */
export function packageVsix(outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-vsix-'))): VsixFigures {
  const started = Date.now();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-vsix-work-'));
  try {
    for (const entry of ['package.json', 'README.md', 'LICENSE', '.vscodeignore', 'bin', 'media']) {
      if (fs.existsSync(path.join(repoRoot, entry))) fs.cpSync(path.join(repoRoot, entry), path.join(work, entry), { recursive: true });
    }
    // The build reads sources relative to its cwd; link them in for the build only.
    fs.symlinkSync(path.join(repoRoot, 'src'), path.join(work, 'src'));
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(work, 'node_modules'));
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs'), '--production'], { cwd: work, stdio: 'pipe' });
    fs.rmSync(path.join(work, 'src'));
    fs.rmSync(path.join(work, 'node_modules'));
    const version = (JSON.parse(fs.readFileSync(path.join(work, 'package.json'), 'utf8')) as { version: string }).version;
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `leasehold-${version}.vsix`);
    const vsce = path.join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '-o', file], { cwd: work, stdio: 'pipe' });
    const listing = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: work, encoding: 'utf8' });
    return { file, bytes: fs.statSync(file).size, files: listing.split('\n').filter(Boolean), buildMs: Date.now() - started };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export async function benchExtension(): Promise<void> {
  const vsix = packageVsix();
  report('extension: .vsix size', { bytes: vsix.bytes, KiB: (vsix.bytes / 1024).toFixed(1), files: vsix.files.length, build_ms: vsix.buildMs });
  fs.rmSync(path.dirname(vsix.file), { recursive: true, force: true });
  const figures = path.join(repoRoot, 'test-artifacts', 'e2e', 'figures.txt');
  if (fs.existsSync(figures)) {
    process.stdout.write(`extension: figures of the last e2e run (${path.relative(repoRoot, figures)}, ${fs.statSync(figures).mtime.toISOString()}):\n`);
    process.stdout.write(fs.readFileSync(figures, 'utf8'));
  } else {
    process.stdout.write('extension: activation time and status-bar latency come from the e2e run: bash scripts/e2e/run.sh --grep extension\n');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchExtension();
