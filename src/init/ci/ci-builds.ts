import type { CiBuild } from './ci-build.ts';
import { type BakeRead, bakeBuild, bakeTargets } from './docker-bake.ts';
import type { WorkflowRead } from './github-workflows.ts';

export type { CiBuild } from './ci-build.ts';

/** The builds of GitHub workflows that push, for the plan. */
export function buildsOfWorkflows(workflows: readonly WorkflowRead[]): CiBuild[] {
  const out: CiBuild[] = [];
  for (const workflow of workflows)
    for (const build of workflow.builds) {
      // bake steps are read through their bake file (docker-bake.hcl), by target: bakeBuilds.
      if (build.bake) continue;
      out.push({
        at: build.at,
        context: build.context ?? '.',
        ...(build.file !== undefined ? { file: build.file } : {}),
        fileBase: 'top',
        ...(build.target !== undefined ? { target: build.target } : {}),
        buildArgs: build.buildArgs,
        platforms: build.platforms,
        images: build.images,
        tags: build.tags,
        push: build.push !== false,
        pushesLatest: build.pushesLatest,
        pushesVersion: build.pushesVersion,
      });
    }
  return out;
}

// A build arg's value that is the release's version: the git tag or a step's version output.
const VERSION_VALUE =
  /github\.ref_name|github\.ref\b|GITHUB_REF|outputs\.(?:version|tag|tag_name|VERSION|TAG)\b|inputs\.(?:version|tag)\b|release\.tag_name|\$\{?(?:VERSION|TAG|RELEASE_VERSION|CI_COMMIT_TAG|APP_VERSION|IMAGE_TAG)\}?|\{\{\s*\.(?:Version|Tag)\s*\}\}|meta\.outputs\.version/;

/** Whether a build arg's value, as the CI file writes it, is the release's version. */
export function isVersionValue(value: string): boolean {
  return value.length <= 300 && VERSION_VALUE.test(value);
}

// The files `docker buildx bake` reads when given none, in its order.
const BAKE_DEFAULTS = [
  'docker-bake.json',
  'docker-bake.hcl',
  'docker-bake.override.json',
  'docker-bake.override.hcl',
];

/**
 * The targets the workflows' bake steps build (their files, else bake's default files; their
 * targets, else the default group). A bake file no workflow runs still says what is released
 * when the CI builds nothing else: its default group then, pushed.
 */
export function bakeBuilds(
  workflows: readonly WorkflowRead[],
  bakes: readonly BakeRead[],
  others: number,
): CiBuild[] {
  const out: CiBuild[] = [];
  const norm = (p: string) => p.replace(/^\.\//, '');
  for (const workflow of workflows)
    for (const build of workflow.builds) {
      if (!build.bake) continue;
      const files = build.bake.files.length ? build.bake.files.map(norm) : BAKE_DEFAULTS;
      for (const read of bakes.filter((b) => files.includes(b.path) && !b.unreadable))
        for (const target of bakeTargets(read, build.bake.targets))
          out.push(
            bakeBuild(read, target, {
              at: build.at,
              push: build.push !== false,
              images: build.images,
              pushesLatest: build.pushesLatest,
              pushesVersion: build.pushesVersion,
            }),
          );
    }
  if (out.length || others > 0) return out;
  const top = bakes.find((b) => BAKE_DEFAULTS.includes(b.path) && !b.unreadable);
  if (!top) return out;
  return bakeTargets(top, []).map((target) =>
    bakeBuild(top, target, {
      at: `${top.path} (no CI step runs it: its default group)`,
      push: true,
      images: [],
      pushesLatest: false,
      pushesVersion: false,
    }),
  );
}
