import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SIGNATURE_SUFFIX } from '../../archives/archive-signature.ts';
import { readArtifactDockerfile } from '../../build/artifact-dockerfile.ts';
import { dockerfileOf } from '../../build/check-artifacts.ts';
import { dockerContext } from '../../build/docker-context.ts';
import type { DockerfileStage } from '../../build/dockerfile-stages.ts';
import {
  imageLabels,
  imageVersionVariables,
  type LabelInput,
  recipeSpec,
  versionBuildArgs,
  versionEnvLabel,
} from '../../build/image-specs.ts';
import { recipeEntries } from '../../build/recipe-entries.ts';
import { stampDockerfile } from '../../build/stamp-dockerfile.ts';
import { createDockerEngine } from '../../build-engines/docker/docker-engine.ts';
import { imageReachable } from '../../build-engines/docker/image-reachable.ts';
import type { DockerRecipe, Engine, OciRecipe } from '../../build-engines/engine.ts';
import { createOciEngine } from '../../build-engines/oci/oci-engine.ts';
import type { ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import { DEFAULT_CLI_ARCHIVE } from '../../config/constants.ts';
import { MIN_CLI_LABEL, ownMinimum } from '../../config/own-minimum.ts';
import { UsageError } from '../../errors.ts';
import type { LayerEntry } from '../../oci-image/layer.ts';
import { VERSION_LAYER_FILES_LABEL } from '../../oci-image/version-layer.ts';
import type { Step } from '../../pipeline/step.ts';
import { parseBaseImageRef } from '../../registry/image-ref.ts';
import { imageReversion } from '../../reversion/artifact-strategies.ts';
import {
  formatsLabel,
  VERSION_FILES_FORMAT_LABEL,
  type VersionFile,
  versionFileOf,
} from '../../reversion/version-files.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/** Build (and with --push, publish) each selected image with the chosen engine, under the build tag. */
export const buildImagesStep: Step<BuildContext> = {
  title: 'Build the images',
  writes: true,
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only)' : false),
  async run(ctx, io) {
    const engine = engineOf(ctx);
    for (const artifact of imagesToBuild(ctx)) {
      const labels: LabelInput = {
        tag: ctx.tag!,
        commit: ctx.record!.commit,
        epoch: ctx.epoch!,
        source: ctx.source!,
        title: artifact.image,
        ...(artifact.role === 'api' && ownMinimum(ctx.config)
          ? { extra: { [MIN_CLI_LABEL]: ownMinimum(ctx.config)!.min } }
          : {}),
      };
      const cli = artifact.role === 'api' ? ctx.cli : undefined;
      const recipe = await ctx.timer.time(artifact.name, 'recipe', async () =>
        engine.name === 'oci'
          ? { oci: await ociRecipe(ctx, artifact, labels, cli) }
          : { docker: await dockerRecipe(ctx, artifact, labels, cli) },
      );
      ctx.built[artifact.name] = await engine.build(
        {
          artifact: artifact.name,
          ...recipe,
          base: parseBaseImageRef(artifact.base),
          registry: ctx.config.registry,
          repository: artifact.image,
          // Never the version: only promotion writes channel tags, so a rebuild moves none.
          tag: ctx.buildTag!,
          push: ctx.push,
        },
        (line) => io.progress(`${artifact.name}: ${line}`),
        (part, work) => ctx.timer.time(artifact.name, part, work),
      );
      ctx.warnings.push(...(ctx.built[artifact.name]!.warnings ?? []));
    }
  },
};

type BuiltCli = BuildContext['cli'];

/**
 * The daemonless recipe: the artifact's files as one layer and, for the api, the CLI archive as
 * a layer of its own on top (so a release can swap that small layer without touching the code),
 * with its signature beside it when the build signed it (the API serves it to `svc update`).
 */
