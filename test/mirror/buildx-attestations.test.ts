import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, makeIndex, pushIndex } from '../helpers/make-image.ts';
import { runRelease } from '../helpers/run-release.ts';
import { ARTIFACTS, type Artifact, REPOS, recordDigests, stampedProject } from '../promote/project.ts';

// What `docker buildx build --push` makes by default since buildx 0.10 (netbox-docker's build.sh
// pushes its image exactly so, without --provenance=false): an index whose platform image is
// joined by a provenance attestation manifest (platform unknown/unknown). Nothing runs it, so promote signs the platform images only; the
// mirror must carry it as the signed index names it, not refuse it as an unsigned platform image.

const RC = 'v1.0.0-rc.1';
const env = { RELEASE_SIGNING_PASSPHRASE: 'buildx-attestations' };
let repo: GitRepo;
let work: string;
const attestations = {} as Record<Artifact, string>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'buildx-attestations-'));
  repo = await stampedProject(RC, {
    registry: 'oci-layout:.release/oci',
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  await writeKeyPair(repo.dir, env);
  const store = openStore('oci-layout:.release/oci', { cwd: repo.dir, env: {} });
  const digests = {} as Record<Artifact, string>;
  for (const a of ARTIFACTS) {
    const image = makeImage({ architecture: 'amd64' });
    const attestation = makeImage();
    attestation.descriptor.platform = { architecture: 'unknown', os: 'unknown' };
    attestation.descriptor.annotations = {
      'vnd.docker.reference.type': 'attestation-manifest',
      'vnd.docker.reference.digest': image.descriptor.digest,
    };
    attestations[a] = attestation.descriptor.digest;
    digests[a] = await pushIndex(store, REPOS[a], makeIndex([image, attestation]));
  }
  recordDigests(repo, digests, RC);
  const rc = await runRelease(['promote', '--channel', 'rc'], { cwd: repo.dir, env });
  expect(rc.code, rc.stderr).toBe(0);
}, 120_000);

afterAll(() => {
  repo?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

it('an index with a buildx attestation travels through an archive, the attestation kept', async () => {
  const archive = join(work, 'rc.tar');
  const out = await runRelease(['mirror', '--version', RC, '--to', `oci-archive:${archive}`], {
    cwd: repo.dir,
    env,
  });
  expect(out.code, out.stdout + out.stderr).toBe(0);
  const target = join(work, 'far');
  const back = await runRelease(
    ['mirror', '--version', RC, '--from', `oci-archive:${archive}`, '--to', `oci-layout:${target}`],
    { cwd: repo.dir, env },
  );
  expect(back.code, back.stdout + back.stderr).toBe(0);
  const far = openStore(`oci-layout:${target}`, { cwd: work, env: {} });
  for (const a of ARTIFACTS) {
    expect(await far.resolve(REPOS[a], RC)).toBeDefined();
    expect((await far.resolve(REPOS[a], attestations[a]))?.digest).toBe(attestations[a]);
  }
}, 60_000);
