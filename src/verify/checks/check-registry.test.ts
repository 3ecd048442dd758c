import { describe, expect, it } from 'vitest';
import type { RegistryReading } from '../types.ts';
import { checkRegistry } from './check-registry.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const reading = (over: Partial<RegistryReading>): RegistryReading => ({
  artifact: 'worker',
  repository: 'service-worker',
  tag: 'v1.4.0',
  store: '127.0.0.1:5000/acme',
  expected: D1,
  running: [{ source: 'container abc (w)', digest: D1 }],
  ...over,
});

describe('checkRegistry', () => {
  it('accepts a running digest equal to the tag', () => {
    expect(checkRegistry([reading({})])).toEqual([]);
  });

  it('flags a running digest the tag no longer names, with a pull by digest as the fix', () => {
    const [f] = checkRegistry([reading({ expected: D2 })]);
    expect(f).toMatchObject({
      code: 'REGISTRY_DIGEST_MISMATCH',
      severity: 'drift',
      source: 'container abc (w)',
    });
    expect(f!.fix).toContain(`service-worker:v1.4.0@${D2}`);
  });

  it('flags a tag missing from the store, an unreadable store, and an unknown running digest', () => {
    expect(checkRegistry([reading({ expected: undefined })])[0]).toMatchObject({
      code: 'REGISTRY_TAG_MISSING',
      severity: 'drift',
    });
    expect(checkRegistry([reading({ expected: undefined, error: 'HTTP 401' })])[0]).toMatchObject({
      code: 'REGISTRY_UNREACHABLE',
      severity: 'unreachable',
    });
    expect(
      checkRegistry([reading({ running: [{ source: 'container abc (w)', digest: undefined }] })])[0],
    ).toMatchObject({ code: 'REGISTRY_DIGEST_UNKNOWN', severity: 'notice' });
  });

  it("accepts a running platform image of the tag's index, and nothing else beside the index", () => {
    const D3 = `sha256:${'3'.repeat(64)}`;
    const platforms = [
      { platform: 'linux/amd64', digest: D2 },
      { platform: 'linux/arm64', digest: D3 },
    ];
    expect(checkRegistry([reading({ platforms, running: [{ source: 'container c', digest: D3 }] })])).toEqual(
      [],
    );
    const other = `sha256:${'4'.repeat(64)}`;
    expect(
      checkRegistry([reading({ platforms, running: [{ source: 'container c', digest: other }] })])[0],
    ).toMatchObject({ code: 'REGISTRY_DIGEST_MISMATCH' });
  });

  it('checks each role of a shared image on its own, and says a missing tag once per artifact', () => {
    const roles = [
      reading({
        artifact: 'api',
        repository: 'acme-app',
        running: [{ source: 'container a (api)', digest: D1 }],
      }),
      reading({ repository: 'acme-app', running: [{ source: 'container w (worker)', digest: D1 }] }),
      reading({
        role: 'scheduler',
        repository: 'acme-app',
        running: [{ source: 'container s (scheduler)', digest: D2 }],
      }),
    ];
    const findings = checkRegistry(roles);
    expect(findings.map((f) => [f.code, f.artifact, f.source])).toEqual([
      ['REGISTRY_DIGEST_MISMATCH', 'worker', 'container s (scheduler)'],
    ]);
    expect(findings[0]!.message).toMatch(/^worker scheduler: /);
    expect(findings[0]!.fix).toMatch(/^redeploy scheduler from acme-app:v1\.4\.0@/);
    const missing = checkRegistry(roles.map((r) => ({ ...r, expected: undefined })));
    expect(missing.map((f) => [f.code, f.artifact])).toEqual([
      ['REGISTRY_TAG_MISSING', 'api'],
      ['REGISTRY_TAG_MISSING', 'worker'],
    ]);
  });
});
