// `npm run bench`: every benchmark, one after another, printing figures (medians, p99, ratios).
import { readdirSync } from 'node:fs';

const only = process.argv[2];
const files = readdirSync(new URL('.', import.meta.url)).filter((file) => file.endsWith('.ts') && !['run.ts', 'stats.ts'].includes(file));
for (const file of files.sort()) {
  if (only && !file.startsWith(only)) continue;
  const module = (await import(new URL(file, import.meta.url).href)) as Record<string, unknown>;
  const entry = Object.entries(module).find(([name, value]) => name.startsWith('bench') && typeof value === 'function');
  if (entry) await (entry[1] as () => Promise<void>)();
}
// Peers' clients (pg-boss, BullMQ) may leave sockets open: the figures are printed, so stop.
process.exit(0);
