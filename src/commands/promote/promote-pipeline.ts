import type { Step } from '../../pipeline/step.ts';
import { promoteApplyStep } from './promote-apply-step.ts';
import { promoteCheckSignaturesStep } from './promote-check-signatures-step.ts';
import type { PromoteContext } from './promote-context.ts';
import { promoteFromExistsStep } from './promote-from-exists-step.ts';
import { promoteMinCliStep } from './promote-min-cli-step.ts';
import { promotePackagePlanStep } from './promote-package-plan-step.ts';
import { promotePackageTagsStep } from './promote-package-tags-step.ts';
import { promotePlanStep } from './promote-plan-step.ts';
import { promotePublishPackageStep } from './promote-publish-package-step.ts';
import { promotePushRestampedStep } from './promote-push-restamped-step.ts';
import { promoteRecordStep } from './promote-record-step.ts';
import { promoteReleaseEvidenceStep } from './promote-release-evidence-step.ts';
import { promoteReleaseSetStep } from './promote-release-set-step.ts';
import { promoteRestampStep } from './promote-restamp-step.ts';
import { promoteSettleStep } from './promote-settle-step.ts';
import { promoteSignReleaseStep } from './promote-sign-release-step.ts';
import { promoteSignStep } from './promote-sign-step.ts';
import { promoteSigningKeyStep } from './promote-signing-key-step.ts';
import { promoteSourcesStep } from './promote-sources-step.ts';

/**
 * `release promote`: check, re-stamp (release from an rc), plan, apply all or nothing, sign, record.
 * Pipelines are ordered data, one comment per step; each command's lives in its own module so a
 * command loads only its own steps (build and signing pull in Vite, esbuild and Sigstore).
 */
export const promotePipeline: readonly Step<PromoteContext>[] = [
  promoteSourcesStep, // version and source images (--from, else the build's digests); channel refusals
  promoteMinCliStep, // the CLI released is not below the min_cli_version its own API serves
  promoteFromExistsStep, // --from in neither spelling in the store: refused, naming the nearest rcs
  promoteCheckSignaturesStep, // release --from: every source digest validly signed, before any write
  promoteRestampStep, // release from an rc: new config and version layer over the rc's code layers
  promotePlanStep, // read the tags, compute the plan; immutable-tag refusals before any write
  promotePackagePlanStep, // cli.publish: the package's version and dist-tags; immutable version, token checked
  promoteSigningKeyStep, // unlock the key before any write: rc refused without one unless --no-sign
  promotePushRestampedStep, // release from an rc: the new blobs and manifests, by digest, untagged
  promotePublishPackageStep, // cli.publish: npm publish under a pending dist-tag, before any tag moves
  promoteApplyStep, // version tags for all, then latest/dev for all; dev put back on failure
  promoteSettleStep, // release: latest of all to the highest stable version all carry, re-read until stable
  promotePackageTagsStep, // cli.publish: latest/next/dev dist-tag; on failure images' and package's put back
  promoteSignStep, // rc: sign each promoted digest and read it back (or record --no-sign)
  promoteSignReleaseStep, // release from an rc: sign each release digest, bound to its rc digest
  promoteReleaseEvidenceStep, // release from an rc: the rc's SBOM and provenance carried to the release images
  promoteReleaseSetStep, // rc and release: one signed statement naming every digest, the archive, the package
  promoteRecordStep, // append to the record's promotions
];
