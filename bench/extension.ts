// Extension figures: the .vsix as `npm run package` builds it (scripts/packageVsix.ts). The e2e run
// (test/e2e/extension.e2e.ts) calls it and also measures activation time and the lease-change →
// status-bar latency in a real workbench; `npm run bench extension` prints the .vsix size and the
// last e2e run's figures (test-artifacts/e2e/figures.txt).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVsix } from '../scripts/packageVsix.ts';
import { report } from './stats.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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
