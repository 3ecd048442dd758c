import type { CiBuild } from './ci-build.ts';
import { readYaml, record, scalar, strings } from './read-yaml.ts';

/**
 * What a `.goreleaser.yaml` releases: its Go builds (main package, binary name, `-X` flags) and
 * its images (`dockers` with their `image_templates` and `build_flag_templates`, `dockers_v2`
 * with `images` and `tags`; `docker_manifests` that join per-platform images under one tag).
 * goreleaser builds each image in a folder it stages (the binaries and `extra_files`), so the
 * context given is the folder of the goreleaser file, and the plan says so. Pure.
 */
export interface GoreleaserRead {
  path: string;
  /** The folder of the file: where goreleaser runs (`workdir:` of its action). */
  dir: string;
  builds: { id?: string; main?: string; binary?: string; ldflags: string[] }[];
  images: CiBuild[];
  /** `docker_manifests[].name_template`: the multi-platform tags it pushes. */
  manifests: string[];
  unreadable?: string;
}

export function readGoreleaser(path: string, text: string): GoreleaserRead {
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '.' : path.slice(0, slash);
  const out: GoreleaserRead = { path, dir, builds: [], images: [], manifests: [] };
  const read = readYaml(text);
  if ('unreadable' in read) return { ...out, unreadable: read.unreadable };
  const data = record(read.data);
  if (!data) return { ...out, unreadable: 'not a map of keys' };
  for (const raw of list(data['builds'])) {
    const id = scalar(raw['id']);
    const main = scalar(raw['main']);
    const binary = scalar(raw['binary']);
    out.builds.push({
      ...(id ? { id } : {}),
      ...(main ? { main } : {}),
      ...(binary ? { binary } : {}),
      ldflags: strings(raw['ldflags']),
    });
  }
  list(data['dockers']).forEach((raw, index) => {
    const refs = strings(raw['image_templates']);
    const flags = strings(raw['build_flag_templates']);
    const flag = (name: string) =>
      flags.filter((f) => f.startsWith(`${name}=`)).map((f) => f.slice(name.length + 1));
    out.images.push(
      image(out, `dockers[${index}]`, raw, {
        images: refs.map(repositoryOf),
        tags: refs.map((r) => r.slice(repositoryOf(r).length + 1)),
        platforms: flag('--platform'),
        buildArgs: Object.fromEntries(flag('--build-arg').map(splitArg)),
        target: flag('--target')[0],
        skipPush: scalar(raw['skip_push']),
      }),
    );
  });
  list(data['dockers_v2']).forEach((raw, index) => {
    const args = record(raw['build_args']) ?? {};
    out.images.push(
      image(out, `dockers_v2[${index}]`, raw, {
        images: strings(raw['images']),
        tags: strings(raw['tags']),
        platforms: strings(raw['platforms']),
        buildArgs: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, scalar(v) ?? ''])),
        target: undefined,
        skipPush: scalar(raw['skip_push']),
      }),
    );
  });
  for (const raw of list(data['docker_manifests'])) {
    const name = scalar(raw['name_template']);
    if (name) out.manifests.push(name);
  }
  return out;
}

function image(
  read: GoreleaserRead,
  at: string,
  raw: Record<string, unknown>,
  parts: {
    images: string[];
    tags: string[];
    platforms: string[];
    buildArgs: Record<string, string>;
    target: string | undefined;
    skipPush: string | undefined;
  },
): CiBuild {
  const dockerfile = scalar(raw['dockerfile']) ?? 'Dockerfile';
  return {
    at: `${read.path} ${at} (goreleaser stages the binaries and extra_files as its context)`,
    context: read.dir,
    file: read.dir === '.' ? dockerfile : `${read.dir}/${dockerfile}`,
    fileBase: 'top',
    ...(parts.target ? { target: parts.target } : {}),
    buildArgs: parts.buildArgs,
    platforms: parts.platforms,
    images: [...new Set(parts.images)],
    push: parts.skipPush !== 'true',
    pushesLatest: parts.tags.some((t) => t === 'latest'),
    pushesVersion: parts.tags.some((t) => /\{\{\s*\.(?:Version|Tag|Major)/.test(t)),
  };
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.map(record).filter((r): r is Record<string, unknown> => r !== undefined)
    : [];
}

function splitArg(arg: string): [string, string] {
  const eq = arg.indexOf('=');
  return eq < 0 ? [arg, ''] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

/** `ghcr.io/a/b:{{ .Version }}-amd64` -> `ghcr.io/a/b` (a template's braces hold no `/`). */
function repositoryOf(reference: string): string {
  const template = reference.indexOf(':{{');
  if (template >= 0) return reference.slice(0, template);
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? reference.slice(0, colon) : reference;
}
