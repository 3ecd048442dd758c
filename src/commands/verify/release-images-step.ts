import type { Step } from '../../pipeline/step.ts';
import { layerScanCacheFor } from '../../restamp/layer-scan-cache.ts';
import type { ReleaseImageReading } from '../../verify/checks/check-release-images.ts';
import { probeProvenance } from '../../verify/probes/provenance.ts';
import type { ProvenanceReading } from '../../verify/types.ts';
import type { ReleaseVerifyContext } from './release-verify-context.ts';

/**
 * Every image of the release at its tag: the digest, the version its config states (an index:
 * each platform's), and for a release made from an rc, that it is the rc re-stamped with every
 * platform of it. One read per image, however many roles run it.
 */
export const releaseImagesStep: Step<ReleaseVerifyContext> = {
  title: 'Read each image of the release',
  async run(ctx, io) {
    const layerScans = layerScanCacheFor(ctx.env);
    const readings = await Promise.all(
      ctx.subjects.map((s) =>
        probeProvenance(
          ctx.store,
          ctx.trustedKey,
          { artifact: s.artifact, repository: s.repository, tag: ctx.tag },
          { layerScans },
        ),
      ),
    );
    ctx.images = readings.map((p, i) => imageReading(p, ctx.subjects[i]!.roles, ctx.store.name));
    // The rc re-stamp is a release's question; an rc or dev tag has no rc to be traced to.
    ctx.provenance = ctx.version.kind === 'release' ? readings.filter((p) => !p.missing && !p.error) : [];
    io.progress(
      ctx.images
        .map((r) => `${r.artifact}: ${r.version ?? (r.digest ? 'no version' : 'missing')}`)
        .join(', '),
    );
  },
};

function imageReading(p: ProvenanceReading, roles: string[], store: string): ReleaseImageReading {
  const versions = new Set((p.platforms ?? []).map((c) => c.imageVersion));
  return {
    artifact: p.artifact,
    roles,
    repository: p.repository,
    tag: p.tag,
    store,
    digest: p.missing || p.error !== undefined ? undefined : p.digest,
    version: p.imageVersion,
    ...(versions.size > 1 ? { platformsDisagree: true } : {}),
    ...(p.error !== undefined ? { error: p.error } : {}),
  };
}
