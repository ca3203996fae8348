// `leasehold todo add|list|requeue`
import type { Command } from 'commander';
import { formatDurationSeconds } from '../../core/duration.ts';
import { todoStateSchema } from '../../core/wire/claims.ts';
import { connect, type ConnectionOptions } from '../connect.ts';
import { printJson, printTable, UsageError } from '../output.ts';

export function registerTodo(program: Command): void {
  const todo = program.command('todo').description('add and list todos on queues');
  const globals = (command: Command) => command.optsWithGlobals() as ConnectionOptions & { json?: boolean };

  todo
    .command('add <queue> <title>')
    .description('add a todo to a queue')
    .option('--payload <json>', 'JSON payload for the worker')
    .action(async (queue: string, title: string, options: { payload?: string }, command: Command) => {
      const opts = globals(command);
      let payload: unknown;
      if (options.payload !== undefined) {
        try {
          payload = JSON.parse(options.payload);
        } catch (error) {
          throw new UsageError(`--payload: not valid JSON (${(error as Error).message})`);
        }
      }
      const created = await connect(opts).createTodo({ queue, title, payload });
      if (opts.json) return printJson(created);
      process.stdout.write(`Added ${created.id} to ${created.queue}\n`);
    });

  todo
    .command('requeue <todo-id>')
    .description('hand a claimed todo back to its queue now; its holder can no longer complete it')
    .action(async (todoId: string, _options: unknown, command: Command) => {
      const opts = globals(command);
      const requeued = await connect(opts).requeueTodo(todoId);
      if (opts.json) return printJson(requeued);
      process.stdout.write(`Requeued ${requeued.id} on ${requeued.queue}\n`);
    });

  todo
    .command('list')
    .description('list todos, with holder and lease remaining')
    .option('--queue <queue>', 'only this queue')
    .option('--state <state>', 'queued, claimed or done')
    .action(async (options: { queue?: string; state?: string }, command: Command) => {
      const opts = globals(command);
      const state = options.state === undefined ? undefined : todoStateSchema.safeParse(options.state);
      if (state && !state.success) throw new UsageError('--state: must be queued, claimed or done');
      const todos = await connect(opts).listTodos({ queue: options.queue, state: state?.data });
      if (opts.json) return printJson(todos);
      process.stdout.write(
        `${printTable(
          todos.map((item) => ({
            ID: item.id,
            QUEUE: item.queue,
            STATE: item.state,
            HOLDER: item.holder?.slug ?? (item.held_by_other ? '(another human)' : ''),
            EPOCH: String(item.claim_epoch),
            LEASE: item.lease_remaining_ms === null ? '' : `${formatDurationSeconds(Math.ceil(item.lease_remaining_ms / 1000))} left`,
            TITLE: item.title,
          })),
          ['ID', 'QUEUE', 'STATE', 'HOLDER', 'EPOCH', 'LEASE', 'TITLE'],
        )}\n`,
      );
    });
}
