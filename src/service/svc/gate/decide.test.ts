import { describe, expect, it } from 'vitest';
import { decideCompatibility } from './decide.ts';
import type { VersionProbe } from './version-document.ts';

const baseUrl = 'https://svc.example.com';
const doc = (version: string | undefined, minCliVersion = '1.0.0'): VersionProbe => ({
  kind: 'document',
  version,
  minCliVersion,
  problems: [],
});
const decide = (cliVersion: string, probe: VersionProbe | undefined, mode: 'hard' | 'warn' = 'hard') =>
  decideCompatibility({ baseUrl, cliVersion, probe, mode });

describe('decideCompatibility', () => {
  it.each([
    ['v1.0.0', 'pass'],
    ['1.0.0', 'pass'],
    ['v1.0.0-rc.1', 'pass'], // an rc of the release that raised the minimum
    ['v1.0.0-3-gabcdef0', 'pass'], // a describe build after the minimum
    ['v1.0.0-3-gabcdef0-dirty', 'pass'],
    ['v1.10.0', 'pass'], // 1.10 > 1.9: string comparison would get this wrong
    ['v0.9.9', 'blocked'],
    ['v0.1.0', 'blocked'],
    ['v0.99.0-5-g1234567', 'blocked'],
  ])('%s against minimum 1.0.0 -> %s', (cli, outcome) => {
    // The server runs the minimum release itself; an rc of it is older, hence the notice.
    const d = decide(cli, doc('v1.0.0'));
    if (outcome === 'pass') expect(['pass', 'newer-server']).toContain(d.outcome);
    else expect(d.outcome).toBe(outcome);
    expect(d.run).toBe(outcome === 'pass');
  });

  it('compares numerically, not as strings', () => {
    expect(decide('v1.9.0', doc('v1.10.0', '1.10.0')).outcome).toBe('blocked');
    expect(decide('v1.10.0', doc('v1.10.0', '1.9.0')).outcome).toBe('pass');
  });

  it('does not ask for equality with the server version', () => {
    const d = decide('v1.2.0', doc('v1.4.0', '1.0.0'));
    expect(d.run).toBe(true);
    expect(d.outcome).toBe('newer-server');
  });

  it('blocks below the minimum with the versions and both upgrade commands', () => {
    const d = decide('v0.1.0', doc('v1.0.0'));
    expect(d.run).toBe(false);
    const [message] = d.messages;
    expect(message?.level).toBe('error');
    expect(message?.text).toContain('svc v0.1.0');
    expect(message?.text).toContain('1.0.0');
    expect(message?.text).toMatch(/upgrade is required/i);
    expect(message?.text).toContain(`npm install -g ${baseUrl}/api/cli/download/service-cli.tar.gz`);
    expect(message?.text).toContain(`svc update --url ${baseUrl}`);
  });

  it('warn mode (spec rule 7.5) names both versions and runs the command anyway', () => {
    const d = decide('v0.1.0', doc('v1.0.0'), 'warn');
    expect(d.run).toBe(true);
    expect(d.outcome).toBe('below-minimum-warned');
    expect(d.messages).toHaveLength(1);
    expect(d.messages[0]!.level).toBe('warning');
    expect(d.messages[0]!.text).toMatch(/v0\.1\.0.*1\.0\.0/s);
  });

  it('warn mode skips an unreadable server silently, as the legacy line did', () => {
    expect(decide('v0.1.0', { kind: 'failed', reason: 'x' }, 'warn').messages).toEqual([]);
  });

  it('warns with the reason and runs when the server cannot be read', () => {
    const d = decide('v1.0.0', { kind: 'failed', reason: 'the server answered 403 Forbidden', status: 403 });
    expect(d).toMatchObject({ outcome: 'not-checked', run: true });
    expect(d.messages[0]!.text).toContain('403 Forbidden');
  });

  it.each(['unknown', 'abcdef0', 'abcdef0-dirty', 'banana'])(
    'a %s CLI is a development build: one warning, runs',
    (cli) => {
      const d = decide(cli, undefined);
      expect(d).toMatchObject({ outcome: 'dev-build', run: true });
      expect(d.messages).toHaveLength(1);
      expect(d.messages[0]!.text).toMatch(/development build is not checked/);
    },
  );

  it('gives the soft notice only when the server is newer, keyed by url and server version', () => {
    expect(decide('v1.2.0', doc('v1.2.0')).notice).toBeUndefined();
    expect(decide('v1.2.0', doc('1.2.0')).notice).toBeUndefined();
    expect(decide('v1.2.0', doc('v1.1.0')).notice).toBeUndefined();
    expect(decide('v1.2.0', doc('unknown')).notice).toBeUndefined();
    expect(decide('v1.2.0', doc('v1.2.0-1-gabcdef0')).notice?.key).toBe(`${baseUrl} v1.2.0-1-gabcdef0`);
    expect(decide('v1.2.0-rc.1', doc('v1.2.0')).notice?.text).toContain('newer than svc v1.2.0-rc.1');
  });

  it('enforces a valid minimum even when the version field is broken, and says so', () => {
    const probe: VersionProbe = {
      kind: 'document',
      version: undefined,
      minCliVersion: '2.0.0',
      problems: ['version is null'],
    };
    const d = decide('v1.0.0', probe);
    expect(d.outcome).toBe('blocked');
    expect(d.messages.map((m) => m.level)).toEqual(['warning', 'error']);
  });
});
