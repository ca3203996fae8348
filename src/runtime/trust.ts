// Whom the runtime dir's files can be trusted from, checked before anything is written there or
// a token is sent anywhere it names. Two rules, one place, used by the server (before it writes
// server.json and the token), the CLI and the Claude Code hook (before they send the human
// token to the URL server.json names):
// - the runtime dir must be this user's and writable by nobody else: otherwise another user
//   could plant a server.json pointing at their own listener and collect the token;
// - server.json must name a live process of this user on a loopback URL.
//
// Leaf module: node:fs through builtins (the hook process loads it; see builtins.ts).
import { nodeFs } from './builtins.ts';

/** Why this runtime dir must not be used (with the fix), or null when it is safe or does not exist yet. */
export function unsafeRuntimeDir(dir: string): string | null {
  let stat;
  try {
    stat = nodeFs().statSync(dir);
  } catch {
    return null; // created later, 0700
  }
  const uid = process.getuid?.();
  if (uid === undefined) return null; // Windows: ACLs, not modes
  if (!stat.isDirectory()) return `runtime dir ${dir} is not a directory. Fix: remove it, or set LEASEHOLD_RUNTIME_DIR to a directory of your own.`;
  if (stat.uid !== uid) {
    return `runtime dir ${dir} belongs to uid ${stat.uid}, not to you (uid ${uid}); its server.json and token cannot be trusted. Fix: remove it (\`sudo rm -rf ${dir}\`), or set LEASEHOLD_RUNTIME_DIR to a directory of your own.`;
  }
  if ((stat.mode & 0o022) !== 0) {
    const mode = (stat.mode & 0o777).toString(8);
    return `runtime dir ${dir} has mode ${mode}: other users could replace its server.json and collect your token. Fix: \`chmod 700 ${dir}\` (or remove it and let the server recreate it).`;
  }
  return null;
}

const LOOPBACK_URL = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/;

/**
 * Why the server server.json names must not be sent a token, or null when it is a live process
 * of this user on a loopback URL. A pid that no longer runs (a crashed server's leftover) or
 * that belongs to another user is not our server, whatever answers on that port now.
 */
export function untrustedServer(discovery: { pid?: unknown; url?: unknown }): string | null {
  const { pid, url } = discovery;
  if (typeof url !== 'string' || !LOOPBACK_URL.test(url)) return `server.json names ${String(url)}, not a loopback http URL`;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return 'server.json names no server pid';
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return `server.json names pid ${pid}, which is not running (a stale file)`;
    return `server.json names pid ${pid}, which belongs to another user`;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && process.platform === 'linux') {
    try {
      const owner = nodeFs().statSync(`/proc/${pid}`).uid;
      if (owner !== uid) return `server.json names pid ${pid}, which belongs to uid ${owner}, not to you`;
    } catch {
      return `server.json names pid ${pid}, which is not running (a stale file)`;
    }
  }
  return null;
}
