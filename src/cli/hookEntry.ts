// Bundle entry of dist/cli/hook.js, what Claude Code settings run (`leasehold hooks install`):
// `"<node>" "<dist>/cli/hook.js" hook <Event>`. No commander, no client, no server.
import { runHookProcess } from './hookMain.ts';

runHookProcess(process.argv.slice(2));
