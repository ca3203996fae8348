// SQLite: a write to a wait-lease row that leaves its version alone has the version moved for
// it, so the version tells one row version from another for every write, as PostgreSQL's xmin
// does. The hold loop reads each tick only the (id, version) of its leases and reads again in
// full only the rows whose version it has not seen (heldLeases). Every transition moves the
// version already, so the trigger fires only for a write made some other way: by hand in the
// sqlite3 shell, the startup adoption of rows from before ownership was recorded, or a writer
// that forgot. With 1,000 held leases a SQLite tick read and built every row, 50 columns and
// five JSON texts each, every two seconds.
// (No semicolons inside comments: the runner splits on them. The trigger is one line: its inner
// semicolon is not followed by a line break.)
import type { Migration } from './migration.ts';

export const waitLeaseVersionMovesMigration: Migration = {
  version: 17,
  name: 'wait_lease_version_moves',
  sqlite:
    'CREATE TRIGGER wait_leases_version_moves AFTER UPDATE ON wait_leases FOR EACH ROW WHEN NEW.version = OLD.version BEGIN UPDATE wait_leases SET version = version + 1 WHERE id = NEW.id; END;\n',
  postgres: '',
};
