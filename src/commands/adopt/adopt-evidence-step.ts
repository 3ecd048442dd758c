import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { attachEvidence } from '../../evidence/attach-evidence.ts';
import { evidenceDir, evidenceFileNames } from '../../evidence/evidence-files.ts';
import { adoptedProvenanceStatement, builderId } from '../../evidence/provenance.ts';
import { writeFilesAtomically } from '../../files/atomic-write.ts';
import { packageVersion } from '../../files/package-root.ts';
import type { Step } from '../../pipeline/step.ts';
import { usableSigningKey } from '../../signing/key-files.ts';
import type { SigningKey } from '../../signing/keys.ts';
import type { AdoptContext } from './adopt-context.ts';
import { adoptedOrigin } from './adopt-origin.ts';

/**
 * Per adopted image, a provenance statement that claims only what is known (evidence/provenance.ts
 * `adoptedProvenanceStatement`): signed and attached with the release key when it is at hand, and
 * written beside the record either way. No SBOM: the toolkit lists what a build of its own added
 * above a base it knows, and an adopted image names no base; an SBOM the project's CI attached
 * stays where it is. `verify --require-attestations` therefore reports the adopted images' SBOMs
 * missing (docs/guides/ci.md says how to live with that).
 */
export const adoptEvidenceStep: Step<AdoptContext> = {
  title: 'Write the provenance of each adopted image',
  writes: true,
  async run(ctx, io) {
    const key = await evidenceKey(ctx);
    const dir = evidenceDir(ctx.recordPath);
    const builder = { id: builderId(ctx.env, hostname()), toolVersion: packageVersion() };
    for (const { artifact, source } of ctx.placed!) {
      const digest = source.image.digest;
      const statement = adoptedProvenanceStatement({
        repository: artifact.image,
        digest,
        artifact: artifact.name,
        version: ctx.tag!,
        adopted: adoptedOrigin(source),
        commit: ctx.record!.commit,
        source: ctx.source!,
        builder,
      });
      const names = evidenceFileNames(artifact.name);
      const files = [{ path: join(dir, names.provenanceStatement), content: statement }];
      if (key) {
        const attached = await attachEvidence(
          ctx.store,
          key,
          { repository: artifact.image, digest, kind: 'provenance' },
          statement,
          { formats: ctx.config.signing?.formats },
        );
        files.push({ path: join(dir, names.provenanceBundle), content: Buffer.from(attached.bundle) });
        io.progress(`${artifact.name}: provenance ${attached.status}`);
      }
      await writeFilesAtomically(files);
      // What a build of ours wrote for this artifact before is not about this image.
      const stale = [
        names.sbom,
        names.sbomStatement,
        names.sbomBundle,
        ...(key ? [] : [names.provenanceBundle]),
      ];
      await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
    }
    if (key) ctx.evidence = { dir, signed: true };
    io.progress(`${relative(ctx.cwd, dir)}${key ? ', signed and attached' : ', unsigned'}`);
  },
};

/** The release key when it can be used here; without it the statements are written unsigned, and said. */
async function evidenceKey(ctx: AdoptContext): Promise<SigningKey | undefined> {
  const unsigned = (why: string) => {
    ctx.evidence = { dir: evidenceDir(ctx.recordPath), signed: false, reason: why };
    const text = `the provenance is not signed (${why}): written unsigned, not attached to the images`;
    if (ctx.config.signing?.publicKey) ctx.warnings.push(text);
    return undefined;
  };
  const usable = await usableSigningKey(ctx);
  return 'key' in usable ? usable.key : unsigned(usable.unsigned);
}
