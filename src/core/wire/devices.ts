// Wire shape of a device: one machine's token of a human (team mode, issue 9).

export interface DeviceView {
  id: string;
  machine_id: string;
  /** The machine's host name as its server last reported it (null before its first heartbeat). */
  machine: string | null;
  label: string;
  state: 'active' | 'revoked';
  /** The device whose token made this request. */
  current: boolean;
  created_at: number;
  /** When its token was last used (recorded at most once a minute). */
  last_used_at: number | null;
  revoked_at: number | null;
}
