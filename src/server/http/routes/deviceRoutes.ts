// Devices of the requesting human (team mode, issue 9): each machine's token, listed and
// revoked one at a time. Another human's device is the same 404 as a missing one.
import { LeaseholdError } from '../../../core/errors.ts';
import type { DeviceView } from '../../../core/wire/devices.ts';
import type { Clock } from '../../../core/clock.ts';
import type { ClaimStore } from '../../claims/claimStore.ts';
import type { AuthenticatedHuman, DeviceRecord } from '../../claims/records.ts';
import { ok, type Route } from '../router.ts';

function deviceView(device: DeviceRecord & { machine_label: string | null }, human: AuthenticatedHuman): DeviceView {
  return {
    id: device.id,
    machine_id: device.machine_id,
    machine: device.machine_label,
    label: device.label,
    state: device.revoked_at === null ? 'active' : 'revoked',
    current: device.id === human.device_id,
    created_at: Number(device.created_at),
    last_used_at: device.last_used_at === null ? null : Number(device.last_used_at),
    revoked_at: device.revoked_at === null ? null : Number(device.revoked_at),
  };
}

export function deviceRoutes(store: ClaimStore, clock: Clock): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/devices',
      handler: async ({ human }) => ok({ devices: (await store.listDevices(human.id)).map((device) => deviceView(device, human)) }),
    },
    {
      method: 'POST',
      path: '/api/v1/devices/:id/revoke',
      noBody: true,
      write: true,
      handler: async ({ human, params }) => {
        const revoked = await store.revokeDevice(human.id, params.id!, clock.nowMs());
        const device = (await store.listDevices(human.id)).find((candidate) => candidate.id === params.id);
        if (!device) throw new LeaseholdError('not_found', `no device "${params.id}"`, { field: 'id' });
        if (!revoked) throw new LeaseholdError('conflict', `device "${params.id}" is already revoked`, { field: 'id' });
        return ok({ device: deviceView(device, human) });
      },
    },
  ];
}
