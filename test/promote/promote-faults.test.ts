import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestOutcome } from '../../src/channels/latest-repair.ts';
import { planPromotion } from '../../src/channels/promotion-plan.ts';
import { isReleaseError } from '../../src/errors.ts';
import { applyPromotion, readStoreState } from '../../src/registry/apply-promotion.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { settleLatest } from '../../src/registry/settle-latest.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { type FaultMode, type RegistryProxy, startProxy } from '../registry/proxy.ts';
import { ARTIFACTS, type Artifact, digestsOf, pushRelease, REPOS } from './project.ts';

// A full promotion (read the store, plan, write, undo on failure) through a proxy that fails the
// Nth request, for every N the promotion makes, in two ways: refused before the registry sees it,
// and applied by the registry with the answer lost. After each run, `latest` of all artifacts is
// all old or all new (at the highest version all carry: the settle step), and no version tag changed digest. The registry uses basic auth, so the 401
// challenges are among the requests that fail.
const user = 'ci';
const password = `pw-${randomBytes(8).toString('hex')}`;
let registry: RunningRegistry;
let proxy: RegistryProxy;
let configDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  registry = await startRegistry({ htpasswd: { user, password } });
  proxy = await startProxy(registry.host);
  configDir = mkdtempSync(join(tmpdir(), 'sr-faults-'));
  const auth = Buffer.from(`${user}:${password}`).toString('base64');
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({ auths: { [proxy.host]: { auth }, [registry.host]: { auth } } }),
  );
  env = { DOCKER_CONFIG: configDir };
});
afterAll(async () => {
  await proxy?.stop();
  await registry?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

let namespaces = 0;
let template: { old: Record<Artifact, string>; rc: Record<Artifact, string> } | undefined;

/**
 * v1.0.0 and latest on old images, v1.1.0-rc.1 on new ones, in a fresh namespace. The images are
 * pushed once into a template namespace; each seed mounts their blobs and puts the manifests.
 */
async function seed() {
  const root = new RegistryStore({ registry: registry.host, env });
  if (!template) {
    const store = new RegistryStore({ registry: `${registry.host}/template`, env });
    template = {
      old: await pushRelease(store, ['v1.0.0', 'latest']),
      rc: await pushRelease(store, ['v1.1.0-rc.1']),
    };
  }
  const ns = `f${++namespaces}`;
  for (const [digests, tags] of [
    [template.old, ['v1.0.0', 'latest']],
    [template.rc, ['v1.1.0-rc.1']],
  ] as const) {
    // The artifacts' repositories are seeded side by side (each in order: blobs, then tags).
    await Promise.all(
      ARTIFACTS.map(async (a) => {
        const manifest = (await root.getManifest(`template/${REPOS[a]}`, digests[a]))!;
        const parsed = JSON.parse(Buffer.from(manifest.bytes).toString()) as {
          config: { digest: string };
          layers: { digest: string }[];
        };
        await Promise.all(
          [parsed.config, ...parsed.layers].map((blob) =>
            root.mountBlob(`template/${REPOS[a]}`, `${ns}/${REPOS[a]}`, blob.digest),
          ),
        );
        for (const tag of tags)
          await root.putManifest(`${ns}/${REPOS[a]}`, tag, manifest.bytes, manifest.descriptor.mediaType);
      }),
    );
  }
  const direct = new RegistryStore({ registry: `${registry.host}/${ns}`, env });
  return { ns, direct, old: template.old, rc: template.rc };
}

/** `release promote --channel release --from v1.1.0-rc.1 --version v1.1.0`, in process. */
async function promote(ns: string): Promise<'promoted' | 'repaired' | string> {
  const store = new RegistryStore({ registry: `${proxy.host}/${ns}`, env, timeoutMs: 5000 });
  const intent = { version: 'v1.1.0', channel: 'release' as const };
  try {
    const sources = ARTIFACTS.map((artifact) => ({
      artifact,
      repository: REPOS[artifact],
      reference: 'v1.1.0-rc.1',
    }));
    const state = await readStoreState(store, intent, sources);
    const plan = planPromotion({ ...intent, artifacts: state.states });
    // As the release pipeline does: write, then settle latest whether or not a write
    // failed; the failure stands unless every tag of the version is in place and latest settled.
    let failure: unknown;
    await applyPromotion(store, plan, state.manifests, undefined, { settlesLatest: true }).catch((e) => {
      failure = e;
    });
    const settled = await settleLatest(store, sources, { maxRounds: 3 });
    const outcome = latestOutcome(plan.tag, settled);
    if (outcome.kind === 'unsettled' && !failure) return 'LATEST_NOT_SETTLED';
    if (failure && outcome.kind !== 'current') throw failure;
    return failure ? 'repaired' : 'promoted';
  } catch (error) {
    if (!isReleaseError(error)) throw error;
    expect(error.exitCode).toBe(3);
    return error.code;
  }
}

const same = (a: Record<Artifact, string | null>, b: Record<Artifact, string | null>) =>
  ARTIFACTS.every((x) => a[x] === b[x]);

describe('promotion under injected faults', () => {
  it('leaves latest all-old or all-new and version tags unmoved, whichever request fails', async () => {
    // A clean run first, to count the requests a full promotion makes.
    const clean = await seed();
    proxy.failNth(undefined);
    expect(await promote(clean.ns)).toBe('promoted');
    const total = proxy.log.length;
    expect(total).toBeGreaterThan(15);

    const outcomes: Record<string, number> = {};
    for (const mode of ['refuse', 'drop-response'] as FaultMode[]) {
      for (let n = 1; n <= total; n++) {
        const { ns, direct, old, rc } = await seed();
        proxy.failNth(n, mode);
        const outcome = await promote(ns);
        proxy.failNth(undefined);
        const where = `${mode} request ${n} (${outcome})`;
        const kind = ['promoted', 'repaired'].includes(outcome) ? outcome : 'failed';
        outcomes[`${mode}:${kind}`] = (outcomes[`${mode}:${kind}`] ?? 0) + 1;

        // latest is all-old or all-new, and exactly at the highest version every artifact carries:
        // a failure after the version tags were all written is settled forward, not put back.
        const latest = await digestsOf(direct, 'latest');
        const released = await digestsOf(direct, 'v1.1.0');
        const complete = ARTIFACTS.every((a) => released[a] !== null);
        expect(latest, `${where}: latest is ${JSON.stringify(latest)}`).toEqual(complete ? rc : old);
        if (kind !== 'failed') expect(same(latest, rc), where).toBe(true);
        expect(await digestsOf(direct, 'v1.0.0'), where).toEqual(old);
        expect(await digestsOf(direct, 'v1.1.0-rc.1'), where).toEqual(rc);
        for (const [artifact, digest] of Object.entries(await digestsOf(direct, 'v1.1.0')))
          expect([null, rc[artifact as Artifact]], where).toContain(digest);

        // Whatever happened, running it again with a healthy registry completes the release.
        expect(await promote(ns), where).toBe('promoted');
        expect(await digestsOf(direct, 'latest'), where).toEqual(rc);
        expect(await digestsOf(direct, 'v1.1.0'), where).toEqual(rc);
      }
    }
    // Refusals before the version tags were all written fail the run; those of a latest write are
    // repaired by the settle; those of a settle read are retried.
    expect(outcomes['refuse:failed'] ?? 0).toBeGreaterThan(5);
    expect(outcomes['refuse:repaired'] ?? 0).toBeGreaterThan(0);
    expect(outcomes['drop-response:failed'] ?? 0).toBeGreaterThan(0);
  }, 300_000);
});
