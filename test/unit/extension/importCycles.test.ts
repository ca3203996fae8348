// The extension's modules form no import cycle (type-only imports count too): the context owns
// lifetimes and is handed the command table; commands, views and models import inward only.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/extension');

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? modules(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : []));
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((match) => path.resolve(path.dirname(file), match[1]!)).filter((target) => target.startsWith(root));
}

function cycles(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (file: string, stack: string[]) => {
    if (stack.includes(file)) {
      found.push([...stack.slice(stack.indexOf(file)), file].map((f) => path.relative(root, f)));
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...stack, file]);
    done.add(file);
  };
  for (const file of files) visit(file, []);
  return found;
}

describe('extension: module structure', () => {
  it('has no import cycle (commands.ts and context.ts no longer import each other)', () => {
    const files = modules(root);
    assert.ok(files.some((file) => file.endsWith('context.ts')));
    assert.deepEqual(cycles(files), []);
    assert.ok(!importsOf(path.join(root, 'context.ts')).some((target) => target.endsWith('commands.ts')), 'the context is handed the command table');
  });
});
