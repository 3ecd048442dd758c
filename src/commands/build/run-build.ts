import { relative } from 'node:path';
import { buildTiming, renderBuildTiming } from '../../build/build-timing.ts';
import type { EngineName } from '../../build-engines/engine.ts';
import { storeOpener } from '../../build-engines/store-cache.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import { UsageError } from '../../errors.ts';
import { rfc3339 } from '../../oci-image/image-config.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import type { StepReport } from '../../pipeline/step.ts';
import { createTimer } from '../../pipeline/timings.ts';
import { recordPath } from '../../record/release-record.ts';
import { artifactStrategies, imageReversion } from '../../reversion/artifact-strategies.ts';
import type { StrategyChoice } from '../../reversion/choose-strategy.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import { type BuildContext, imagesIn, imagesToBuild } from './build-context.ts';
import { buildPipeline } from './build-pipeline.ts';

export async function runBuild(
  options: GlobalOptions & { engine?: EngineName; push?: boolean; only?: string },
) {
  const base = await baseContext(options);
  // Without --only: what the config declares. A role it does not declare (a service without a
  // web client or a CLI) keeps its default name for stamp, promote and verify, with nothing to
  // build; `--only web` still asks for it, and is told what it lacks.
  const only =
    options.only === undefined
      ? new Set(
          Object.values(base.config.artifacts)
            .filter((a) => !a.implicit)
            .map((a) => a.name),
        )
      : parseOnly(options.only, Object.keys(base.config.artifacts));
  if (only.size === 0)
    throw new UsageError('BUILD_NOTHING_DECLARED', 'the config declares no artifact to build', {
      hint: 'declare each image under `artifacts` with how it is built (`release init` writes them from your Dockerfiles)',
    });
  if (base.dryRun) {
    // Needs no record, no engine and no store: a config just written by `release init` is checked as is.
    const { runBuildDryRun } = await import('./run-build-dry-run.ts');
    const images = imagesIn(base.config, only);
    return runBuildDryRun(base, images, only, options.engine);
  }
  const ctx: BuildContext = {
    ...base,
    ...(options.engine ? { requestedEngine: options.engine } : {}),
    push: Boolean(options.push),
    only,
    recordPath: recordPath(base.configDir, base.config.record),
    open: storeOpener({ cwd: base.configDir, env: base.env, insecure: base.config.insecureRegistries }),
    built: {},
    timer: createTimer(),
    reversions: {},
  };
  const started = performance.now();
  const reports: StepReport[] = [];
  await runPipeline(buildPipeline, ctx, { ...ctx, reports });
  const reversion = await reversionStrategies(ctx);
  const timing = buildTiming(reports, ctx.timer.timings, performance.now() - started, [
    ...Object.keys(ctx.config.artifacts),
  ]);
  const images = Object.fromEntries(
    // A dry run builds nothing: only what was built is listed.
    imagesToBuild(ctx).flatMap(({ name }) => {
      const built = ctx.built[name];
      if (!built) return [];
      return [
        [
          name,
          {
            reference: built.reference,
            digest: built.digest ?? null,
            ...(built.imageId ? { imageId: built.imageId } : {}),
            pushed: built.pushed,
            base: built.base,
          },
        ],
      ] as const;
    }),
  );
  const cli = ctx.cli && {
    archive: relative(ctx.cwd, ctx.cli.path),
    sha256: ctx.cli.sha256,
    size: ctx.cli.size,
    // The `.sig` beside the archive when the build signed it, else null (an unsigned build says why in warnings).
    signature: ctx.cli.signature ? relative(ctx.cwd, ctx.cli.signature) : null,
  };
  for (const artifact of imagesToBuild(ctx))
    if (reversion[artifact.name]?.strategy === 'rebuild' && ctx.engine?.name === 'docker')
      // The oci engine puts the baked files in the version layer; a Dockerfile decides its layers.
      ctx.warnings.push(
        `${artifact.name}: ${reversion[artifact.name]!.reason}, but with the docker engine a release does not rebuild an image from the rc's commit: with a version layer (the reference Dockerfiles) it re-writes the version env, labels and that layer's files only; without one, the files that carry the rc's version are rewritten in a new top layer`,
      );
  if (ctx.json) {
    printJson({
      version: ctx.record!.version,
      tag: ctx.tag,
      buildTag: ctx.buildTag ?? null,
      engine: ctx.engine?.name ?? null,
      engineReason: ctx.engine?.reason ?? null,
      push: ctx.push,
      created: ctx.epoch === undefined ? null : rfc3339(ctx.epoch),
      cli: cli ?? null,
      images,
      reversion,
      record: relative(ctx.cwd, ctx.recordPath),
      // SBOM and provenance: where they were written, signed and attached or not (and why).
      evidence: ctx.evidence ? { ...ctx.evidence, dir: relative(ctx.cwd, ctx.evidence.dir) } : null,
      // Where the time went: each step, and each artifact (and base image) by sub-step.
      timing,
      warnings: ctx.warnings,
    });
  } else {
    printLine(
      `${ctx.tag}${ctx.buildTag ? ` as ${ctx.buildTag}` : ''}  engine ${ctx.engine?.name ?? 'none'}${ctx.engine ? ` (${ctx.engine.reason})` : ''}`,
    );
    if (cli)
      printLine(
        `  cli: ${cli.archive}  sha256 ${cli.sha256}${cli.signature ? `  signed: ${cli.signature}` : ''}`,
      );
    for (const [name, image] of Object.entries(images)) {
      printLine(
        `  ${name}: ${image.reference}${image.digest ? `@${image.digest}` : image.imageId ? `  (image ${image.imageId.slice(0, 19)}, not pushed)` : ''}`,
      );
    }
    for (const [name, choice] of Object.entries(reversion))
      printLine(`  ${name}: a release from an rc ${STRATEGY_TEXT[choice.strategy]} (${choice.reason})`);
    printLine(`record: ${relative(ctx.cwd, ctx.recordPath)}`);
    if (ctx.evidence)
      printLine(
        `evidence: ${relative(ctx.cwd, ctx.evidence.dir)}  ${ctx.evidence.signed ? 'signed, attached to the images' : `unsigned (${ctx.evidence.reason})`}`,
      );
    for (const line of renderBuildTiming(timing)) printLine(line);
  }
  for (const text of ctx.warnings) warn(text);
}

