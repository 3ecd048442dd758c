import { IMAGE_ROLES, type ImageRole } from '../config/constants.ts';
import { type CiImage, ciBuildsOf, ciImages } from './ci-images.ts';
import { type ComposeBuild, type ComposeService, DEFAULT_COMPOSE_FILES } from './compose-file.ts';
import type { Detection, FoundCompose, FoundDockerfile } from './detect.ts';
import { DEV_NAMES, devReason } from './dev-paths.ts';
import { artifactOfDockerfile, dockerfileSuffix, inPackagingFolder } from './dockerfile-name.ts';
import { commonRegistry, type ImageLine, readImageLine } from './image-reference.ts';
import { dirOf, joinPath, resolveInRepo } from './repo-path.ts';

/**
 * Which images a repository releases, read as Docker Compose and Docker read it: the production
 * compose file (`docker compose`'s own pick, or the files named) decides first, with its
 * `build.context`, `dockerfile`, `target` and `args` as written; services built the same way, or
 * named by the same `image:`, are roles of one image; Dockerfiles of test, example, hack and dev
 * folders, of development names (`Dockerfile.dev`), or used only by other compose files, are
 * left out with the reason. Pure.
 */
export interface ImageSource {
  /** The artifact's key (a compose service name, a folder, a Dockerfile's suffix). */
  name: string;
  from: string;
  /** Repository paths, resolved: the context and the Dockerfile. */
  docker?: { context: string; dockerfile: string; target?: string; args: Record<string, string> };
  dockerfile?: FoundDockerfile;
  /** Another source's name: this one runs that image (a role of one image), it is not built. */
  runs?: string;
  /** The last component of its `image:` line. */
  imageName?: string;
  /** The command it runs (compose `command:`): what tells roles of one image apart. */
  command?: string[];
  /** Why it looks like a one-shot job: what its compose service says of it. */
  oneShot?: string;
  role?: ImageRole;
  /** Why its context was chosen, when no compose file said. */
  contextReason?: string;
  /** The compose service it is (a compose file built or named it). */
  service?: string;
  /** The compose profiles it runs under. */
  profiles?: string[];
  /** Build args the repository's CI sets to the release's version. */
  versionArgs?: string[];
  /** Build args the CI sets to an image another of its builds makes first: for the user to wire. */
  chained?: Record<string, string>;
  /** The platforms the repository's CI builds it for. */
  platforms?: string[];
  /** A Node folder without a Dockerfile: built daemonlessly from the folder. */
  nodeFolder?: { dir: string; entry: string };
}

export interface ImageSources {
  sources: ImageSource[];
  /** The registry the production compose file's `image:` lines name. */
  registry?: { registry: string; from: string };
  found: string[];
  /** Left out on purpose, with why: shown so a user can name it. */
  skipped: string[];
  /** Refused (a path leaving the repository, an unreadable file): the user must decide. */
  refused: string[];
}

// Images a service runs beside its own and never releases: databases, caches, queues, proxies.
const INFRASTRUCTURE =
  /^(?:postgres|postgresql|mysql|mariadb|mongo|redis|valkey|memcached|rabbitmq|maildev|mailhog|mailpit|nats|kafka|zookeeper|clickhouse-server|clickhouse|minio|nginx|traefik|caddy|haproxy|elasticsearch|opensearch|busybox|alpine)$/;

