import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dockerfileOf } from '../../build/check-artifacts.ts';
import { dockerContext } from '../../build/docker-context.ts';
import { imageLabels, type LabelInput, recipeSpec, versionVariable } from '../../build/image-specs.ts';
import { recipeEntries } from '../../build/recipe-entries.ts';
import { DEFAULT_CLI_ARCHIVE, type ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import { MIN_CLI_LABEL, ownMinimum } from '../../config/own-minimum.ts';
import { createDockerEngine } from '../../engine/docker/docker-engine.ts';
import type { DockerRecipe, Engine, OciRecipe } from '../../engine/engine.ts';
import type { LayerEntry } from '../../engine/oci/layer.ts';
import { createOciEngine } from '../../engine/oci/oci-engine.ts';
import type { Step } from '../../pipeline/step.ts';
import { parseStoreImageRef } from '../../registry/image-ref.ts';
import { SIGNATURE_SUFFIX } from '../../shared/archive-signature.ts';
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
      ctx.built[artifact.name] = await engine.build(
        {
          artifact: artifact.name,
          ...(engine.name === 'oci'
            ? { oci: await ociRecipe(ctx, artifact, labels, cli) }
            : { docker: await dockerRecipe(ctx, artifact, labels, cli) }),
          base: parseStoreImageRef(artifact.base),
          registry: ctx.config.registry,
          repository: artifact.image,
          // Never the version: only promotion writes channel tags, so a rebuild moves none.
          tag: ctx.buildTag!,
          push: ctx.push,
        },
        (line) => io.progress(`${artifact.name}: ${line}`),
      );
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
  const spec = recipeSpec(artifact, labels);
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
  // A web client's version.json and the index.html beside it carry its version (the bundle reads
  // the <meta> at run time): they become the version layer a release re-stamps.
  if (artifact.role === 'web') spec.versionFiles = webVersionFiles(layers[0]!);
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
  const context = await dockerContext({
    contextDir,
    dockerfile: resolve(ctx.configDir, dockerfileOf(artifact)!),
    extra: [
      ...(cli ? cliContextFiles(artifact.cliArchive ?? DEFAULT_CLI_ARCHIVE.docker, cli) : []),
      ...(artifact.role === 'web' ? webVersionLayerFiles(contextDir, ctx.epoch!) : []),
    ],
    epoch: ctx.epoch!,
  });
  return {
    context: context.tar,
    dockerfile: context.dockerfile,
    ...(artifact.target ? { target: artifact.target } : {}),
    buildArgs: { ...(artifact.buildArgs ?? {}), [versionVariable(artifact)]: ctx.tag! },
    labels: imageLabels(labels),
  };
}

function engineOf(ctx: BuildContext): Engine {
  const choice = ctx.engine!;
  if (choice.name === 'docker') {
    return createDockerEngine({ docker: choice.docker!, open: ctx.open, env: ctx.env, epoch: ctx.epoch! });
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
 * A web client's version.json and index.html (under the context's `app/`), also staged under
 * `version-layer/`: a Dockerfile that copies that folder last puts them in a layer of their own
 * above the code, the version layer a full release re-stamps (templates/docker/web.Dockerfile).
 * These copies are one second newer than the rest of the context: were they identical to the
 * code layer's copies (content, mode, size and time), the engine's differ (vfs, or any that
 * compares metadata) would find nothing changed, the COPY would make an empty layer, which Docker
 * leaves out of the image, and the code layer would become the last one.
 */
function webVersionLayerFiles(
  contextDir: string,
  epoch: number,
): { path: string; source: string; mtime: number }[] {
  return ['app/web/version.json', 'app/web/index.html']
    .filter((path) => existsSync(join(contextDir, path)))
    .map((path) => ({ path: `version-layer/${path}`, source: join(contextDir, path), mtime: epoch + 1 }));
}

function cliContextFiles(path: string, cli: NonNullable<BuiltCli>): { path: string; source: string }[] {
  const archive = { path, source: cli.path };
  return cli.signature ? [archive, { path: `${path}${SIGNATURE_SUFFIX}`, source: cli.signature }] : [archive];
}
