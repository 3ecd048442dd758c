import { webClients } from '../../config/artifacts.ts';
import type { Step } from '../../pipeline/step.ts';
import { layerScanCacheFor } from '../../restamp/layer-scan-cache.ts';
import { probeProvenance } from '../../verify/probes/provenance.ts';
import { deployedVersion, storeTagOf } from './deployed-images.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * A release deployment with a store (`--registry`, `--require-signature`): per image, the version
 * it reports and, for a release re-stamped from an rc, that it is the signed rc's code. Once per
 * image, however many roles run it.
 */
export const verifyProvenanceStep: Step<VerifyContext> = {
  title: 'Check each release image is its rc re-stamped',
  skip: (ctx) => (ctx.store ? false : 'pass --registry to check each image against the rc it names'),
  async run(ctx, io) {
    const version = deployedVersion(ctx);
    if (version?.kind !== 'release') {
      ctx.provenance = [];
      io.progress(version ? `${version.raw} is not a full release` : 'no readable tag to look up');
      return;
    }
    const tag = await storeTagOf(ctx, version);
    // The roles of one image (api, worker and scheduler of `acme-app`) are one image to check,
    // named by the first of them: its tag, its rc and their signatures are read once.
    const roles = (['api', 'worker', 'web'] as const).map((artifact) => ({
      artifact: artifact as string,
      repository: ctx.options.images[artifact],
    }));
    // Every other web client (an admin dashboard) is a release image of its own, checked alike.
    const webs = webClients(ctx.config)
      .filter((a) => a.image !== ctx.options.images.web)
      .map((a) => ({ artifact: a.name, repository: a.image }));
    const subjects = [...roles, ...webs].filter(
      (s, i, all) => all.findIndex((other) => other.repository === s.repository) === i,
    );
    // The release's promotion scanned the rc's layers for its version: its scans are reused.
    const layerScans = layerScanCacheFor(ctx.env);
    ctx.provenance = await Promise.all(
      subjects.map((subject) =>
        probeProvenance(ctx.store!, ctx.trustedKey, { ...subject, tag }, { layerScans }),
      ),
    );
    io.progress(ctx.provenance.map((p) => `${p.artifact}: ${p.imageVersion ?? '?'}`).join(', '));
  },
};
