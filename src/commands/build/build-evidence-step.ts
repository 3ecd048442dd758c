import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { relative, resolve } from 'node:path';
import { dockerfileOf } from '../../build/check-artifacts.ts';
import { LOCAL_LAYOUT } from '../../build-engines/oci/oci-engine.ts';
import type { ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import { attachEvidence } from '../../evidence/attach-evidence.ts';
import { evidenceDir, writeEvidenceFiles } from '../../evidence/evidence-files.ts';
import { imageEvidence } from '../../evidence/image-evidence.ts';
import { builderId } from '../../evidence/provenance.ts';
import { validateSbom } from '../../evidence/validate-sbom.ts';
import { packageVersion } from '../../files/package-root.ts';
import type { Step, StepIO } from '../../pipeline/step.ts';
import { sha256Digest } from '../../registry/digest.ts';
import { parseBaseImageRef } from '../../registry/image-ref.ts';
import { platformChildren } from '../../registry/platform-children.ts';
import { usableSigningKey } from '../../signing/key-files.ts';
import type { SigningKey } from '../../signing/keys.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * Per image: a CycloneDX SBOM read from the image's own layers and a SLSA v1 provenance
 * statement, both written beside the record; signed with the release key and attached to the
 * image as referrers when the key is at hand, else left unsigned and the build says so. An index
 * of several platforms has its own, and so has each platform image (`<artifact>@linux-arm64.*`).
 */
export const buildEvidenceStep: Step<BuildContext> = {
  title: 'Write the SBOM and provenance of each image',
  writes: true,
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image was built (--only)' : false),
  async run(ctx, io) {
    const key = await evidenceKey(ctx, io);
    const dir = evidenceDir(ctx.recordPath);
    const builder = { id: builderId(ctx.env, hostname()), toolVersion: packageVersion() };
    for (const artifact of imagesToBuild(ctx)) {
      const built = ctx.built[artifact.name]!;
      const digest = built.digest;
      if (!digest) {
        ctx.warnings.push(
          `${artifact.name}: no SBOM or provenance: the image is only in the Docker engine (no manifest digest to name); build with --push`,
        );
        continue;
      }
      const store = ctx.open(built.pushed ? ctx.config.registry : LOCAL_LAYOUT);
      const time = <T>(part: string, work: () => Promise<T>) => ctx.timer.time(artifact.name, part, work);
      // A Dockerfile's own base, as the builder resolved it, else the configured one.
      const base =
        built.baseLayers === undefined
          ? parseBaseImageRef(artifact.base)
          : { text: built.base.reference, digest: built.base.digest, layers: built.baseLayers };
      const recipe = await recipeOf(ctx, artifact, built.engine);
      // An index (several platforms) gets its own evidence, listing every platform's files, and
      // each platform image its own, as a node of that platform pulls it by digest.
      const manifest = await store.getManifest(artifact.image, digest);
      const subjects = [
        { name: artifact.name, digest },
        ...((manifest && platformChildren(manifest.bytes)) ?? []).map((child) => ({
          name: `${artifact.name}@${child.platform.replaceAll('/', '-')}`,
          digest: child.digest,
        })),
      ];
      for (const subject of subjects) {
        const evidence = await time('sbom and provenance', async () =>
          imageEvidence({
            store,
            open: ctx.open,
            base,
            toolVersion: builder.toolVersion,
            provenance: {
              repository: artifact.image,
              digest: subject.digest,
              artifact: artifact.name,
              version: ctx.tag!,
              engine: built.engine,
              recipe,
              commit: ctx.record!.commit,
              source: ctx.source!,
              epoch: ctx.epoch!,
              builder,
            },
          }),
        );
        await time('validate sbom', () => validateSbom(evidence.sbom, subject.name));
        let bundles: { sbom: Uint8Array; provenance: Uint8Array } | undefined;
        if (key) {
          const target = { repository: artifact.image, digest: subject.digest };
          const formats = { formats: ctx.config.signing?.formats };
          const [sbom, provenance] = await time('sign and attach', async () => [
            await attachEvidence(store, key, { ...target, kind: 'sbom' }, evidence.sbomStatement, formats),
            await attachEvidence(
              store,
              key,
              { ...target, kind: 'provenance' },
              evidence.provenanceStatement,
              formats,
            ),
          ]);
          ctx.warnings.push(...sbom.warnings);
          bundles = { sbom: sbom.bundle, provenance: provenance.bundle };
          io.progress(`${subject.name}: SBOM ${sbom.status}, provenance ${provenance.status}`);
        }
        await time('write evidence files', () =>
          writeEvidenceFiles(dir, subject.name, { ...evidence, ...(bundles ? { bundles } : {}) }),
        );
      }
    }
    if (key) ctx.evidence = { dir, signed: true };
    io.progress(`${relative(ctx.cwd, dir)}${key ? ', signed and attached' : ', unsigned'}`);
  },
};

/**
 * The key that signs the evidence: the release key, when it can be used here. Without it the
 * build still writes the statements, unsigned, and says so (as it does for the CLI archive).
 */
async function evidenceKey(ctx: BuildContext, io: StepIO): Promise<SigningKey | undefined> {
  const unsigned = (why: string) => {
    ctx.evidence = { dir: evidenceDir(ctx.recordPath), signed: false, reason: why };
    const text = `the SBOM and provenance are not signed (${why}): written unsigned to ${relative(ctx.cwd, evidenceDir(ctx.recordPath))}, not attached to the images`;
    // A project that signs (signing.publicKey) is warned; one that does not sign is only told.
    if (ctx.config.signing?.publicKey) ctx.warnings.push(text);
    else io.progress(text);
    return undefined;
  };
  const usable = await usableSigningKey(ctx);
  return 'key' in usable ? usable.key : unsigned(usable.unsigned);
}

/**
 * The artifact's declared recipe, as the provenance's external parameters: its Dockerfile (path
 * and SHA-256) or its files, its base and its build command. Build-arg and env values are left
 * out (they may carry what should not be published); their names stay.
 */
async function recipeOf(
  ctx: BuildContext,
  artifact: ImageArtifactConfig,
  engine: 'oci' | 'docker',
): Promise<Record<string, unknown>> {
  const recipe: Record<string, unknown> = { base: artifact.base };
  if (artifact.build?.command) recipe['command'] = artifact.build.command;
  if (engine === 'docker') {
    const dockerfile = dockerfileOf(artifact)!;
    const bytes = await readFile(resolve(ctx.configDir, dockerfile));
    recipe['dockerfile'] = { path: dockerfile, sha256: sha256Digest(bytes).slice('sha256:'.length) };
    if (artifact.context) recipe['context'] = artifact.context;
    if (artifact.target) recipe['target'] = artifact.target;
    if (artifact.buildArgs) recipe['buildArgs'] = Object.keys(artifact.buildArgs).sort();
  } else {
    recipe['files'] = artifact.files ?? [];
    if (artifact.env) recipe['env'] = Object.keys(artifact.env).sort();
  }
  return recipe;
}
