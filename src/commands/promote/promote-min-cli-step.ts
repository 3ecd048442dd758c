import { readOwnVersion } from '../../cli-version/read-own-version.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import { checkOwnMinimum, noOwnMinimum, ownMinimum } from '../../config/own-minimum.ts';
import type { Step } from '../../pipeline/step.ts';
import { cliRecord } from '../../record/release-record.ts';
import { sameTag } from '../../version/compare.ts';
import type { PromoteContext } from './promote-context.ts';

/** The CLI of the promoted version must not be below the min_cli_version its own API serves. */
export const promoteMinCliStep: Step<PromoteContext> = {
  title: "Check the CLI against its own API's minimum",
  skip: (ctx) => noOwnMinimum(ctx.config),
  async run(ctx, io) {
    const cli = await ownLineVersion(ctx);
    if (cli === null) {
      io.progress('the CLI keeps its own version line, not built here: its package is checked when planned');
      return;
    }
    const version = cli ?? ctx.version!;
    checkOwnMinimum(version, ctx.config, `promote ${ctx.version} to ${ctx.channel} with its CLI ${version}`);
    io.progress(`${version} is not below ${ownMinimum(ctx.config)!.min}`);
  },
};

/**
 * A CLI on its own version line: the version its build recorded (null when the record has none,
 * a release from an rc made without a build); undefined on the service's line.
 */
async function ownLineVersion(ctx: PromoteContext): Promise<string | null | undefined> {
  const cli = cliArtifact(ctx.config);
  if (cli?.version !== 'own') return undefined;
  const recorded = ctx.record ? cliRecord(ctx.record) : undefined;
  if (recorded?.version && recorded.version !== 'unknown' && sameTag(ctx.record!.tag, ctx.version!))
    return recorded.version;
  // Not built here (a release from an rc): the version the checkout declares, where the config
  // names the place; an npm CLI's package is checked when its publish is planned.
  return cli.own ? (await readOwnVersion(cli.own, { cwd: ctx.configDir, env: ctx.env })).version : null;
}
