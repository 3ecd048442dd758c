import { describe, expect, it } from 'vitest';
import { decideCompatibility, pinnedInstallCommand } from './decide.ts';
import type { VersionProbe } from './version-document.ts';

const baseUrl = 'https://svc.example.com';
const doc = (version: string, cliPackage?: string): VersionProbe => ({
  kind: 'document',
  version,
  minCliVersion: '1.0.0',
  problems: [],
  ...(cliPackage ? { cliPackage } : {}),
});
const blocked = (probe: VersionProbe) =>
  decideCompatibility({ baseUrl, cliVersion: 'v0.1.0', probe, mode: 'hard' })
    .messages.map((m) => m.text)
    .join('\n');

describe('the pinned npm form in the gate', () => {
  it.each([
    ['service-cli', 'v1.4.0', 'npm install -g service-cli@1.4.0'],
    ['service-cli', '1.4.0', 'npm install -g service-cli@1.4.0'],
    ['@acme/cli', 'v2.0.0', 'npm install -g @acme/cli@2.0.0'],
    ['service-cli', 'v1.4.0-rc.1', undefined], // not a release
    ['service-cli', 'v1.4.0-dirty', undefined],
    ['service-cli', 'v1.4.0-3-gabcdef0', undefined],
    [undefined, 'v1.4.0', undefined], // publishing not configured
  ])('%s at %s -> %s', (pkg, version, command) => {
    expect(pinnedInstallCommand(pkg, version)).toBe(command);
  });

  it('the block message adds the pinned form beside the URL form, only when the server announces a package', () => {
    const announced = blocked(doc('v1.4.0', 'service-cli'));
    expect(announced).toContain(`npm install -g ${baseUrl}/api/cli/download/service-cli.tar.gz`);
    expect(announced).toContain('npm install -g service-cli@1.4.0');
    expect(blocked(doc('v1.4.0'))).not.toContain('service-cli@');
    expect(blocked(doc('v1.4.0-rc.2', 'service-cli'))).not.toContain('service-cli@');
  });
});
