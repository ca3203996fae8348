// Who this server acts for: a human and this machine's device token (issue 9).
//
// A human is a name (an identity). Each machine a human runs a server on holds its own device
// token: in the runtime dir (0600) and as a hash in `devices`. Starting a server only ever
// issues or keeps THIS machine's token, so servers of one human on several machines, started
// and restarted in any order, never invalidate each other's. A missing or replaced token file
// (a cleared runtime dir) gets a fresh device token, and this machine's lost one is revoked.
//
// Which identity: the one named by --identity / LEASEHOLD_IDENTITY; else the one this machine
// used last (its newest device); else on SQLite the OS user name (one machine, zero
// configuration) and in team mode user@host, which never silently joins a human that has no
// history on this machine (a devcontainer's `vscode`, CI's `root` are shared names).
import { readFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import type { Clock } from '../../core/clock.ts';
import { LeaseholdError } from '../../core/errors.ts';
import { defaultTeamIdentity, disambiguatedIdentity, identityProblem } from '../../core/identity.ts';
import { generateId, generateToken, hashToken } from '../auth/tokens.ts';
import type { ClaimStore } from '../claims/claimStore.ts';
import type { HumanRecord } from '../claims/records.ts';
import { writePrivateFile } from '../../runtime/discovery.ts';
import { runtimeFiles } from '../../runtime/paths.ts';
import type { MachineIdentity } from '../team/machineRegistry.ts';

export function localHumanName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'local';
  }
}

export interface LocalHumanOptions {
  runtimeDir: string;
  clock: Clock;
  machine: MachineIdentity;
  /** Shared database (PostgreSQL): the default identity is user@host, and the choice is announced. */
  team: boolean;
  /** The identity asked for (--identity, LEASEHOLD_IDENTITY); validated here. */
  identity?: string;
}

export interface LocalHuman {
  human: HumanRecord;
  token: string;
  deviceId: string;
  /** Team mode: which identity this server acts as and how to choose another (printed at start). */
  notice?: string;
}

type How = 'kept' | 'chosen' | 'this machine' | 'default' | 'default, renamed';

function noticeFor(human: HumanRecord, how: How, isNew: boolean, machine: MachineIdentity, deviceId: string): string {
  const why: Record<How, string> = {
    kept: 'this machine\'s identity',
    chosen: 'chosen with --identity or LEASEHOLD_IDENTITY',
    'this machine': 'the identity this machine used last',
    default: 'the default, user@host',
    'default, renamed': 'the default user@host was taken by a human with no history on this machine, so this machine\'s suffix was added',
  };
  return (
    `team mode: acting as identity "${human.name}" (${isNew ? 'new' : 'existing'} human; ${why[how]}), ` +
    `device ${deviceId} on machine ${machine.label} (${machine.id}). ` +
    'To act as another identity, restart with --identity NAME or LEASEHOLD_IDENTITY=NAME; the same name on each of your ' +
    'machines makes them one human, each with its own device token (`leasehold device list`, `leasehold device revoke ID`).'
  );
}

export async function ensureLocalHuman(store: ClaimStore, options: LocalHumanOptions): Promise<LocalHuman> {
  const { machine, team, clock } = options;
  const explicit = options.identity;
  if (explicit !== undefined) {
    const problem = identityProblem(explicit);
    if (problem) throw new LeaseholdError('invalid_argument', problem, { field: 'identity' });
  }
  const tokenPath = runtimeFiles.token(options.runtimeDir);
  let saved: string | undefined;
  try {
    saved = readFileSync(tokenPath, 'utf8').trim() || undefined;
  } catch {
    saved = undefined;
  }
  const announce = (human: HumanRecord, how: How, isNew: boolean, deviceId: string) => (team ? noticeFor(human, how, isNew, machine, deviceId) : undefined);

  if (saved) {
    const savedHash = hashToken(saved);
    const device = await store.findDeviceByTokenHash(savedHash);
    if (device && device.machine_id === machine.id) {
      const human = await store.findHumanById(device.human_id);
      if (human && (explicit === undefined || explicit === human.name)) return { human, token: saved, deviceId: device.id, notice: announce(human, 'kept', false, device.id) };
    }
    // A token from before devices (humans.token_hash) becomes this machine's device token, so
    // an upgrade logs nobody out; the humans column then stops authenticating.
    const legacy = device ? undefined : await store.findHumanByTokenHash(savedHash);
    if (legacy && (explicit === undefined || explicit === legacy.name)) {
      const deviceId = generateId('dv');
      await store.issueDevice({ id: deviceId, human_id: legacy.id, machine_id: machine.id, label: machine.label, token_hash: savedHash, created_at: clock.nowMs() });
      await store.setHumanTokenHash(legacy.id, hashToken(generateToken('human')));
      return { human: legacy, token: saved, deviceId, notice: announce(legacy, 'kept', false, deviceId) };
    }
  }

  let name: string;
  let how: How;
  const previous = explicit === undefined ? await store.latestDeviceOfMachine(machine.id) : undefined;
  const previousHuman = previous && (await store.findHumanById(previous.human_id));
  if (explicit !== undefined) {
    name = explicit;
    how = 'chosen';
  } else if (previousHuman) {
    name = previousHuman.name;
    how = 'this machine';
  } else if (!team) {
    name = localHumanName();
    how = 'default';
  } else {
    name = defaultTeamIdentity(localHumanName(), hostname());
    how = 'default';
    if (await store.findHumanByName(name)) {
      name = disambiguatedIdentity(name, machine.id);
      how = 'default, renamed';
    }
  }
  // humans.token_hash predates devices: a random hash nobody holds, so it authenticates nothing.
  const { human, inserted: isNew } = await store.findOrInsertHuman({ id: generateId('hu'), name, created_at: clock.nowMs(), token_hash: hashToken(generateToken('human')) });
  const token = generateToken('human');
  const deviceId = generateId('dv');
  await store.issueDevice({ id: deviceId, human_id: human.id, machine_id: machine.id, label: machine.label, token_hash: hashToken(token), created_at: clock.nowMs() });
  writePrivateFile(tokenPath, `${token}\n`);
  return { human, token, deviceId, notice: announce(human, how, isNew, deviceId) };
}