async function ociRecipe(
  ctx: BuildContext,
  artifact: ImageArtifactConfig,
  labels: LabelInput,
  cli: BuiltCli,
): Promise<OciRecipe> {
  const files = (artifact.files ?? []).map((f) => ({ source: resolve(ctx.configDir, f.from), to: f.to }));
  const layers: LayerEntry[][] = [await recipeEntries(files)];
  const spec = recipeSpec(artifact, labels, imageVersionVariables(ctx.config, artifact));
  if (cli) {
    const to = artifact.cliArchive ?? DEFAULT_CLI_ARCHIVE.oci;
    layers.push([
      { type: 'file', path: to, source: cli.path, mode: 0o644 },
      ...(cli.signature
        ? [{ type: 'file' as const, path: `${to}${SIGNATURE_SUFFIX}`, source: cli.signature, mode: 0o644 }]
        : []),
    ]);
    spec.createdBy = [spec.createdBy as string, `release build: CLI archive ${to} (${artifact.name})`];
    spec.versionFiles = [to];
  }
  // The files the artifact declares as carrying its version become the version layer a release
  // re-stamps (with their formats in a label, so the image alone says how). Undeclared, a web
  // client's version.json and the index.html beside it are found by name, as before declarations.
  const declared = artifact.versionFiles?.map(versionFileOf);
  if (declared) {
    const missing = declared.filter((f) => !layers[0]!.some((e) => e.type === 'file' && e.path === f.path));
    if (missing.length)
      throw new UsageError(
        'VERSION_FILES_MISSING',
        `artifacts.${artifact.name}.versionFiles names ${missing.map((f) => f.path).join(', ')}, not in the image its files make`,
        { hint: 'declare paths in the image (the `to` side of files), written by the build command' },
      );
    spec.versionFiles = [...(spec.versionFiles ?? []), ...declared.map((f) => f.path)];
    spec.labels = { ...spec.labels, [VERSION_FILES_FORMAT_LABEL]: formatsLabel(declared) };
  } else if (artifact.role === 'web') spec.versionFiles = webVersionFiles(layers[0]!);
  // Files whose code bakes the version (a bundle) join the version layer too, so that a release
  // rebuilt from the rc's commit swaps only them and every code layer stays the rc's.
  ctx.reversions[artifact.name] ??= await imageReversion(ctx.configDir, artifact, ctx.tag!);
  const { baked } = ctx.reversions[artifact.name]!;
  const bakedHere = baked.filter((path) => layers[0]!.some((e) => e.type === 'file' && e.path === path));
  if (bakedHere.length) {
    // A page found by name that bakes the version beyond its meta tag is listed once, as baked.
    spec.versionFiles = [...new Set([...(spec.versionFiles ?? []), ...bakedHere])];
    const rebuilt: VersionFile[] = bakedHere.map((path) => ({ path, format: 'rebuild' }));
    spec.labels = {
      ...spec.labels,
      [VERSION_FILES_FORMAT_LABEL]: formatsLabel([...(declared ?? []), ...rebuilt]),
    };
  }
  return { layers, spec };
}

/**
 * The docker recipe: the context with its .dockerignore, the CLI archive added for the api, and
 * its `.sig` beside it when the build signed it (templates/docker/api.Dockerfile copies both with
 * one wildcard, so the same Dockerfile serves signed and unsigned builds).
 */
