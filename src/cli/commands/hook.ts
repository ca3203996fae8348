// `leasehold hook <Event>`: listed here for --help. The process entry (entry.ts) runs it before
// commander is even loaded; this action is reached only when global options come first
// (`leasehold --json hook Stop`), and does the same thing.
import type { Command } from 'commander';

export function registerHook(program: Command): void {
  program
    .command('hook <event>')
    .description('Claude Code hook: reads the event JSON on stdin and reports it to the lease server (always exits 0; logs to <runtime dir>/hook.log)')
    .allowUnknownOption()
    .action(async (event: string) => {
      const { hookMain } = await import('../hookMain.ts');
      await hookMain([event]);
    });
}
