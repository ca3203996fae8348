// Bundles what ships: the CLI/server (ESM, split so a hook loads only what it runs) and, when
// present, the VS Code extension (CommonJS, `vscode` external).
import { existsSync } from 'node:fs';
import { build } from 'esbuild';

const production = process.argv.includes('--production');
const common = { bundle: true, platform: 'node', target: 'node22', sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none' };

await build({
  ...common,
  entryPoints: { leasehold: 'src/cli/entry.ts' },
  outdir: 'dist/cli',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Some dependencies are CommonJS that call require(); give the ESM bundle a require.
  banner: { js: "import { createRequire as __leaseholdCreateRequire } from 'node:module'; const require = __leaseholdCreateRequire(import.meta.url);" },
  external: ['pg-native'],
});

if (existsSync('src/extension/extension.ts')) {
  await build({
    ...common,
    entryPoints: { extension: 'src/extension/extension.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    external: ['vscode'],
  });
}
