import { ExternalError } from '../errors.ts';
import { isIndex, referencesOf } from '../registry/digest.ts';
import { attachArtifact } from '../registry/referrers.ts';
import type { ImageStore } from '../registry/store.ts';
import { signStatement } from '../signing/bundle.ts';
import { type SigningFormat, writeCosignAttestation, writesCosignTags } from '../signing/cosign-tags.ts';
import { checkImageSignature, SIGNATURE_ARTIFACT_TYPE } from '../signing/image-signature.ts';
import type { PublicSigningKey, SigningKey } from '../signing/keys.ts';
import { readEvidence } from './attach-evidence.ts';
import { imageSubject, type Subject } from './statements.ts';
import { buildLevel, VSA_PREDICATE, type VsaPolicy, vsaStatement } from './vsa.ts';

type InputAttestation = { uri: string; digest: Record<string, string> };

/** One image of the release at its tag in the store: its top digest and platform children. */
export interface ReleaseImage {
  artifact: string;
  repository: string;
  digest: string;
  children: string[];
}

export interface AttestOptions {
  store: ImageStore;
  /** The release key the evidence is checked against (its inputs are only valid referrers). */
  releaseKey: PublicSigningKey;
  verifierKey: SigningKey;
  verifier: { id: string; version: string };
  images: ReleaseImage[];
  /** What was checked of every image; `in-step` is added per image by `inStep`. */
  policy: VsaPolicy;
  /**
   * The images (by repository) a live deployment was seen running in step: their summaries add the
   * `in-step` check, and the release set's does when it covers them all. A release verified in the
   * registry alone vouches for no deployment.
   */
  inStep?: readonly string[];
  passed: boolean;
  /**
   * Whether every image of the release was checked: only then is the release set vouched for
   * (`images` holds just the checked ones; a summary never speaks for an image nobody read).
   */
  wholeRelease: boolean;
  /**
   * A release re-stamped from an rc: the rc digests each repository's images name. Their
   * signatures are what the rc-restamp check relied on, so they are input attestations too.
   */
  madeFrom?: Record<string, string[]>;
  timeVerified: string;
  /** `signing.formats`: each summary also goes into cosign's `.att` tag unless `legacy` is left out. */
  formats?: readonly SigningFormat[];
}

/** A signed summary: what it covers, its Sigstore bundle, and where it was attached. */
export interface SignedSummary {
  /** An image artifact's name, or `release-set`. */
  about: string;
  resourceUri: string;
  bundle: Uint8Array;
  attached: { repository: string; digest: string; referrer: string }[];
}

/** The release's images at `tag` in the store, each with its children. */
export async function releaseImages(
  store: ImageStore,
  artifacts: { name: string; repository: string }[],
  tag: string,
): Promise<ReleaseImage[]> {
  const images: ReleaseImage[] = [];
  for (const a of artifacts) {
    // Roles run from one image (api and worker of one build) are one image to vouch for.
    if (images.some((i) => i.repository === a.repository)) continue;
    const manifest = await store.getManifest(a.repository, tag);
    if (!manifest)
      throw new ExternalError('VSA_IMAGE_MISSING', `${store.name} has no ${a.repository}:${tag}`, {
        hint: 'give the tag every configured image was released at (--expect), and the store that holds it',
      });
    const type = manifest.descriptor.mediaType;
    const children = isIndex(type) ? referencesOf(manifest.bytes, type).manifests.map((m) => m.digest) : [];
    images.push({ artifact: a.name, repository: a.repository, digest: manifest.descriptor.digest, children });
  }
  return images;
}

/**
 * A VSA per image (its index and every platform child as subjects) and one for the release set,
 * each naming the evidence it relied on: the valid signature, SBOM, provenance and release-set
 * referrers of its digests, by manifest digest. Signed with the verifier's key; a PASSED summary
 * is attached to each digest it covers (the set's to each image), a FAILED one only returned.
 */
