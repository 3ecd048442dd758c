import { resolve } from 'node:path';
import { readManifests } from '../../deployment-files/read-manifests.ts';
import { manifestSources, releaseTarget } from '../../deployment-files/release-target.ts';
import { RuleError } from '../../errors.ts';
import { writeFilesAtomically } from '../../files/atomic-write.ts';
import { sweepOwnTemporaries } from '../../files/own-temporaries.ts';
import { applyEdits, type Hunk } from '../../gitops/apply-edits.ts';
import { applyDotenvEdits } from '../../gitops/dotenv.ts';
import { type BumpPlan, keyOf, type Place } from '../../gitops/gitops-types.ts';
import { planBump } from '../../gitops/plan-bump.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';

export interface BumpFlags extends GlobalOptions {
  version?: string;
  manifests?: string;
  pinDigest?: boolean;
}

/**
 * `release bump`: plan every place of the release in the deployment files (pure, `planBump`),
 * refuse if any image has none, then write every changed file or none (temporary files renamed
 * together; a failure before the renames leaves every file as it was).
 */
export async function runBump(flags: BumpFlags): Promise<void> {
  const base = await baseContext(flags);
  const { target, from } = await releaseTarget(base, flags, 'bump');
  const root = flags.manifests === undefined ? base.configDir : base.cwd;
  const files = await readManifests(root, manifestSources(base, flags.manifests));
  const plan = planBump(files, target);
  // A bump killed between its temporaries and their renames left them beside the files: this run
  // clears them, whether or not it writes.
  if (!base.dryRun) await sweepOwnTemporaries(files.map((f) => resolve(root, f.path)));
  if (plan.duplicates.length > 0) {
    throw new RuleError(
      'BUMP_DUPLICATE_KEY',
      `${target.tag} cannot be written: a file holding the release gives a key twice, no file was changed\n${plan.duplicates
        .map((d) => `  ${d.file}:${d.line}: ${d.key}`)
        .join('\n')}`,
      {
        hint: 'remove the duplicate key (the tools reading the file disagree on which one counts), then run again',
      },
    );
  }
  if (plan.unplaced.length > 0) {
    throw new RuleError(
      'BUMP_UNPLACED',
      `${target.tag} cannot be written: ${plan.unplaced.length} image(s) have no place, no file was changed\n${plan.unplaced
        .map(
          (u) => `  ${u.artifacts.join(', ') || 'declared key'}: ${u.reason}${u.file ? ` (${u.file})` : ''}`,
        )
        .join('\n')}`,
      {
        hint: 'add each image to the manifests (or declare the key holding its tag under deploy.manifests); a pinned image needs the release record with its digest',
      },
    );
  }
  const changed = [...new Set(plan.edits.map((e) => e.file))].map((path) => {
    const file = files.find((f) => f.path === path)!;
    const edits = plan.edits.filter((e) => e.file === path);
    return {
      path,
      ...(file.kind === 'dotenv' ? applyDotenvEdits(file.text, edits) : applyEdits(file.text, edits)),
    };
  });
  if (!base.dryRun && changed.length > 0)
    await writeFilesAtomically(changed.map((c) => ({ path: resolve(root, c.path), content: c.text })));
  if (base.json) {
    printJson({
      tag: target.tag,
      from,
      dryRun: base.dryRun,
      written: !base.dryRun && changed.length > 0,
      places: plan.places.map((p) => ({ ...placeJson(p), changed: p.current !== p.want })),
      files: changed.map((c) => c.path),
    });
    return;
  }
  for (const line of report(plan, target.tag, from, base.dryRun, changed)) printLine(line);
}

function report(
  plan: BumpPlan,
  tag: string,
  from: string,
  dryRun: boolean,
  changed: { path: string; hunks: Hunk[] }[],
): string[] {
  const files = new Set(plan.places.map((p) => p.file)).size;
  const head = `${tag} (from ${from}): ${count(plan.places.length, 'place')} in ${count(files, 'file')}, ${plan.edits.length} to change`;
  if (plan.edits.length === 0) return [`${head}: already in step, nothing written`];
  if (dryRun) return [`${head} (dry run, nothing written)`, ...changed.flatMap(diffLines)];
  return [
    `${head}: written`,
    ...plan.edits.map((p) => `  ${p.file} ${keyOf(p.path)}: ${p.current ?? '(empty)'} -> ${p.want}`),
  ];
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** A unified diff of one file (each hunk one line, or one added line). */
function diffLines(file: { path: string; hunks: Hunk[] }): string[] {
  return [
    `--- a/${file.path}`,
    `+++ b/${file.path}`,
    ...file.hunks.flatMap((h) => [
      `@@ -${h.line},${h.before.length} +${h.line},${h.after.length} @@`,
      ...h.before.map((l) => `-${l}`),
      ...h.after.map((l) => `+${l}`),
    ]),
  ];
}

function placeJson(p: Place) {
  return {
    file: p.file,
    ...(p.doc > 0 ? { document: p.doc } : {}),
    key: keyOf(p.path),
    kind: p.kind,
    artifacts: p.artifacts,
    current: p.current,
    want: p.want,
    ...(p.note ? { note: p.note } : {}),
  };
}