export function imageSources(
  detection: Detection,
  exists: (path: string) => boolean,
  named: readonly string[],
): ImageSources {
  const out: ImageSources = { sources: [], found: [], skipped: [], refused: [] };
  const production = named.length
    ? detection.compose.filter((c) => named.includes(c.path))
    : DEFAULT_COMPOSE_FILES.map((f) => detection.compose.find((c) => c.path === f))
        .filter((c): c is FoundCompose => c !== undefined)
        .slice(0, 1);
  for (const compose of detection.compose) {
    if (compose.unreadable && production.includes(compose))
      out.refused.push(
        `${compose.path}: not read (${compose.unreadable}); fix it or name another with --compose-file`,
      );
    else if (!production.includes(compose))
      out.skipped.push(
        `${compose.path}: not read (not the production compose file; name it with --compose-file to use it)`,
      );
  }
  const usedByProduction = new Set<string>();
  const imageLines: ImageLine[] = [];
  // The repository's own CI first: what it builds and pushes is what is released.
  const ci = ciImages(ciBuildsOf(detection), detection.dockerfiles, exists);
  out.skipped.push(...ci.skipped);
  out.refused.push(...ci.refused);
  const usedCi = new Set<CiImage>();
  for (const compose of production) {
    out.found.push(`${compose.path}: services ${compose.services.map((s) => s.name).join(', ') || '(none)'}`);
    for (const service of compose.services) {
      const profile = notReleasedProfile(service);
      if (profile) {
        out.skipped.push(`${compose.path} service ${service.name}: not an artifact (profile "${profile}")`);
        continue;
      }
      const line = service.image ? readImageLine(service.image) : undefined;
      // An image-only production service may be built by a build file beside it
      // (docker-compose.build.yml): the same service name, in a file not named for dev or test.
      const builder = service.build
        ? { path: compose.path, build: service.build }
        : buildElsewhere(service.name, detection.compose, production);
      let ciImage = line ? ci.images.find((i) => i.imageName === line.name) : undefined;
      let docker: ImageSource['docker'];
      let at = `${compose.path} service ${service.name}`;
      if (builder) {
        const build = builder.build;
        at = `${builder.path} service ${service.name}`;
        const context = resolveInRepo(dirOf(builder.path), build.context);
        if ('refused' in context) {
          out.refused.push(
            `${at}: build.context ${context.refused}; not released (refused, never rewritten)`,
          );
          continue;
        }
        const dockerfile = resolveInRepo(context.path, build.dockerfile ?? 'Dockerfile');
        if ('refused' in dockerfile) {
          out.refused.push(`${at}: build.dockerfile ${dockerfile.refused}; not released (refused)`);
          continue;
        }
        usedByProduction.add(dockerfile.path);
        if (!detection.dockerfiles.some((d) => d.path === dockerfile.path) && !exists(dockerfile.path)) {
          out.refused.push(
            `${at}: ${dockerfile.path} is not in the repository; not released: add it, or declare the image`,
          );
          continue;
        }
        docker = {
          context: context.path,
          dockerfile: dockerfile.path,
          ...(build.target ? { target: build.target } : {}),
          args: build.args,
        };
        ciImage ??= ci.images.find(
          (i) => i.dockerfile === dockerfile.path && i.target === build.target && i.context === context.path,
        );
      }
      if (ciImage) {
        // The CI's build of this image wins over the compose file's (it is what is pushed).
        usedCi.add(ciImage);
        usedByProduction.add(ciImage.dockerfile);
        at = `${at}, built by ${ciImage.from}`;
        docker = ciDocker(ciImage);
        if (ciImage.registry && ciImage.imageName && !line?.registry)
          imageLines.push({ registry: ciImage.registry, name: ciImage.imageName });
      }
      if (!docker) continue;
      if (line) imageLines.push(line);
      const same = out.sources.find(
        (s) =>
          !s.runs &&
          s.docker?.context === docker.context &&
          s.docker.dockerfile === docker.dockerfile &&
          s.docker.target === docker.target,
      );
      // The same build and command under other profiles (never run together): one container
      // written twice, one artifact.
      if (same && sameCommand(same, service.command) && alternatives(same, service)) {
        out.skipped.push(
          `${at}: the same container as ${same.name} under another profile (same build and command), one artifact`,
        );
        continue;
      }
      const found = detection.dockerfiles.find((d) => d.path === docker.dockerfile);
      out.sources.push({
        name: service.name,
        from: `${at} (${docker.dockerfile}${docker.target ? `, target ${docker.target}` : ''})`,
        ...(same ? { runs: same.name } : {}),
        docker,
        ...(found ? { dockerfile: found } : {}),
        ...(line ? { imageName: line.name } : ciImage?.imageName ? { imageName: ciImage.imageName } : {}),
        ...(service.command ? { command: service.command } : {}),
        ...oneShotOf(service),
        ...(service.profiles?.length ? { profiles: service.profiles } : {}),
        service: service.name,
        ...(ciImage ? ciExtras(ciImage) : {}),
      });
    }
    // Services that only name an image another service builds run that image: roles of it.
    for (const service of compose.services) {
      if (service.build || !service.image || out.sources.some((s) => s.name === service.name)) continue;
      const line = readImageLine(service.image);
      const built = line && out.sources.find((s) => !s.runs && s.imageName === line.name);
      if (built) {
        out.sources.push({
          name: service.name,
          from: `${compose.path} service ${service.name} (runs the image of ${built.name})`,
          runs: built.name,
          imageName: line.name,
          ...(service.command ? { command: service.command } : {}),
          ...oneShotOf(service),
        });
      } else if (line?.registry && !out.sources.some((s) => s.docker)) imageLines.push(line);
    }
  }
  for (const image of ci.images) {
    if (usedCi.has(image)) continue;
    usedByProduction.add(image.dockerfile);
    if (image.registry && image.imageName)
      imageLines.push({ registry: image.registry, name: image.imageName });
    out.sources.push({
      name: image.name,
      from: `${image.from} (${image.dockerfile}${image.target ? `, target ${image.target}` : ''})`,
      docker: ciDocker(image),
      ...(image.found ? { dockerfile: image.found } : {}),
      ...(image.imageName ? { imageName: image.imageName } : {}),
      ...ciExtras(image),
    });
  }
  // Other Dockerfiles: the usual names, unless a rule says they are not a release's.
  const fromCompose = new Set(detection.compose.flatMap((c) => dockerfilesOf(c)));
  const composeBuilds = out.sources.length > 0;
  const ciBuilt = ci.images.length > 0;
  for (const found of detection.dockerfiles) {
    if (usedByProduction.has(found.path)) continue;
    const why =
      devReason(found.path) ??
      baseReason(found.path) ??
      (fromCompose.has(found.path) ? 'used only by a development or test compose file' : undefined) ??
      (ciBuilt ? "not built by the repository's CI" : undefined) ??
      (composeBuilds ? 'not built by the production compose file' : undefined);
    if (why) {
      out.skipped.push(`${found.path}: not an artifact (${why}); declare it if you release it`);
      continue;
    }
    const roleTargets = found.facts.targets.filter((t) => (IMAGE_ROLES as readonly string[]).includes(t));
    const { context, reason } = contextOf(found, exists);
    const base = { dockerfile: found, ...(reason ? { contextReason: reason } : {}) };
    if (roleTargets.length > 1) {
      for (const target of roleTargets)
        out.sources.push({
          ...base,
          name: target,
          from: `${found.path}, target ${target}`,
          docker: { context, dockerfile: found.path, target, args: {} },
        });
      continue;
    }
    out.sources.push({
      ...base,
      name: artifactOfDockerfile(found.path),
      from: found.path,
      docker: { context, dockerfile: found.path, args: {} },
    });
  }
  // A Node folder inside a Dockerfile's build context ships in that image, not in one of its own.
  const contexts = out.sources.flatMap((s) => (s.docker ? [s.docker.context] : []));
  for (const folder of detection.nodeFolders) {
    const inside = contexts.find(
      (c) => c === '.' || c === '' || folder.dir === c || folder.dir.startsWith(`${c}/`),
    );
    if (inside !== undefined) {
      out.skipped.push(
        `${folder.dir}/: not an image of its own (inside the build context ${inside === '' ? '.' : inside})`,
      );
      continue;
    }
    out.sources.push({
      name: folder.dir,
      from: `${folder.dir}/ (a Node service, ${folder.entry}; no Dockerfile)`,
      nodeFolder: folder,
    });
  }
  // An image-only production compose file (images pulled, built elsewhere) still names them:
  // a service named like a Dockerfile's artifact, or, with one Dockerfile left and one image of
  // the service's own (not a database or cache), that image and every service that runs it.
  const pulled = production
    .flatMap((c) => c.services)
    // (a CI build of the same name, `app`, is not that service: it may be what the service pulls)
    .filter(
      (s) => !s.build && s.image && !out.sources.some((o) => o.name === s.name && (o.service || o.runs)),
    )
    .map((s) => ({ service: s, line: readImageLine(s.image!) }))
    .filter((s): s is { service: ComposeService; line: ImageLine } => s.line !== undefined);
  // Only images no compose service builds: a service's own build is named by that service.
  const unnamed = out.sources.filter((s) => !s.imageName && !s.runs && s.docker && !s.service);
  for (const source of unnamed) {
    const match = pulled.find(
      (p) => p.service.name === source.name || p.service.name.endsWith(`-${source.name}`),
    );
    if (match) source.imageName = match.line.name;
  }
  const own = [...new Set(pulled.filter((p) => !INFRASTRUCTURE.test(p.line.name)).map((p) => p.line.name))];
  const left = unnamed.filter((s) => !s.imageName);
  if (left.length === 1 && own.length === 1) {
    const source = left[0]!;
    const runs = pulled.filter((p) => p.line.name === own[0]);
    const first = runs[0]!;
    source.from = `${source.from}, the image of ${runs.map((r) => r.service.name).join(', ')} in ${production.map((c) => c.path).join(', ')}`;
    source.name = first.service.name;
    source.imageName = first.line.name;
    if (first.service.command) source.command = first.service.command;
    imageLines.push(first.line);
    for (const other of runs.slice(1))
      out.sources.push({
        name: other.service.name,
        from: `${production[0]!.path} service ${other.service.name} (runs the image of ${source.name})`,
        runs: source.name,
        imageName: other.line.name,
        ...(other.service.command ? { command: other.service.command } : {}),
        ...oneShotOf(other.service),
      });
  }
  // The registry of the images released, else of every image line with a host.
  const released = imageLines.filter((l) => out.sources.some((s) => s.imageName === l.name));
  if (released.some((l) => l.registry)) imageLines.splice(0, imageLines.length, ...released);
  const common = commonRegistry(imageLines);
  if (common)
    out.registry = {
      registry: common.registry,
      from: production.length
        ? `the image: lines of ${production.map((c) => c.path).join(', ')} (${common.count} of them)`
        : `the images the repository's CI pushes (${common.count} of them)`,
    };
  return out;
}