/**
 * Which way a release made from an rc of this build gets its version, per artifact. An image's
 * was found by the images step when it made the recipe (reading every file the image takes for
 * the version): reused, not read again; the docker engine's recipe reads none, so it is found here.
 */
async function reversionStrategies(ctx: BuildContext): Promise<Record<string, StrategyChoice>> {
  const images: Record<string, StrategyChoice> = {};
  for (const artifact of imagesToBuild(ctx))
    images[artifact.name] = await ctx.timer.time(
      artifact.name,
      'reversion',
      async () =>
        (ctx.reversions[artifact.name] ?? (await imageReversion(ctx.configDir, artifact, ctx.tag!))).choice,
    );
  const cli = cliArtifact(ctx.config);
  if (!ctx.cli || !cli) return images;
  const archivePath = ctx.cli.path;
  const cliChoice = await ctx.timer.time(cli.name, 'reversion', () =>
    artifactStrategies({
      configDir: ctx.configDir,
      tag: ctx.tag!,
      images: [],
      cli: { config: cli, archivePath },
    }),
  );
  return { ...images, ...cliChoice };
}

const STRATEGY_TEXT = {
  'in-place': 're-writes its version in place',
  rebuild: "rebuilds it from the rc's commit",
  rewrite: "rewrites the rc's version strings in its baked files",
  keep: "keeps the rc's bytes",
} as const;

/** `--only api,web` -> the set; every artifact when absent. Unknown names are a usage error. */
export function parseOnly(value: string | undefined, artifacts: readonly string[]): ReadonlySet<string> {
  if (value === undefined) return new Set(artifacts);
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !artifacts.includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(
      'ONLY_INVALID',
      `--only ${JSON.stringify(value)}: ${unknown.length ? `unknown artifact ${unknown.join(', ')}` : 'nothing named'}`,
      {
        hint: `name one or more of ${artifacts.join(', ')}, comma-separated (--only api,web)`,
      },
    );
  }
  return new Set(names);
}
