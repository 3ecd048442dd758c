import { describe, expect, it } from 'vitest';
import { chooseStrategy } from './choose-strategy.ts';
import { compareRebuild } from './compare-rebuild.ts';
import { carriesVersion, replaceVersionStrings, versionForms, versionStrings } from './version-strings.ts';

const files = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([path, text]) => [path, Buffer.from(text, 'latin1')]));

describe('version strings', () => {
  it('knows the tag, SemVer and PEP 440 forms', () => {
    expect(versionForms('v3.1.0-rc.1')).toEqual({
      tag: 'v3.1.0-rc.1',
      semver: '3.1.0-rc.1',
      pep440: '3.1.0rc1',
    });
    expect(versionForms('3.1.0')).toEqual({ tag: 'v3.1.0', semver: '3.1.0', pep440: '3.1.0' });
    expect(versionStrings('v3.1.0')).toEqual(['v3.1.0', '3.1.0']);
    expect(carriesVersion('__version__ = "3.1.0rc1"', 'v3.1.0-rc.1')).toBe(true);
    expect(carriesVersion('print("hello")', 'v3.1.0-rc.1')).toBe(false);
    // A bare X.Y.Z is any dependency's version: only the tag form counts for a stable version.
    expect(carriesVersion('{"dep":"1.4.0"}', 'v1.4.0')).toBe(false);
    expect(carriesVersion('echo v1.4.0', 'v1.4.0')).toBe(true);
  });

  it('replaces every form in one pass, never inside a longer version', () => {
    const text = 'echo "tool v3.1.0-rc.1"; npm=3.1.0-rc.1; py=3.1.0rc1; other=3.1.0-rc.10 13.1.0rc1';
    expect(replaceVersionStrings(text, 'v3.1.0-rc.1', 'v3.1.0')).toBe(
      'echo "tool v3.1.0"; npm=3.1.0; py=3.1.0; other=3.1.0-rc.10 13.1.0rc1',
    );
    expect(replaceVersionStrings('acme-cli-3.1.0rc1/pyproject.toml', 'v3.1.0-rc.1', 'v3.1.0')).toBe(
      'acme-cli-3.1.0/pyproject.toml',
    );
  });

  it('a project tagging without v (CalVer): its spelling kept, its bare release tag counts', () => {
    const text = 'VERSION=2026.7.0-rc.1; banner="app v2026.7.0-rc.1"; dep=2026.7.0-rc.10';
    expect(replaceVersionStrings(text, '2026.7.0-rc.1', '2026.7.0')).toBe(
      'VERSION=2026.7.0; banner="app v2026.7.0"; dep=2026.7.0-rc.10',
    );
    // The project's own tag is bare: a file holding it carries the release.
    expect(carriesVersion('{"version":"2026.7.0"}', '2026.7.0')).toBe(true);
    expect(carriesVersion('{"version":"2026.6.0"}', '2026.7.0')).toBe(false);
  });
});

describe('compareRebuild', () => {
  const rc = files({
    'acme-cli-3.1.0rc1/acme.sh': '#!/bin/sh\necho "acme v3.1.0-rc.1"\n',
    'acme-cli-3.1.0rc1/lib.sh': 'helper() { :; }\n',
    'acme-cli-3.1.0rc1/logo.bin': '\u0000\u00ff\u0080binary',
  });

  it('accepts a rebuild equal modulo version strings, names included, and says why per file', () => {
    const rebuilt = files({
      'acme-cli-3.1.0/acme.sh': '#!/bin/sh\necho "acme v3.1.0"\n',
      'acme-cli-3.1.0/lib.sh': 'helper() { :; }\n',
      'acme-cli-3.1.0/logo.bin': '\u0000\u00ff\u0080binary',
    });
    const out = compareRebuild(rc, rebuilt, 'v3.1.0-rc.1', 'v3.1.0');
    expect(out.equal).toBe(true);
    expect(out.code).toEqual([]);
    expect(out.versionOnly).toEqual([
      expect.objectContaining({
        path: 'acme-cli-3.1.0rc1/acme.sh',
        reason: 'differs in version strings only',
      }),
      expect.objectContaining({ path: 'acme-cli-3.1.0rc1/lib.sh', reason: 'its name carries the version' }),
      expect.objectContaining({ path: 'acme-cli-3.1.0rc1/logo.bin', renamed: 'acme-cli-3.1.0/logo.bin' }),
    ]);
    const same = compareRebuild(files({ 'a.js': 'x' }), files({ 'a.js': 'x' }), 'v1.0.0-rc.1', 'v1.0.0');
    expect(same).toMatchObject({ equal: true, identical: ['a.js'] });
  });

  it('refuses a rebuild that differs in code, misses a file or adds one, naming each', () => {
    const rebuilt = files({
      'acme-cli-3.1.0/acme.sh': '#!/bin/sh\necho "acme v3.1.0"; rm -rf /\n',
      'acme-cli-3.1.0/extra.sh': 'new\n',
      'acme-cli-3.1.0/logo.bin': '\u0000\u00ff\u0080binary',
    });
    const out = compareRebuild(rc, rebuilt, 'v3.1.0-rc.1', 'v3.1.0');
    expect(out.equal).toBe(false);
    expect(out.code.map((d) => [d.path, d.reason])).toEqual([
      ['acme-cli-3.1.0rc1/acme.sh', 'differs in more than version strings'],
      ['acme-cli-3.1.0rc1/lib.sh', 'the rebuild has no acme-cli-3.1.0/lib.sh'],
      ['acme-cli-3.1.0/extra.sh', 'the rc has no such file'],
    ]);
  });
});

describe('chooseStrategy', () => {
  const base = { builtByCommand: true, carryingVersion: [] as string[], inPlace: [] as string[] };
  it('a declaration wins', () => {
    expect(
      chooseStrategy({ ...base, kind: 'cli', declared: 'keep', carryingVersion: ['a.sh'] }).strategy,
    ).toBe('keep');
  });
  it('a command whose output bakes the version outside the in-place files is rebuilt', () => {
    const web = chooseStrategy({
      ...base,
      kind: 'image',
      carryingVersion: ['/srv/app.js', '/srv/version.json'],
      inPlace: ['/srv/version.json'],
    });
    expect(web).toEqual({ strategy: 'rebuild', reason: 'the build bakes the version into /srv/app.js' });
    expect(chooseStrategy({ ...base, kind: 'cli', carryingVersion: ['bin/acme.sh'] }).strategy).toBe(
      'rebuild',
    );
  });
  it('else an image is re-versioned in place, an npm CLI in its package.json, any other CLI kept', () => {
    expect(
      chooseStrategy({ ...base, kind: 'image', builtByCommand: false, carryingVersion: ['/a'] }).strategy,
    ).toBe('in-place');
    expect(
      chooseStrategy({ ...base, kind: 'cli', carryingVersion: ['package.json'], inPlace: ['package.json'] })
        .strategy,
    ).toBe('in-place');
    expect(chooseStrategy({ ...base, kind: 'cli', inPlace: ['package.json'] }).strategy).toBe('in-place');
    expect(chooseStrategy({ ...base, kind: 'cli' })).toEqual({
      strategy: 'keep',
      reason: 'its files do not carry the version',
    });
  });
});
