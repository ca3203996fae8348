// A process tree from one snapshot of the process table, as pure functions of the rows read
// (the reading itself is src/server/observe/processInfo.ts). Shared by the server (a held
// pid's progress marker, src/core/waitLease/evidence.ts) and the Claude Code hook (finding a
// backgrounded command's process, src/claude/processTree.ts), so neither imports the other.

/** What a walk needs of one process-table row. */
export interface ProcessNode {
  pid: number;
  ppid: number;
  /** Single-letter scheduler state; "Z" is a process that exited and was not yet waited for. */
  state: string;
}

/**
 * Every descendant of `pid` in `table` (one snapshot), breadth first: children before
 * grandchildren. `pid`'s own row is not included. Exited-but-unreaped rows (zombies) are
 * included; a caller that wants only live processes leaves them out of `table`. A process
 * reparented away (double fork, setsid daemons) is no longer a descendant. A cycle (a table
 * that changed under its reader) is walked once.
 */
export function descendantsIn<P extends ProcessNode>(pid: number, table: readonly P[]): P[] {
  const childrenOf = new Map<number, P[]>();
  for (const row of table) {
    if (row.pid === row.ppid) continue;
    const siblings = childrenOf.get(row.ppid);
    if (siblings) siblings.push(row);
    else childrenOf.set(row.ppid, [row]);
  }
  const result: P[] = [];
  const seen = new Set<number>([pid]);
  // `result` is the queue too: index -1 is `pid` itself, then each descendant in the order found.
  for (let index = -1; index < result.length; index++) {
    for (const child of childrenOf.get(index < 0 ? pid : result[index]!.pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      result.push(child);
    }
  }
  return result;
}
