// Bundles what ships: the CLI/server (ESM, split so a hook loads only what it runs) and, when
// present, the VS Code extension (CommonJS, `vscode` external).
import { existsSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry content hashes: start clean so stale chunks never pile up or ship.
rmSync('dist/cli', { recursive: true, force: true });

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

// dist/cli/hook.js: what Claude Code settings run for every hooked event (`leasehold hooks
// install`). Its own bundle, always minified and not sharing chunks with the CLI, with no
// dependency at all (no zod: the hook checks its input by hand, the server validates with
// zod): the entry holds only triage (src/cli/hookMain.ts), and the planner and delivery load
// (as one chunk) only for an event that carries something. test/unit/claude/hookBundle.test.ts
// keeps it that way.
await build({
  ...common,
  minify: true,
  entryPoints: { hook: 'src/cli/hookEntry.ts' },
  outdir: 'dist/cli',
  format: 'esm',
  splitting: true,
  chunkNames: 'hook-chunks/[name]-[hash]',
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
