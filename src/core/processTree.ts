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

/** The rows of one snapshot by parent pid: built once, walked for any number of roots. */
export type ChildrenIndex<P extends ProcessNode = ProcessNode> = ReadonlyMap<number, readonly P[]>;

/** Indexes one snapshot by parent pid (a row that names itself as its parent is no one's child). */
export function childrenIndex<P extends ProcessNode>(table: readonly P[]): ChildrenIndex<P> {
  const childrenOf = new Map<number, P[]>();
  for (const row of table) {
    if (row.pid === row.ppid) continue;
    const siblings = childrenOf.get(row.ppid);
    if (siblings) siblings.push(row);
    else childrenOf.set(row.ppid, [row]);
  }
  return childrenOf;
}

/**
 * Every descendant of `pid` in one snapshot (its rows, or their childrenIndex when several
 * roots are walked), breadth first: children before grandchildren. `pid`'s own row is not
 * included. Exited-but-unreaped rows (zombies) are included; a caller that wants only live
 * processes leaves them out of the table. A process reparented away (double fork, setsid
 * daemons) is no longer a descendant. A cycle (a table that changed under its reader) is
 * walked once.
 */
export function descendantsIn<P extends ProcessNode>(pid: number, table: readonly P[] | ChildrenIndex<P>): P[] {
  const childrenOf = Array.isArray(table) ? childrenIndex(table as readonly P[]) : (table as ChildrenIndex<P>);
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
