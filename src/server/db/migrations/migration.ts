// The shape of one numbered migration (index.ts lists them; each file exports one).
import type { SqlExecutor } from '../sql.ts';

export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
  /** Steps SQL text cannot say (SQLite rebuilding a table from its own current DDL), run after the script, in its transaction. */
  steps?: { sqlite?: (tx: SqlExecutor) => Promise<void>; postgres?: (tx: SqlExecutor) => Promise<void> };
}
