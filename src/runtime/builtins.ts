// Node built-ins for code the Claude Code hook process loads (src/claude/, src/runtime/spool.ts,
// src/server/observe/processInfo.ts), taken as CommonJS exports rather than ESM imports. An
// ESM `import ... from 'node:http'` builds a module namespace, which reads every export,
// lazy getters included: node:http's WebSocket/EventSource getters load undici (~70 ms of a
// hook run here), node:fs's `promises` loads fs/promises (~6 ms, on every hook call when the
// entry imported it). process.getBuiltinModule (Node 20.16,
// 22.3) returns the exports object and touches none of them. Older runtimes (the Electron of
// an older VS Code, which the installed hook command may run as Node) get the same object
// through require.
import { createRequire } from 'node:module';

let fallbackRequire: NodeJS.Require | undefined;

function load(id: string): unknown {
  if (typeof process.getBuiltinModule === 'function') return process.getBuiltinModule(id);
  // Any absolute path serves as the base: built-ins resolve the same from everywhere.
  fallbackRequire ??= createRequire(process.execPath);
  return fallbackRequire(id);
}

export const nodeFs = (): typeof import('node:fs') => load('node:fs') as typeof import('node:fs');
export const nodeHttp = (): typeof import('node:http') => load('node:http') as typeof import('node:http');
export const nodeStringDecoder = (): typeof import('node:string_decoder') => load('node:string_decoder') as typeof import('node:string_decoder');
export const nodeChildProcess = (): typeof import('node:child_process') => load('node:child_process') as typeof import('node:child_process');
