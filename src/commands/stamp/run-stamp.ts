import { relative } from 'node:path';
import { runPipeline } from '../../pipeline/runner.ts';
import { stampFiles, stampOutputs, stampPaths } from '../../stamp/stamp-files.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { StampContext } from './stamp-context.ts';
import { stampPipeline } from './stamp-pipeline.ts';

export async function runStamp(
  options: GlobalOptions & { channel?: StampContext['requestedChannel']; envFile?: string },
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
  };
  await runPipeline(stampPipeline, ctx, ctx);
  const record = ctx.decision!.record;
  const files = stampFiles(record, ctx.paths).map((f) => relative(ctx.cwd, f.path) || f.path);
  if (ctx.json) {
    printJson({
      ...stampOutputs(record),
      dryRun: ctx.dryRun,
      files: ctx.dryRun ? [] : files,
      references: Object.fromEntries(
        (['api', 'worker', 'web'] as const).map((name) => [name, record.artifacts[name].references]),
      ),
      warnings: ctx.warnings,
    });
  } else {
    printLine(
      `${record.tag}  channel ${record.channel}  from ${record.source}${record.commit ? `  commit ${record.commit.slice(0, 12)}` : ''}${record.dirty ? '  (dirty)' : ''}`,
    );
    printLine(`${ctx.dryRun ? 'would write' : 'wrote'}: ${files.join(', ')}`);
    for (const name of ['api', 'worker', 'web'] as const)
      printLine(`  ${name}: ${record.artifacts[name].references.join(' ')}`);
  }
  for (const text of ctx.warnings) warn(text);
}
