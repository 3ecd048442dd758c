import * as z from 'zod';
import {
  ARTIFACT_IMAGE_ROLES,
  ARTIFACT_NAME,
  DEFAULT_BASE_IMAGE,
  DEFAULT_INSTALL_COMMAND,
  IMAGE_ROLES,
  type ImageRole,
  REPOSITORY,
  ROLES,
} from './constants.ts';
import { roleOrder } from './role-order.ts';

const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A command name npm can link into node_modules/.bin: no path, no leading dot or dash.
const BIN_NAME = /^[A-Za-z0-9_@][A-Za-z0-9._@+-]{0,63}$/;
// A base image as Docker names it (`python:3.14-slim`, `library/python`, `ghcr.io/a/b:1`, resolved
// as Docker does in registry/image-ref.ts parseBaseImageRef), a layout path, or a file:
// `oci-archive:<file>[:tag]`, `docker-archive:<file>[:tag]` (a docker save tarball). A tag and a
// digest together (`seaweedfs:4.40@sha256:…`, as compose files pin them): the digest is read.
const BASE_IMAGE =
  /^(?:(?:oci|docker)-archive:\S+|oci-layout:[^\s:@]*[a-z0-9](?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[0-9a-f]{64})?|(?:[A-Za-z0-9.[\]:-]+\/)?[a-z0-9][a-z0-9._/-]*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?)$/;

const relativePath = z
  .string()
  .min(1)
  // A regex rather than a refine: the JSON Schema (json-schema.ts) carries it as a pattern.
  .regex(/^(?!\/)/, 'expected a path relative to the config file');
const packagePath = z
  .string()
  .regex(
    /^(?!\/)(?!.*(?:^|\/)\.\.?(?:\/|$))[^\0\\]+$/,
    'expected a path inside the package, like "lib/version.txt"',
  );
const absolutePath = z.string().regex(/^\/[^\0]*$/, 'expected an absolute path in the image');
const argv = z
  .array(z.string().min(1), 'expected an argv array such as ["sh", "scripts/build.sh"]')
  .min(1, 'expected at least the program to run');
/**
 * Commands run before the build command when a release rebuilds from the rc's commit, in its
 * fresh checkout (`[["npm", "ci"]]`): the dependencies it lacks. Unset: the lockfile's install
 * (npm ci for a package-lock.json); `[]`: none (reversion/rebuild-from-rc.ts).
 */
const setupCommands = z.array(argv).optional();
const envMap = z.record(z.string().regex(ENV_NAME, 'expected an environment variable name'), z.string());

/**
 * A file whose content is the artifact's version (reversion/version-files.ts): written by the
 * build into the image's version layer, re-written by a release made from an rc.
 */
const versionFileSchema = (path: z.ZodString) =>
  z
    .strictObject({
      path,
      format: z.enum(['text', 'json', 'html-meta'], 'expected "text", "json" or "html-meta"').default('text'),
      /** json: the key holding the version (default `version`). */
      key: z.string().min(1).optional(),
      /** html-meta: the `<meta name>` holding the version (default `service-client-version`). */
      name: z
        .string()
        .regex(/^[A-Za-z0-9._-]+$/, 'expected a meta name of letters, digits, ".", "_" or "-"')
        .optional(),
    })
    .refine((f) => f.key === undefined || f.format === 'json', 'key is for the json format only')
    .refine((f) => f.name === undefined || f.format === 'html-meta', 'name is for the html-meta format only');

/**
 * How a release made from an rc gets its own version (DESIGN.md "Re-versioning"): `in-place`
 * rewrites the version env, labels and declared version files; `rebuild` runs the build command
 * again on the rc's commit and proves the result is the rc's code modulo version strings; `keep`
 * ships the rc's bytes; `rewrite` (images) also rewrites the rc's version strings in the files whose
 * code bakes the version, proven the rc's modulo version strings as a rebuild is. Unset: the
 * default (`release build` prints which applies).
 */
export const REVERSION_STRATEGIES = ['in-place', 'rebuild', 'rewrite', 'keep'] as const;
export type ReversionStrategy = (typeof REVERSION_STRATEGIES)[number];
const reversionSchema = z
  .enum(REVERSION_STRATEGIES, 'expected "in-place", "rebuild", "rewrite" or "keep"')
  .optional();
const cliReversionSchema = z
  .enum(['in-place', 'rebuild', 'keep'], 'expected "in-place", "rebuild" or "keep" ("rewrite" is for images)')
  .optional();