// Profiles whose services are not released: kept for development, tests or history.
const NOT_RELEASED_PROFILES = new Set([
  ...DEV_NAMES,
  'deprecated',
  'legacy',
  'old',
  'tools',
  'debugging',
  'testing',
]);

/** The profile that keeps a service out of the release: every profile it has is one of those. */
function notReleasedProfile(service: ComposeService): string | undefined {
  const profiles = service.profiles ?? [];
  if (!profiles.length || !profiles.every((p) => NOT_RELEASED_PROFILES.has(p.toLowerCase())))
    return undefined;
  return profiles[0];
}

/** Two services with profiles and none in common: never run together. */
function alternatives(source: ImageSource, service: ComposeService): boolean {
  const a = source.profiles ?? [];
  const b = service.profiles ?? [];
  return a.length > 0 && b.length > 0 && !a.some((p) => b.includes(p));
}

function sameCommand(source: ImageSource, command: string[] | undefined): boolean {
  return JSON.stringify(source.command ?? null) === JSON.stringify(command ?? null);
}

function ciDocker(image: CiImage): NonNullable<ImageSource['docker']> {
  return {
    context: image.context,
    dockerfile: image.dockerfile,
    ...(image.target ? { target: image.target } : {}),
    args: image.args,
  };
}

function ciExtras(image: CiImage): Pick<ImageSource, 'versionArgs' | 'platforms' | 'chained'> {
  return {
    ...(Object.keys(image.chained).length ? { chained: image.chained } : {}),
    ...(image.versionArgs.length ? { versionArgs: image.versionArgs } : {}),
    ...(image.platforms.length ? { platforms: image.platforms } : {}),
  };
}

