import { relative } from 'node:path';
import type { RepoInfo } from '../../git/repo-info.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import type { ImageRecord, ReleaseRecord } from '../../record/release-record.ts';
import { stampFiles, stampOutputs, stampPaths } from '../../stamp/stamp-files.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { StampContext } from './stamp-context.ts';
import { stampPipeline } from './stamp-pipeline.ts';

export async function runStamp(
  options: GlobalOptions & { channel?: StampContext['requestedChannel']; envFile?: string },
  /** The repository read already under way for this project (`--cwd`), if the caller started it. */
  repoRead?: Promise<RepoInfo>,
) {
  const base = await baseContext(options);
  const ctx: StampContext = {
    ...base,
    paths: stampPaths({
      configDir: base.configDir,
      cwd: base.cwd,
      record: base.config.record,
      ...(options.envFile ? { envFile: options.envFile } : {}),
    }),
    ...(options.channel ? { requestedChannel: options.channel } : {}),
    ...(repoRead ? { repoRead } : {}),
  };
  await runPipeline(stampPipeline, ctx, ctx);
  const record = ctx.decision!.record;
  const files = stampFiles(record, ctx.paths, ctx.config).map((f) => relative(ctx.cwd, f.path) || f.path);
  if (ctx.json) {
    printJson({
      ...stampOutputs(record, ctx.config),
      dryRun: ctx.dryRun,
      files: ctx.dryRun ? [] : files,
      references: Object.fromEntries(imageEntries(record).map(([name, entry]) => [name, entry.references])),
      warnings: ctx.warnings,
    });
  } else {
    printLine(
      `${record.tag}  channel ${record.channel}  from ${record.source}${record.commit ? `  commit ${record.commit.slice(0, 12)}` : ''}${record.dirty ? '  (dirty)' : ''}`,
    );
    printLine(`${ctx.dryRun ? 'would write' : 'wrote'}: ${files.join(', ')}`);
    for (const [name, entry] of imageEntries(record)) printLine(`  ${name}: ${entry.references.join(' ')}`);
  }
  for (const text of ctx.warnings) warn(text);
}

function imageEntries(record: ReleaseRecord): [string, ImageRecord][] {
  return Object.entries(record.artifacts).flatMap(([name, entry]) =>
    'references' in entry ? [[name, entry] as [string, ImageRecord]] : [],
  );
}
