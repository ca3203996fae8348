// A bench script run in a process of its own, which prints its result as JSON on its last line.
import { spawn } from 'node:child_process';

/**
 * Runs `script` with `args` (and `stdin`, for what may not go on a command line) and returns its
 * last stdout line parsed; the lines before it are passed through to this process's stdout.
 */
export async function lastJsonLine<T>(script: string, args: readonly string[] = [], stdin?: string): Promise<T> {
  const child = spawn(process.execPath, [script, ...args], { stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'] });
  if (stdin !== undefined) child.stdin!.end(stdin);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${script} exited ${code}`);
  const lines = output.trim().split('\n');
  for (const line of lines.slice(0, -1)) process.stdout.write(`${line}\n`);
  return JSON.parse(lines.at(-1)!) as T;
}