/** The build of a service of this name in another compose file that is not a dev or test one. */
function buildElsewhere(
  name: string,
  all: readonly FoundCompose[],
  production: readonly FoundCompose[],
): { path: string; build: ComposeBuild } | undefined {
  for (const compose of all) {
    if (production.includes(compose) || devCompose(compose.path)) continue;
    const build = compose.services.find((s) => s.name === name)?.build;
    if (build) return { path: compose.path, build };
  }
  return undefined;
}

/** `docker-compose.dev.yml`, `compose.test.yaml`, `docker-compose-local.yml`: by its name. */
function devCompose(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  return base
    .replace(/\.ya?ml$/, '')
    .split(/[.-]/)
    .some((part) => DEV_NAMES.has(part) || part.startsWith('dev') || part === 'override');
}

/** The Dockerfiles a compose file builds (whether or not they stay in the repository). */
function dockerfilesOf(compose: FoundCompose): string[] {
  return compose.services.flatMap((s) => {
    if (!s.build) return [];
    const context = resolveInRepo(dirOf(compose.path), s.build.context);
    if ('refused' in context) return [];
    const file = resolveInRepo(context.path, s.build.dockerfile ?? 'Dockerfile');
    return 'path' in file ? [file.path] : [];
  });
}

/**
 * Where a Dockerfile no compose file builds is built from: its own folder, unless its COPY
 * sources are found from the top of the repository and not from its folder (`COPY api/src ...`
 * in `api/Dockerfile` is built with `context: .`).
 */