async function dockerRecipe(
  ctx: BuildContext,
  artifact: ImageArtifactConfig,
  labels: LabelInput,
  cli: BuiltCli,
): Promise<DockerRecipe> {
  const contextDir = resolve(ctx.configDir, artifact.context!);
  const versionArgs = versionBuildArgs(ctx.config, ctx.tag!);
  const envNames = imageVersionVariables(ctx.config, artifact);
  const dockerfile = readArtifactDockerfile(ctx.configDir, artifact, versionArgs, [
    ...new Set([...Object.keys(versionArgs), ...envNames]),
  ]);
  if (!dockerfile?.findings.stage)
    throw new UsageError(
      'DOCKERFILE_TARGET_MISSING',
      dockerfile
        ? `artifacts.${artifact.name}.target: ${dockerfile.path} has no stage "${artifact.target}"`
        : `artifacts.${artifact.name}: cannot read its Dockerfile ${dockerfileOf(artifact)}`,
      {
        hint: 'name a stage of the Dockerfile (FROM ... AS <name>) as target, or leave target out for the last stage',
      },
    );
  // BuildKit caches a step whatever its secrets hold: an unset one would pass unnoticed on a rebuild.
  const unset = (artifact.secrets ?? []).filter((s) => s.env && !ctx.env[s.env]?.length);
  if (unset.length)
    throw new UsageError(
      'BUILD_SECRET_UNSET',
      `artifacts.${artifact.name}.secrets: ${unset.map((s) => `"${s.id}" comes from ${s.env}, which is not set`).join('; ')}`,
      { hint: 'set the variable in the build environment (a CI secret), or give the secret from a file' },
    );
  const { findings } = dockerfile;
  const stage = findings.stage!;
  if (findings.versionArgs.length === 0)
    ctx.warnings.push(
      `${artifact.name}: ${dockerfile.path} declares no ARG of a version variable (${Object.keys(versionArgs).join(', ')}) in a stage of its target, so nothing it builds can bake the version; the image env still carries it`,
    );
  // A `# syntax=` frontend is an image BuildKit fetches before it reads the file: where it cannot
  // be fetched (no network to its registry), the engine's own frontend reads the file instead.
  let dropSyntax: string | undefined;
  if (dockerfile.parsed.syntax) {
    const reach = await imageReachable(dockerfile.parsed.syntax, {
      docker: ctx.engine?.docker,
      open: ctx.open,
    });
    if (reach.where === 'missing' || reach.where === 'unknown') {
      dropSyntax = `# syntax=${dockerfile.parsed.syntax} cannot be fetched (${reach.reason})`;
      ctx.warnings.push(
        `${artifact.name}: ${dockerfile.path}'s ${dropSyntax}: built with the engine's own Dockerfile frontend instead`,
      );
    }
  }
  // The version in the image's environment, whatever the Dockerfile does with its build args.
  const stamped = stampDockerfile(
    dockerfile.text,
    stage,
    Object.fromEntries(envNames.map((name) => [name, ctx.tag!])),
    dropSyntax,
  );
  const context = await dockerContext({
    contextDir,
    dockerfile: resolve(ctx.configDir, dockerfile.path),
    dockerfileText: stamped.text,
    extra: [
      ...(cli ? cliContextFiles(artifact.cliArchive ?? DEFAULT_CLI_ARCHIVE.docker, cli) : []),
      ...versionLayerContextFiles(artifact, contextDir, ctx.epoch!),
    ],
    epoch: ctx.epoch!,
  });
  return {
    context: context.tar,
    dockerfile: context.dockerfile,
    target: stamped.target,
    buildArgs: { ...(artifact.buildArgs ?? {}), ...versionArgs },
    labels: {
      ...ownLabelsKept(imageLabels(labels), findings.labelKeys),
      ...versionEnvLabel(envNames),
      ...dockerVersionFileLabels(artifact, findings.stages),
    },
    usesBaseImage: findings.usesBaseImage,
    rootBase: findings.root,
    platforms: artifact.platforms,
    secrets: (artifact.secrets ?? []).map((secret) =>
      secret.file
        ? { id: secret.id, file: resolve(ctx.configDir, secret.file) }
        : { id: secret.id, env: secret.env },
    ),
    cache: { from: artifact.cache?.from ?? [], to: artifact.cache?.to ?? [] },
    network: artifact.network,
  };
}

/**
 * A label the Dockerfile sets itself (`org.opencontainers.image.source=https://github.com/...`)
 * is not overwritten by one the build knows nothing of: build labels win over LABEL, and
 * `unknown` would replace what the project wrote.
 */
function ownLabelsKept(labels: Record<string, string>, theirs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(labels).filter(([key, value]) => !(value === 'unknown' && theirs.includes(key))),
  );
}

