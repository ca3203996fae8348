// Builds leasehold-<version>.vsix: production esbuild bundles, then `vsce package
// --no-dependencies`, in a scratch copy so the working tree's dist/ (and a workbench running it)
// is left alone. `npm run package` runs this with `.` as the output folder; the e2e run and
// bench/extension.ts import it to measure the .vsix.
//
// The staged package.json drops `files`: npm pack needs it (the CLI tarball), and vsce refuses a
// manifest that has both `files` and a .vscodeignore, which is what selects the .vsix contents.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface VsixFigures {
  file: string;
  bytes: number;
  files: string[];
  buildMs: number;
}

/** Builds leasehold-<version>.vsix into `outDir` and returns its size and contents. */
export function packageVsix(outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-vsix-'))): VsixFigures {
  const started = Date.now();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-vsix-work-'));
  try {
    for (const entry of ['README.md', 'LICENSE', '.vscodeignore', 'bin', 'media']) {
      if (fs.existsSync(path.join(repoRoot, entry))) fs.cpSync(path.join(repoRoot, entry), path.join(work, entry), { recursive: true });
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string; files?: string[] };
    delete manifest.files;
    fs.writeFileSync(path.join(work, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    // The build reads sources relative to its cwd; link them in for the build only.
    fs.symlinkSync(path.join(repoRoot, 'src'), path.join(work, 'src'));
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(work, 'node_modules'));
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs'), '--production'], { cwd: work, stdio: 'pipe' });
    fs.rmSync(path.join(work, 'src'));
    fs.rmSync(path.join(work, 'node_modules'));
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.resolve(outDir, `leasehold-${manifest.version}.vsix`);
    const vsce = path.join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '-o', file], { cwd: work, stdio: 'pipe' });
    const listing = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: work, encoding: 'utf8' });
    return { file, bytes: fs.statSync(file).size, files: listing.split('\n').filter(Boolean), buildMs: Date.now() - started };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const vsix = packageVsix(process.argv[2] ?? '.');
  process.stdout.write(`${path.relative(process.cwd(), vsix.file) || vsix.file}: ${(vsix.bytes / 1024).toFixed(1)} KiB, ${vsix.files.length} files\n`);
}
