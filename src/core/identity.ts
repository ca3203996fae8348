// Team-mode identities (issue 9): a human is a chosen name, not an OS user name, and each
// machine a human runs a server on holds its own device token. Pure rules only.

/** Letters, digits and . _ @ + - (an email-like handle fits); 1-100 characters. */
export const IDENTITY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/;

export function identityRuleMessage(source = 'identity'): string {
  return `${source}: must be 1-100 characters of letters, digits and . _ @ + -, starting with a letter or digit`;
}

/** Why `name` is refused as an identity, or null when it is fine. */
export function identityProblem(name: string, source = 'identity'): string | null {
  return IDENTITY_PATTERN.test(name) ? null : identityRuleMessage(source);
}

/** The default identity in team mode: user@host, never the bare user name (a devcontainer's `vscode`, CI's `root` are shared). */
export function defaultTeamIdentity(user: string, host: string): string {
  const clean = (value: string) => value.replace(/[^A-Za-z0-9._+-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'x';
  return `${clean(user)}@${clean(host)}`.slice(0, 100);
}

/**
 * A default name already taken by a human with no history on this machine belongs to someone
 * else: a default never joins it silently, it gets this machine's suffix instead.
 */
export function disambiguatedIdentity(name: string, machineId: string): string {
  const suffix = machineId.replace(/^mc_/, '').slice(0, 8);
  return `${name.slice(0, 100 - suffix.length - 1)}-${suffix}`;
}