/**
 * Declared version files in a docker image: the Dockerfile copies `version-layer/` last (see
 * templates/docker/web.Dockerfile), the labels say which files it holds and their formats (build
 * labels override the Dockerfile's LABEL). A declared `/app/web/version.json` is staged from the
 * context's `app/web/version.json`: the image path, relative to the context.
 */
function dockerVersionFileLabels(
  artifact: ImageArtifactConfig,
  stages: readonly DockerfileStage[],
): Record<string, string> {
  const declared = artifact.versionFiles?.map(versionFileOf);
  if (!declared) return {};
  const formats = { [VERSION_FILES_FORMAT_LABEL]: formatsLabel(declared) };
  // A Dockerfile that bakes its version files where it likes (a RUN, a COPY of a build's output)
  // has no version layer: the files label would claim its last layer is one. A release from the
  // rc then re-writes them in a new top layer, found by the formats label.
  const copiesVersionLayer = stages.some((stage) =>
    stage.instructions.some(
      (i) =>
        (i.keyword === 'COPY' || i.keyword === 'ADD') &&
        /(?:^|\s)\.?\/?version-layer(?:\/|\s|$)/.test(i.args),
    ),
  );
  if (!copiesVersionLayer) return formats;
  const files = [
    ...(artifact.role === 'api' ? [`/app/${DEFAULT_CLI_ARCHIVE.docker}`] : []),
    ...declared.map((f) => f.path),
  ];
  return { [VERSION_LAYER_FILES_LABEL]: files.join(','), ...formats };
}

function versionLayerContextFiles(
  artifact: ImageArtifactConfig,
  contextDir: string,
  epoch: number,
): { path: string; source: string; mtime: number }[] {
  if (artifact.versionFiles)
    return stagedVersionLayerFiles(
      contextDir,
      epoch,
      artifact.versionFiles.map((f) => f.path.slice(1)),
    );
  return artifact.role === 'web'
    ? stagedVersionLayerFiles(contextDir, epoch, ['app/web/version.json', 'app/web/index.html'])
    : [];
}

function engineOf(ctx: BuildContext): Engine {
  const choice = ctx.engine!;
  if (choice.name === 'docker') {
    return createDockerEngine({
      docker: choice.docker!,
      builder: choice.builder!,
      open: ctx.open,
      env: ctx.env,
      epoch: ctx.epoch!,
    });
  }
  return createOciEngine({ open: ctx.open, epoch: ctx.epoch! });
}

/** `…/version.json` and the `index.html` in the same folder, when the recipe has them. */
function webVersionFiles(entries: readonly LayerEntry[]): string[] {
  const json = entries.find((e) => e.type === 'file' && e.path.endsWith('/version.json'));
  if (!json) return [];
  const html = `${json.path.slice(0, -'version.json'.length)}index.html`;
  return entries.some((e) => e.path === html) ? [html, json.path] : [json.path];
}

/**
 * Version files (a web client's version.json and index.html under the context's `app/`, or the
 * declared ones), also staged under `version-layer/`: a Dockerfile that copies that folder last puts them in a layer of their own
 * above the code, the version layer a full release re-stamps (templates/docker/web.Dockerfile).
 * These copies are one second newer than the rest of the context: were they identical to the
 * code layer's copies (content, mode, size and time), the engine's differ (vfs, or any that
 * compares metadata) would find nothing changed, the COPY would make an empty layer, which Docker
 * leaves out of the image, and the code layer would become the last one.
 */
function stagedVersionLayerFiles(
  contextDir: string,
  epoch: number,
  paths: readonly string[],
): { path: string; source: string; mtime: number }[] {
  return paths
    .filter((path) => existsSync(join(contextDir, path)))
    .map((path) => ({ path: `version-layer/${path}`, source: join(contextDir, path), mtime: epoch + 1 }));
}

function cliContextFiles(path: string, cli: NonNullable<BuiltCli>): { path: string; source: string }[] {
  const archive = { path, source: cli.path };
  return cli.signature ? [archive, { path: `${path}${SIGNATURE_SUFFIX}`, source: cli.signature }] : [archive];
}
