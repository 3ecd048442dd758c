import type { WorkflowRead } from './github-workflows.ts';

/**
 * One image build a repository's CI runs, whatever CI wrote it (a GitHub workflow step, a bake
 * target, a GitLab job, a goreleaser `dockers` entry), in one shape for the plan: where it came
 * from, the build as written and how its paths resolve, the repositories it names, whether it
 * pushes and what it tags. Pure.
 */
export interface CiBuild {
  /** Where: `<file> job <id> step <name>`, `docker-bake.hcl target api`. */
  at: string;
  /** The build context as written; `.` when the CI file gives none (the top of the repository). */
  context: string;
  /** The Dockerfile as written, or undefined for `<context>/Dockerfile`. */
  file?: string;
  /** What `file` is relative to: the top of the repository (a workflow's `file:`, `docker build -f`) or the context (bake, compose). */
  fileBase: 'top' | 'context';
  target?: string;
  buildArgs: Record<string, string>;
  platforms: string[];
  /** Image repositories, as written (`ghcr.io/acme/api`, or with an expression left in). */
  images: string[];
  /** The references it tags, as written (a local `x-tmp:amd64` another build starts FROM included). */
  tags?: string[];
  /** It pushes (or pushes under a condition); a build that only loads or tests does not. */
  push: boolean;
  pushesLatest: boolean;
  pushesVersion: boolean;
}

/** The builds of GitHub workflows that push, for the plan. */
export function buildsOfWorkflows(workflows: readonly WorkflowRead[]): CiBuild[] {
  const out: CiBuild[] = [];
  for (const workflow of workflows)
    for (const build of workflow.builds) {
      // bake steps are read through their bake file (docker-bake.hcl), by target.
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
