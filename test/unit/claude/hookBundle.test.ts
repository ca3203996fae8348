// The hook bundle (dist/cli/hook.js, run by Claude Code for every hooked event) must stay
// small: every module it loads is startup time added to the user's turn. Bundles it the way
// scripts/build.mjs does and checks what went in, so a stray import (zod, the typed client,
// the server) fails here rather than only in the benchmark.
import assert from 'node:assert/strict';
import { build } from 'esbuild';
import { nodeChildProcess, nodeFs, nodeHttp, nodeStringDecoder } from '../../../src/runtime/builtins.ts';

/** Whole hook bundle, entry and lazily loaded chunks; today about 20 KB. */
const MAX_HOOK_BUNDLE_BYTES = 64 * 1024;

describe('hook bundle', function () {
  this.timeout(30_000);

  it('loads no dependency (no zod), no costly built-in as an ESM import, and stays small', async () => {
    const result = await build({
      entryPoints: { hook: 'src/cli/hookEntry.ts' },
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      splitting: true,
      minify: true,
      outdir: 'dist/hook-bundle-check',
      chunkNames: 'hook-chunks/[name]-[hash]',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = Object.values(result.metafile.outputs);
    const inputs = new Set(outputs.flatMap((output) => Object.keys(output.inputs)));
    const dependencies = [...inputs].filter((path) => path.includes('node_modules/'));
    assert.deepEqual(dependencies, [], 'the hook bundle pulls in dependencies');
    for (const forbidden of ['src/core/wire/hookOps.ts', 'src/client/', 'src/server/http/', 'src/server/hooks/']) {
      assert.ok(![...inputs].some((path) => path.startsWith(forbidden)), `the hook bundle includes ${forbidden}`);
    }
    // An ESM import of these built-ins reads all their exports, lazy getters included
    // (node:http's load undici, node:fs's fs/promises): ~85 ms per hook run together.
    // src/runtime/builtins.ts gets them instead.
    const builtins = new Set(outputs.flatMap((output) => output.imports.filter((entry) => entry.external).map((entry) => entry.path)));
    for (const costly of ['node:fs', 'node:http', 'node:https', 'node:crypto', 'node:child_process', 'fs', 'http', 'crypto', 'child_process']) {
      assert.ok(!builtins.has(costly), `the hook bundle imports ${costly} as an ESM module`);
    }
    const bytes = outputs.reduce((sum, output) => sum + output.bytes, 0);
    assert.ok(bytes < MAX_HOOK_BUNDLE_BYTES, `hook bundle is ${bytes} bytes`);
  });

  it('gets the built-ins on a runtime without process.getBuiltinModule too (the Electron of an older VS Code)', () => {
    const native = { http: nodeHttp(), fs: nodeFs(), childProcess: nodeChildProcess(), stringDecoder: nodeStringDecoder() };
    const descriptor = Object.getOwnPropertyDescriptor(process, 'getBuiltinModule');
    Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true, writable: true });
    try {
      assert.equal(nodeHttp(), native.http);
      assert.equal(nodeFs(), native.fs);
      assert.equal(nodeChildProcess(), native.childProcess);
      assert.equal(nodeStringDecoder(), native.stringDecoder);
    } finally {
      if (descriptor) Object.defineProperty(process, 'getBuiltinModule', descriptor);
    }
    assert.equal(typeof process.getBuiltinModule, 'function');
  });
});
