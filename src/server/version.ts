import packageJson from '../../package.json' with { type: 'json' };

export const LEASEHOLD_VERSION: string = packageJson.version;