export async function attestRelease(options: AttestOptions): Promise<SignedSummary[]> {
  const { store } = options;
  const summaries: SignedSummary[] = [];
  const everyInput: InputAttestation[] = [];
  const levels: string[] = [];
  let set: { subjects: Subject[]; inputs: InputAttestation[] } | undefined;
  for (const image of options.images) {
    const inputs: InputAttestation[] = [];
    let builderId: string | undefined;
    for (const digest of [image.digest, ...image.children]) {
      const ref = { repository: image.repository, digest };
      const signature = await checkImageSignature(store, options.releaseKey, ref);
      for (const s of signature.signatures.filter((s) => s.valid))
        inputs.push(input(image.repository, s.digest));
      for (const kind of ['sbom', 'provenance', 'releaseSet'] as const) {
        const valid = (await readEvidence(store, options.releaseKey, { ...ref, kind })).filter(
          (e) => e.status === 'valid',
        );
        for (const e of valid) inputs.push(input(image.repository, e.referrer));
        if (kind === 'provenance' && valid[0]) builderId ??= builderOf(valid[0].statement!.predicate);
        const claimed = valid.find((e) => versionOf(e.statement!.predicate) === options.policy.version);
        if (kind === 'releaseSet' && claimed && !set)
          set = { subjects: claimed.statement!.subject, inputs: [input(image.repository, claimed.referrer)] };
      }
    }
    for (const rc of options.madeFrom?.[image.repository] ?? []) {
      const signature = await checkImageSignature(store, options.releaseKey, {
        repository: image.repository,
        digest: rc,
      });
      for (const s of signature.signatures.filter((s) => s.valid))
        inputs.push(input(image.repository, s.digest));
    }
    const level = buildLevel(builderId ? { builderId } : undefined);
    levels.push(level);
    everyInput.push(...inputs);
    const resourceUri = `oci://${image.repository}@${image.digest}`;
    const subjects = [image.digest, ...image.children].map((d) => imageSubject(image.repository, d));
    const bundle = await sign(options, subjects, resourceUri, inputs, [level], inStep(options, [image]));
    summaries.push({ about: image.artifact, resourceUri, bundle, attached: [] });
  }
  if (set && options.wholeRelease) {
    // The release as a whole is as strong as its weakest image.
    const weakest = [...levels].sort()[0] ?? 'SLSA_BUILD_LEVEL_0';
    const resourceUri = `urn:service-release:release-set:${options.policy.version}`;
    const bundle = await sign(
      options,
      set.subjects,
      resourceUri,
      [...set.inputs, ...everyInput],
      [weakest],
      inStep(options, options.images),
    );
    summaries.push({ about: 'release-set', resourceUri, bundle, attached: [] });
  }
  if (options.passed) await attachAll(options, summaries);
  return summaries;
}

async function sign(
  options: AttestOptions,
  subjects: Subject[],
  resourceUri: string,
  inputs: InputAttestation[],
  levels: string[],
  inStep: boolean,
): Promise<Uint8Array> {
  const checks = options.policy.checks.filter((c) => c !== 'in-step');
  const statement = vsaStatement({
    subjects,
    verifier: options.verifier,
    timeVerified: options.timeVerified,
    resourceUri,
    policy: { ...options.policy, checks: inStep ? ['in-step', ...checks] : checks },
    inputAttestations: dedupe(inputs),
    passed: options.passed,
    // The spec's value for a failed policy: no level is asserted.
    verifiedLevels: options.passed ? levels : ['FAILED'],
  });
  return signStatement(options.verifierKey, statement);
}

/** Whether every one of `images` was seen running in step (an empty list never is). */
function inStep(options: AttestOptions, images: readonly ReleaseImage[]): boolean {
  const live = new Set(options.inStep ?? []);
  return images.length > 0 && images.every((i) => live.has(i.repository));
}

async function attachAll(options: AttestOptions, summaries: SignedSummary[]): Promise<void> {
  for (const summary of summaries) {
    const targets =
      summary.about === 'release-set'
        ? options.images.map((i) => ({ repository: i.repository, digest: i.digest }))
        : options.images
            .filter((i) => i.artifact === summary.about)
            .flatMap((i) =>
              [i.digest, ...i.children].map((digest) => ({ repository: i.repository, digest })),
            );
    for (const target of targets) {
      const subject = await options.store.resolve(target.repository, target.digest);
      if (!subject)
        throw new ExternalError(
          'VSA_IMAGE_MISSING',
          `${options.store.name} lost ${target.repository}@${target.digest} while attesting it`,
        );
      const referrer = await attachArtifact(options.store, target.repository, subject, {
        artifactType: SIGNATURE_ARTIFACT_TYPE,
        layer: { mediaType: SIGNATURE_ARTIFACT_TYPE, bytes: summary.bundle },
        annotations: {
          'dev.sigstore.bundle.content': 'dsse-envelope',
          'dev.sigstore.bundle.predicateType': VSA_PREDICATE,
        },
      });
      if (writesCosignTags(options.formats))
        await writeCosignAttestation(options.store, target, summary.bundle, VSA_PREDICATE);
      summary.attached.push({ ...target, referrer: referrer.digest });
    }
  }
}

function input(repository: string, referrer: string): InputAttestation {
  return { uri: `oci://${repository}@${referrer}`, digest: { sha256: referrer.slice('sha256:'.length) } };
}

function dedupe(inputs: InputAttestation[]): InputAttestation[] {
  const seen = new Set<string>();
  return inputs.filter((i) => !seen.has(i.uri) && seen.add(i.uri));
}

function builderOf(predicate: Record<string, unknown>): string | undefined {
  const id = (predicate['runDetails'] as { builder?: { id?: unknown } } | undefined)?.builder?.id;
  return typeof id === 'string' ? id : undefined;
}

function versionOf(predicate: Record<string, unknown>): unknown {
  return predicate['version'];
}
