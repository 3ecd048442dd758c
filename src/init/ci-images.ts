import { bakeBuilds, buildsOfWorkflows, type CiBuild, isVersionValue } from './ci/ci-builds.ts';
import type { Detection, FoundDockerfile } from './detect.ts';
import { DEV_NAMES, devReason } from './dev-paths.ts';
import { artifactOfDockerfile } from './dockerfile-name.ts';
import { readImageLine } from './image-reference.ts';
import { joinPath, resolveInRepo } from './repo-path.ts';

/**
 * The images a repository's CI already releases, from its builds (ci/ci-builds.ts): one per
 * image (the amd64 and arm64 jobs of one image are one image, their platforms joined), with the
 * build resolved in the repository, the build args that are literal kept, those that carry the
 * version named, and every build left out said why (a test image, a development variant, a build
 * that never pushes, a path that leaves the repository). Pure.
 */
export interface CiImage {
  /** The artifact key it suggests: its image name without the prefix all the CI's images share. */
  name: string;
  /** Its image name (the repository's last component), when the CI writes it out. */
  imageName?: string;
  /** The registry and namespace its image goes to (`ghcr.io/acme`), when written out. */
  registry?: string;
  context: string;
  dockerfile: string;
  target?: string;
  /** Build args with literal values (not the version, not an expression). */
  args: Record<string, string>;
  /** Build args the CI sets to the release's version: version variables. */
  versionArgs: string[];
  /** Build args the CI sets to an image another of its builds makes first (`x-tmp:amd64`). */
  chained: Record<string, string>;
  platforms: string[];
  pushesLatest: boolean;
  from: string;
  found?: FoundDockerfile;
}

// Image names (by a word of them) that are not the service's release: tests, previews, tools.
const NOT_RELEASED = new Set([
  ...DEV_NAMES,
  'loadtest',
  'benchmark',
  'bench',
  'preview',
  'staging',
  'nightly',
  'canary',
  'tmp',
  'temp',
  'cache',
  'builder',
  'playground',
  // A base or dependency image the service's own images start FROM.
  'base',
  'deps',
]);

/** Every image build the repository's CI files hold (GitHub workflows, bake, GitLab CI, goreleaser). */
export function ciBuildsOf(detection: Detection): CiBuild[] {
  const builds = [
    ...buildsOfWorkflows(detection.workflows),
    ...detection.goreleaser.flatMap((g) => g.images),
    ...detection.gitlab.flatMap((g) => g.builds),
  ];
  return [...builds, ...bakeBuilds(detection.workflows, detection.bake, builds.length)];
}