/** An image artifact: how it is built for each engine (either or both), and where it goes. */
export const imageArtifactSchema = z.strictObject({
  /**
   * `api`, `worker`, `web`, or `job`: a one-shot container of the image (a migration) that runs
   * to completion before the API starts; verify reads its last run, upgrade runs it first.
   */
  role: z
    .enum(ARTIFACT_IMAGE_ROLES, 'expected "api", "worker", "web" or "job" (or no role for an extra image)')
    .optional(),
  image: z.string().regex(REPOSITORY, 'expected a lowercase repository name like "service-api"').optional(),
  /**
   * The command this artifact's containers run, as Compose's `command:` or a Swarm service's args
   * give it (`["celery", "-A", "acme", "worker"]`): how verify, watch and upgrade tell the roles of
   * one image apart. Matched as a run of consecutive words of the container's entrypoint and
   * command; of the artifacts naming one image, one may leave it out (it runs the image's default).
   */
  command: argv.optional(),
  /** The image the build starts from; `release base-image` makes the default. */
  base: z
    .string()
    .regex(
      BASE_IMAGE,
      'expected an image as Docker names it ("python:3.14-slim", "<host[:port]>/<repository>[:tag]"), "oci-layout:<dir>/<repository>[:tag]", or a file: "oci-archive:<file>[:tag]", "docker-archive:<file>[:tag]"',
    )
    .default(DEFAULT_BASE_IMAGE),
  /** Run before the image is assembled (a bundler, a client build), in the config's folder. */
  build: z.strictObject({ command: argv, setup: setupCommands }).optional(),
  // docker engine
  context: relativePath.optional(),
  dockerfile: relativePath.optional(),
  target: z.string().min(1).optional(),
  buildArgs: envMap.optional(),
  /**
   * Platforms to build (`linux/amd64`, `linux/arm64/v8`): one image each, pushed by digest under
   * one index. Unset: the engine's own platform, one image.
   */
  platforms: z
    .array(
      z
        .string()
        .regex(
          /^linux\/[a-z0-9]+(?:\/v[0-9]+)?$/,
          'expected a platform like "linux/amd64" or "linux/arm/v7"',
        ),
    )
    .min(1)
    .optional(),
  /**
   * Build secrets a `RUN --mount=type=secret,id=<id>` reads: from an environment variable of the
   * build (`env`) or a file (`file`, relative to the config). Never written into the image or the
   * build output.
   */
  secrets: z
    .array(
      z
        .strictObject({
          id: z
            .string()
            .regex(/^[A-Za-z0-9_.-]{1,128}$/, 'expected a secret id of letters, digits, ".", "_" or "-"'),
          env: z.string().regex(ENV_NAME, 'expected an environment variable name').optional(),
          file: relativePath.optional(),
        })
        .refine((s) => (s.env === undefined) !== (s.file === undefined), 'give env or file (one of them)'),
    )
    .optional(),
  /** BuildKit cache: `--cache-from` and (buildx only) `--cache-to` values, as docker takes them. */
  cache: z
    .strictObject({
      from: z.array(z.string().min(1)).optional(),
      to: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /**
   * The network RUN steps get: `host`, `none` or `default` (the engine's bridge). Unset: `host`
   * when the engine has no bridge network (a dockerd started with --bridge=none), else the default.
   */
  network: z.enum(['host', 'none', 'default'], 'expected "host", "none" or "default"').optional(),
  // oci engine: a jib/ko-style recipe
  files: z
    .array(z.strictObject({ from: relativePath, to: absolutePath }))
    .min(1)
    .optional(),
  workdir: absolutePath.optional(),
  entrypoint: argv.optional(),
  cmd: z.array(z.string()).optional(),
  env: envMap.optional(),
  user: z.string().min(1).optional(),
  exposedPorts: z
    .array(z.string().regex(/^\d{1,5}(?:\/(?:tcp|udp|sctp))?$/, 'expected "8080" or "8080/tcp"'))
    .optional(),
  /**
   * api only: put the CLI archive into this image, for an API that serves its CLI's download (the
   * reference API's `/api/cli/download/...`). Off unless asked (or `cliArchive` is set): a
   * service that is not ours gets no file it never asked for. The archive is in `dist/` and the
   * release record either way.
   */
  serveCli: z.boolean().optional(),
  /**
   * api only: where the CLI archive goes (docker: in the context; oci: in the image). Setting it
   * asks for the archive in the image, as `serveCli: true` does.
   */
  cliArchive: z.string().min(1).optional(),
  /**
   * api only: the `min_cli_version` this API serves (X.Y.Z). Build and promote refuse a CLI below
   * it, and the image carries it as a label so `release upgrade` can warn before it starts.
   */
  minCliVersion: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/, 'expected X.Y.Z (no v), as the API serves it')
    .optional(),
  /** Files in the image whose content is the version (see versionFileSchema). */
  versionFiles: z.array(versionFileSchema(absolutePath)).min(1).optional(),
  reversion: reversionSchema,
});

/**
 * Where a CLI on its own version line declares its version, when its archive is no npm package
 * (whose package.json says it): exactly one of
 * - `pyproject`: a pyproject.toml: `[project].version`, `[tool.poetry].version`, or the place a
 *   `dynamic` version names (setuptools `attr`/`file`, hatch `path` and `pattern`, pdm `file`,
 *   flit's `__version__`); a version made from git tags at build time cannot be read and is refused;
 * - `file`: a file holding it (`cli/VERSION`; a `.py` file's `__version__`, a `.json` file's
 *   `version`, a `.toml` file's `[package].version` as in Cargo.toml);
 * - `command`: a command printing it (`["./bin/acme", "--version"]`, run in the config's folder).
 * `scheme` says how its versions order against the API's `min_cli_version`: `pep440` (the default
 * for a pyproject) or `semver` (the default otherwise).
 */
const ownVersionSchema = z
  .strictObject({
    pyproject: relativePath.optional(),
    file: relativePath.optional(),
    command: argv.optional(),
    scheme: z.enum(['semver', 'pep440'], 'expected "semver" or "pep440"').optional(),
  })
  .refine(
    (own) => [own.pyproject, own.file, own.command].filter((v) => v !== undefined).length === 1,
    'expected exactly one of pyproject, file or command',
  );

/** The CLI: any language, built by a command that writes one archive. */
export const cliArtifactSchema = z.strictObject({
  role: z.literal('cli').optional(),
  package: z.string().regex(NPM_NAME, 'expected an npm package name').default('service-cli'),
  /**
   * The command the package installs (`acme`), which `release verify` runs as `<bin> --version`
   * from PATH. Unset: the package's own `bin`, read from the package.json of its built archive.
   */
  bin: z.string().regex(BIN_NAME, 'expected a command name like "acme", without a path').optional(),
  /**
   * Which version line the CLI is on. `service` (the default): the service's, stamped into the CLI
   * and published under it. `own`: the version its package declares (the built archive's
   * package.json `version`, `0.31.3` while the service is `2026.7.0`): never re-stamped with the
   * service's, published as that version (dev `0.31.3-dev.N.g<hash>`, rc `0.31.3-rc.N`, release
   * `0.31.3`), held to the API's `min_cli_version` as a CLI version, and not required by verify
   * to equal the service's tag.
   */
  version: z
    .union(
      [z.enum(['service', 'own']), z.strictObject({ own: ownVersionSchema })],
      'expected "service", "own" or { own: { pyproject | file | command } }',
    )
    .default('service'),
  /**
   * The build command and the archive it writes. On its own version line (any `version: 'own'`),
   * `{version}` in `archive` is the CLI's declared version: `cli/dist/acme_cli-{version}.tar.gz`,
   * as Python's build names an sdist.
   */
  build: z.strictObject({ command: argv, archive: relativePath, setup: setupCommands }).optional(),
  /** The upgrade command the gate prints; `{url}` is the archive URL on the API. */
  installCommand: z
    .string()
    .refine((text) => text.includes('{url}'), 'expected a command containing {url}')
    .default(DEFAULT_INSTALL_COMMAND),
  /**
   * `release promote` also publishes the CLI archive to the npm registry of npm's own config
   * (docs/guides/channels-and-pinning.md). Off by default: the embedded default needs no
   * registry.
   */
  publish: z.boolean().default(false),
  /**
   * Files in the CLI's npm package (`lib/version.txt`, relative to its package.json) whose content
   * is the version: re-written in place, like an image's, when a release re-versions the archive.
   */
  versionFiles: z.array(versionFileSchema(packagePath)).min(1).optional(),
  reversion: cliReversionSchema,
});

export type ImageArtifactConfig = z.output<typeof imageArtifactSchema> & {
  kind: 'image';
  /** The key under `artifacts`. */
  name: string;
  image: string;
  /**
   * Set when this artifact is a role run from an image another artifact builds (a worker, a
   * scheduler from the API's image): the name of that artifact. Such an artifact is never built,
   * signed, promoted or mirrored itself; verify, watch and upgrade read it as a role of its own.
   */
  roleOf?: string;
  /** Set on a role's default that the config did not declare (a config that only names images). */
  implicit?: true;
};
export type CliArtifactConfig = Omit<z.output<typeof cliArtifactSchema>, 'version'> & {
  /** `own` for any own version line; where it is declared, when the config names it, in `own`. */
  version: 'service' | 'own';
  own?: z.output<typeof ownVersionSchema>;
  kind: 'cli';
  name: string;
  role: 'cli';
  /** Set on the default CLI when the config declares none: verify then checks no CLI. */
  implicit?: true;
};
export type ArtifactConfig = ImageArtifactConfig | CliArtifactConfig;
export type ImageArtifactInput = z.input<typeof imageArtifactSchema>;
export type CliArtifactInput = z.input<typeof cliArtifactSchema>;

/**
 * `artifacts`: a map from artifact name to how it is built. The keys `api`, `worker`, `web` and
 * `cli` take that role unless they say otherwise; any other key is an extra image (or says its
 * role). A role nobody declares gets its default (an image named `service-<role>`, no build), so
 * stamp, promote and verify keep working for a config that only names images; `false` drops it.
 */
export const artifactsSchema = z
  .record(z.string(), z.unknown())
  .default({})
  .transform((raw, ctx) => {
    const out: Record<string, ArtifactConfig> = {};
    const dropped = new Set<string>();
    const recipeKeys = new Map<string, string[]>();
    for (const [name, value] of Object.entries(raw)) {
      if (!ARTIFACT_NAME.test(name)) {
        ctx.issues.push({
          code: 'custom',
          message: 'expected an artifact name: a lowercase letter, then lowercase letters, digits and -',
          path: [name],
          input: name,
        });
        continue;
      }
      if (value === false) {
        dropped.add(name);
        continue;
      }
      const isCli = name === 'cli' || (isObject(value) && value['role'] === 'cli');
      const parsed = (isCli ? cliArtifactSchema : imageArtifactSchema).safeParse(value ?? {});
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          ctx.issues.push({ ...issue, path: [name, ...issue.path] } as never);
        continue;
      }
      out[name] = isCli
        ? {
            ...cliVersionOf(parsed.data as z.output<typeof cliArtifactSchema>),
            kind: 'cli',
            name,
            role: 'cli',
          }
        : imageArtifact(name, parsed.data as z.output<typeof imageArtifactSchema>);
      if (!isCli)
        recipeKeys.set(
          name,
          Object.keys(value ?? {}).filter((key) => !ROLE_KEYS.has(key)),
        );
    }
    for (const role of ROLES) {
      if (dropped.has(role) || Object.values(out).some((a) => a.role === role)) continue;
      if (raw[role] !== undefined) continue; // declared but invalid: already reported
      out[role] =
        role === 'cli'
          ? { ...cliVersionOf(cliArtifactSchema.parse({})), kind: 'cli', name: role, role, implicit: true }
          : { ...imageArtifact(role, { ...imageArtifactSchema.parse({}), role }), implicit: true };
    }
    for (const issue of markSharedImages(out, recipeKeys)) ctx.issues.push({ ...issue, input: undefined });
    return out;
  });

