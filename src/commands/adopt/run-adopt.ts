import { relative } from 'node:path';
import { describe } from '../../adopt/map-adopted.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import { recordPath } from '../../record/release-record.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { AdoptContext } from './adopt-context.ts';
import { adoptedOrigin } from './adopt-origin.ts';
import { adoptPipeline } from './adopt-pipeline.ts';

export interface AdoptFlags extends GlobalOptions {
  key?: string;
}

export async function runAdopt(inputs: string[], flags: AdoptFlags): Promise<void> {
  const base = await baseContext(flags);
  const ctx: AdoptContext = {
    ...base,
    inputs,
    recordPath: recordPath(base.configDir, base.config.record),
    store: openConfiguredStore(base),
    ...(flags.key ? { keyPath: flags.key } : {}),
    checked: {},
  };
  await runPipeline(adoptPipeline, ctx, ctx);
  const placed = ctx.placed ?? [];
  const left = Object.values(ctx.config.artifacts)
    .filter(
      (a) => a.kind === 'image' && a.roleOf === undefined && !placed.some((p) => p.artifact.name === a.name),
    )
    .map((a) => a.name);
  if (left.length)
    ctx.warnings.push(
      `${left.join(', ')} ${left.length === 1 ? 'was' : 'were'} not handed over: promote needs a digest for every image (release build --only, or adopt them too)`,
    );
  if (ctx.json) {
    printJson({
      dryRun: ctx.dryRun,
      tag: ctx.tag ?? null,
      buildTag: ctx.buildTag ?? null,
      store: ctx.store.name,
      images: Object.fromEntries(
        placed.map((p) => [
          p.artifact.name,
          {
            repository: `${ctx.config.registry}/${p.artifact.image}`,
            digest: p.source.image.digest,
            mediaType: ctx.checked[p.artifact.name]?.mediaType ?? null,
            platforms: ctx.checked[p.artifact.name]?.platforms ?? [],
            matchedBy: p.matchedBy,
            from: adoptedOrigin(p.source),
          },
        ]),
      ),
      record: relative(ctx.cwd, ctx.recordPath),
      evidence: ctx.evidence ? { ...ctx.evidence, dir: relative(ctx.cwd, ctx.evidence.dir) } : null,
      warnings: ctx.warnings,
    });
  } else {
    printLine(
      `${ctx.dryRun ? 'would adopt' : 'adopted'} as ${ctx.tag}${ctx.buildTag ? ` (tagged ${ctx.buildTag})` : ''} in ${ctx.store.name}`,
    );
    for (const p of placed) {
      const checked = ctx.checked[p.artifact.name];
      const shape = checked?.platforms.length ? `index: ${checked.platforms.join(', ')}` : 'image';
      printLine(
        `  ${p.artifact.name}: ${p.artifact.image}@${p.source.image.digest}  ${shape}, from ${describe(p.source).split(': sha256')[0]} by ${p.matchedBy}`,
      );
    }
    if (!ctx.dryRun) printLine(`record: ${relative(ctx.cwd, ctx.recordPath)}`);
    if (ctx.evidence)
      printLine(
        `evidence: provenance ${ctx.evidence.signed ? 'signed, attached to the images' : `unsigned (${ctx.evidence.reason})`}; no SBOM (built elsewhere)`,
      );
  }
  for (const text of ctx.warnings) warn(text);
}
