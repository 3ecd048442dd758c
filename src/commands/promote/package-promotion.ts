import type { NpmClient } from '../../cli-package/npm-client.ts';
import type { DistTagWrite, PackagePlan } from '../../cli-package/package-plan.ts';

/**
 * The CLI package's part of a promotion (`artifacts.cli.publish`), carried from step to step:
 * the plan, the tarball, and what has been written so far, so a failure can put it back.
 */
export interface PackagePromotion {
  npm: NpmClient;
  registry: string;
  plan: PackagePlan;
  /** The tarball to publish (the build's archive, or one re-stamped from the rc's). */
  tarball: Buffer;
  /** Where the tarball came from, for the output. */
  origin: string;
  integrity: string;
  /** Set once `npm publish` succeeded: the version can never be taken back. */
  published?: boolean;
  /** Dist-tags moved so far (to put back on a failure). */
  moved: DistTagWrite[];
  /** What was put back after a failure, and what could not be. */
  undone: string[];
  notUndone: string[];
}

/** The dist-tag a publish goes out under, so that no floating tag moves with it; removed after. */
export const PENDING_DIST_TAG = 'promote-pending';

/** `service-cli@1.4.0`. */
export function packageRef(p: Pick<PackagePromotion, 'plan'>): string {
  return `${p.plan.name}@${p.plan.version}`;
}

/** Put every moved dist-tag back (or remove it when it did not exist); best effort, reported. */
export async function putBackDistTags(p: PackagePromotion): Promise<void> {
  for (const write of [...p.moved].reverse()) {
    try {
      if (write.from === null) await p.npm.removeDistTag(p.plan.name, write.tag);
      else await p.npm.addDistTag(p.plan.name, write.from, write.tag);
      p.undone.push(`${p.plan.name} dist-tag ${write.tag} back to ${write.from ?? '(removed)'}`);
    } catch (error) {
      p.notUndone.push(
        `${p.plan.name} dist-tag ${write.tag} stays at ${write.to}: putting it back to ${write.from ?? '(none)'} failed: ${(error as Error).message}`,
      );
    }
  }
  p.moved = [];
}

/** The sentence every failure after the publish carries. */
export function publishedNote(p: PackagePromotion): string {
  return `${packageRef(p)} was published to ${p.registry} and cannot be taken back (npm does not allow unpublishing safely); a re-run finds the same bytes and skips the publish`;
}

/**
 * A later step failed after the package step began: drop the pending tag, put back any dist-tag
 * moved, and make the error name the version that was published and cannot be taken back (in its
 * message, and in `result.notUndone` for `--json`). A publish whose answer was lost is checked
 * against the registry.
 */
export async function settlePackageAfterFailure(
  p: PackagePromotion | undefined,
  error: unknown,
): Promise<void> {
  if (!p || !(error instanceof Error)) return;
  if (!p.published && p.plan.publish) {
    const state = await p.npm.readState(p.plan.name, [p.plan.version]).catch(() => undefined);
    if (state?.versions[p.plan.version]?.integrity === p.integrity) p.published = true;
  }
  if (p.moved.length) await putBackDistTags(p);
  if (!p.published) return;
  await p.npm.removeDistTag(p.plan.name, PENDING_DIST_TAG).catch(() => undefined);
  const note = publishedNote(p);
  if (!error.message.includes(note)) {
    const extra = [
      ...p.undone.map((u) => `undone: ${u}`),
      ...p.notUndone.map((n) => `could NOT be undone: ${n}`),
      note,
    ];
    error.message = `${error.message}\n${extra.join('\n')}`;
  }
  const result = (error as { result?: { notUndone?: { reference: string; digest: string; why: string }[] } })
    .result;
  result?.notUndone?.push({
    reference: `npm:${packageRef(p)}`,
    digest: p.integrity,
    why: 'published; npm versions cannot be taken back',
  });
}

/** The package's part of `release promote --json`. */
export function packageView(p: PackagePromotion | undefined, dryRun: boolean) {
  if (!p) return null;
  return {
    name: p.plan.name,
    version: p.plan.version,
    registry: p.registry,
    origin: p.origin,
    integrity: p.integrity,
    publish: p.plan.publish,
    published: dryRun ? false : Boolean(p.published),
    reason: p.plan.publishReason,
    distTags: p.plan.distTags,
    kept: p.plan.kept,
  };
}

/** Lines for the human output. */
export function packageLines(p: PackagePromotion, dryRun: boolean): string[] {
  const lines = [
    `package: ${packageRef(p)} on ${p.registry} (${p.origin})`,
    `    ${p.plan.publish ? (dryRun ? 'would publish' : 'published') : 'keep '}  ${p.plan.publish ? p.integrity.slice(0, 27) : p.plan.publishReason}`,
  ];
  for (const w of p.plan.distTags)
    lines.push(`    dist-tag ${w.tag}  ${w.from ?? '(none)'} -> ${w.to}  ${w.reason}`);
  for (const k of p.plan.kept)
    lines.push(`    keep dist-tag ${k.tag}  ${k.version ?? '(none)'}  ${k.reason}`);
  return lines;
}