export function ciImages(
  builds: readonly CiBuild[],
  dockerfiles: readonly FoundDockerfile[],
  exists: (path: string) => boolean = () => true,
): { images: CiImage[]; skipped: string[]; refused: string[] } {
  const out = { images: [] as CiImage[], skipped: [] as string[], refused: [] as string[] };
  const pushing = builds.filter((b) => b.push);
  const localTags = new Set(builds.flatMap((b) => b.tags ?? []));
  for (const build of builds)
    if (!build.push) out.skipped.push(`${build.at}: a CI build that pushes nothing (a test or a check)`);
  for (const build of pushing) {
    if (/\$\{\{/.test(build.context) || /\$\{\{/.test(build.file ?? '')) {
      out.refused.push(
        `${build.at}: its context or file is an expression init cannot evaluate; declare the image`,
      );
      continue;
    }
    const context = resolveInRepo('.', build.context);
    if ('refused' in context) {
      out.refused.push(`${build.at}: context ${context.refused}`);
      continue;
    }
    const file =
      build.file === undefined
        ? { path: joinPath(context.path, 'Dockerfile') }
        : resolveInRepo(build.fileBase === 'top' ? '.' : context.path, build.file);
    if ('refused' in file) {
      out.refused.push(`${build.at}: file ${file.refused}`);
      continue;
    }
    // A Dockerfile the CI writes before it builds (or keeps in another repository): nothing here
    // builds it, and a config naming it would be refused by its own dry run.
    if (!dockerfiles.some((d) => d.path === file.path) && !exists(file.path)) {
      out.refused.push(
        `${build.at}: ${file.path} is not in the repository (made by the CI, or kept elsewhere); not released: declare it once it is`,
      );
      continue;
    }
    const lines = build.images.map((i) => (i.includes('${{') ? undefined : readImageLine(i)));
    const line = lines.find((l) => l !== undefined);
    const notReleased =
      (line && wordsOf(line.name).find((w) => NOT_RELEASED.has(w))) ??
      wordsOf(build.target ?? '').find((w) => NOT_RELEASED.has(w));
    const dev = devReason(file.path);
    if (notReleased || dev) {
      out.skipped.push(
        `${build.at}: ${line?.name ?? file.path} is not a release image (${dev ?? `"${notReleased}" in its name`})`,
      );
      continue;
    }
    const args: Record<string, string> = {};
    const versionArgs: string[] = [];
    const chained: Record<string, string> = {};
    for (const [name, value] of Object.entries(build.buildArgs)) {
      if (isVersionValue(value)) versionArgs.push(name);
      else if (localTags.has(value)) {
        // Kept as written (the build needs a value), and said: the CI builds that image first.
        chained[name] = value;
        args[name] = value;
      } else if (!value.includes('${{') && !value.includes('$')) args[name] = value;
    }
    const same = out.images.find((i) =>
      line
        ? i.imageName === line.name && i.registry === line.registry
        : sameBuild(i, context.path, file.path, build, args),
    );
    if (same) {
      for (const p of build.platforms) if (!same.platforms.includes(p)) same.platforms.push(p);
      same.pushesLatest ||= build.pushesLatest;
      continue;
    }
    // `acme/api` a workflow pushes is Docker Hub's: docker.io/acme.
    const written = build.images.find((i) => !i.includes('${{')) ?? '';
    const hub =
      !line?.registry && written.includes('/')
        ? `docker.io/${written.slice(0, written.lastIndexOf('/'))}`
        : undefined;
    const registry = line?.registry ?? hub;
    out.images.push({
      name: line?.name ?? build.target ?? artifactOfDockerfile(file.path),
      ...(line ? { imageName: line.name } : {}),
      ...(registry ? { registry } : {}),
      context: context.path,
      dockerfile: file.path,
      ...(build.target ? { target: build.target } : {}),
      args,
      versionArgs,
      chained,
      platforms: [...build.platforms],
      pushesLatest: build.pushesLatest,
      from: build.at,
      ...(dockerfiles.find((d) => d.path === file.path)
        ? { found: dockerfiles.find((d) => d.path === file.path)! }
        : {}),
    });
  }
  // `hatchet-api`, `hatchet-engine`: artifacts `api`, `engine` (the shared prefix says nothing).
  const named = out.images.filter((i) => i.imageName);
  if (named.length > 1) {
    const prefix = sharedPrefix(named.map((i) => i.name));
    if (prefix)
      for (const image of named)
        if (image.name.length > prefix.length) image.name = image.name.slice(prefix.length);
  }
  return out;
}

function sameBuild(
  image: CiImage,
  context: string,
  dockerfile: string,
  build: CiBuild,
  args: Record<string, string>,
): boolean {
  return (
    !image.imageName &&
    image.context === context &&
    image.dockerfile === dockerfile &&
    image.target === build.target &&
    JSON.stringify(image.args) === JSON.stringify(args)
  );
}

/** The longest prefix ending in `-` (or `_`) that every name has and none is whole. */
function sharedPrefix(names: string[]): string {
  let prefix = names[0]!;
  for (const name of names) while (!name.startsWith(prefix)) prefix = prefix.slice(0, -1);
  const cut = Math.max(prefix.lastIndexOf('-'), prefix.lastIndexOf('_'));
  return cut > 0 ? prefix.slice(0, cut + 1) : '';
}

function wordsOf(name: string): string[] {
  return name.toLowerCase().split(/[-_.]/);
}