/** `version: { own: {…} }` read as `version: 'own'` with where it is declared beside it. */
function cliVersionOf(
  data: z.output<typeof cliArtifactSchema>,
): Omit<CliArtifactConfig, 'kind' | 'name' | 'role'> {
  const { version, ...rest } = data;
  return typeof version === 'string' ? { ...rest, version } : { ...rest, version: 'own', own: version.own };
}

/** What an artifact that runs another artifact's image may say: which image, which role, which command. */
const ROLE_KEYS = new Set(['role', 'image', 'command']);

/**
 * Several artifacts may name one image (one application image run as API, worker and scheduler).
 * One of them builds it: the one with a recipe, else the first in role order. The others become
 * roles of it (`roleOf`) and may say no more than `ROLE_KEYS`, since the image is built once.
 */
function markSharedImages(
  out: Record<string, ArtifactConfig>,
  recipeKeys: ReadonlyMap<string, string[]>,
): { code: 'custom'; message: string; path: string[] }[] {
  const issues: { code: 'custom'; message: string; path: string[] }[] = [];
  const byImage = new Map<string, ImageArtifactConfig[]>();
  for (const artifact of Object.values(out)) {
    // A role's default the config never declared keeps its own image (artifact-rules.ts refuses the clash).
    if (artifact.kind !== 'image' || artifact.implicit) continue;
    byImage.set(artifact.image, [...(byImage.get(artifact.image) ?? []), artifact]);
  }
  for (const [image, sharing] of byImage) {
    if (sharing.length < 2) continue;
    const recipes = sharing.filter((a) => (recipeKeys.get(a.name) ?? []).length > 0);
    const builder = recipes[0] ?? [...sharing].sort(roleOrder)[0]!;
    for (const extra of recipes.slice(1)) {
      issues.push({
        code: 'custom',
        path: [extra.name],
        message: `"${image}" is built by artifacts.${builder.name}: a role run from it says only role, image and command (remove ${recipeKeys.get(extra.name)!.join(', ')})`,
      });
    }
    for (const role of sharing) if (role !== builder) role.roleOf = builder.name;
  }
  return issues;
}

function imageArtifact(name: string, data: z.output<typeof imageArtifactSchema>): ImageArtifactConfig {
  const role =
    data.role ?? ((IMAGE_ROLES as readonly string[]).includes(name) ? (name as ImageRole) : undefined);
  const image = data.image ?? ((ROLES as readonly string[]).includes(name) ? `service-${name}` : name);
  return { ...data, ...(role ? { role } : {}), kind: 'image', name, image };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
