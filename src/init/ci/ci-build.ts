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