function contextOf(
  found: FoundDockerfile,
  exists: (path: string) => boolean,
): { context: string; reason?: string } {
  if (found.dir === '.') return { context: '.' };
  const sources = found.facts.copySources.filter(
    (s) => !s.includes('$') && s !== '.' && s !== './' && !s.includes('*'),
  );
  // `COPY . .` in docker/Dockerfile: a folder of Dockerfiles holds no code to copy, so it is built
  // from the top (`docker build -f docker/Dockerfile .`).
  if (!sources.length && inPackagingFolder(found.path))
    return {
      context: '.',
      reason: `context ".": ${found.dir}/ is a folder of Dockerfiles, and it copies the whole context`,
    };
  if (!sources.length) return { context: found.dir };
  const inDir = sources.filter((s) => exists(joinPath(found.dir, s.replace(/^\.\//, '')))).length;
  const atTop = sources.filter((s) => exists(s.replace(/^\.\//, ''))).length;
  if (atTop > inDir)
    return {
      context: '.',
      reason: `context ".": ${atTop} of its ${sources.length} COPY sources are found from the top of the repository, ${inDir} from ${found.dir}/`,
    };
  return { context: found.dir };
}

// Dockerfiles of the image others start FROM (`Dockerfile.base`, `deps.Dockerfile`).
const BASE_NAMES = new Set(['base', 'builder', 'deps', 'dependencies', 'buildenv', 'toolchain', 'cache']);

function baseReason(path: string): string | undefined {
  const suffix = (dockerfileSuffix(path) ?? '').toLowerCase();
  return suffix.split(/[.-]/).some((part) => BASE_NAMES.has(part))
    ? 'a base or builder image by its name, which the service images start FROM'
    : undefined;
}

/** What makes a compose service a one-shot job: another waits for it to complete. */
function oneShotOf(service: ComposeService): { oneShot?: string } {
  if (!service.awaited) return {};
  const restart = service.restart ? `, restart: "${service.restart}"` : '';
  return {
    oneShot: `${service.awaited} waits for it to complete (service_completed_successfully${restart})`,
  };
}
