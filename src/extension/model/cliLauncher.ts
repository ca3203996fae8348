// The `leasehold` command in VS Code's integrated terminals: a tiny POSIX launcher for the CLI
// bundled with this extension, on the runtime the extension chose (VS Code's own as Node, or a
// Node on PATH). It lives in the extension's global storage (stable across updates) and is
// rewritten on each activation, so an update moving the extension's folder never breaks it.
// Pure: the caller writes the file and puts its folder on the terminals' PATH.

/** A string as one POSIX shell word. */
export function shellWord(value: string): string {
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/** The launcher script, or undefined where a POSIX shell script cannot run (Windows). */
export function cliLauncherScript(runtime: { command: string; env: Record<string, string> }, cliScript: string, platform: NodeJS.Platform): string | undefined {
  if (platform === 'win32') return undefined;
  const env = Object.entries(runtime.env)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `${name}=${shellWord(value)} `)
    .join('');
  return [
    '#!/bin/sh',
    '# leasehold: the CLI bundled with the Leasehold VS Code extension (rewritten on each activation).',
    `${env}exec ${shellWord(runtime.command)} ${shellWord(cliScript)} "$@"`,
    '',
  ].join('\n');
}
