import type { CliArtifactConfig } from '../config/artifacts-schema.ts';
import { RuleError, UsageError } from '../errors.ts';
import { archiveFiles } from './archive-files.ts';
import { chooseStrategy, type StrategyChoice } from './choose-strategy.ts';
import { compareRebuild, type RebuildComparison } from './compare-rebuild.ts';
import { rebuildFromRc } from './rebuild-from-rc.ts';
import { type VersionFile, versionFileOf } from './version-files.ts';
import { carriesVersion } from './version-strings.ts';

/** How the release's CLI archive was made from the rc's, for the output, `--json` and the signature. */
export interface CliReversion extends StrategyChoice {
  /** rebuild: what differs from the rc and why (names and version strings only, else refused). */
  comparison?: RebuildComparison;
  /** rebuild: the release's archive; keep: the rc's; in-place: undefined (package.json re-written). */
  bytes?: Buffer;
}

/** An npm package keeps its version in package.json, which a release re-writes in place. */
const NPM_MANIFEST = 'package/package.json';

/**
 * The release's CLI archive from the rc's (found in the rc's API image): the strategy the CLI
 * declares, else the default its files imply (choose-strategy.ts). For `rebuild`, the build
 * command runs again on the rc's commit with the release's version, and the result must be the
 * rc's archive modulo version strings, file by file and name by name; anything else is refused
 * (exit 1) before any write, naming the files.
 */
export async function reversionCliArchive(input: {
  cli: CliArtifactConfig | undefined;
  projectDir: string;
  rcTag: string;
  version: string;
  rcArchive: Buffer;
  env: Record<string, string | undefined>;
  progress: (line: string) => void;
  /** Re-writes an npm archive's package.json and these files (cli-package/restamp-archive.ts). */
  restampNpm: (archive: Buffer, version: string, files: readonly VersionFile[]) => Promise<Buffer>;
}): Promise<CliReversion> {
  const rcFiles = await archiveFiles(input.rcArchive, `the rc's CLI archive`);
  const declared = (input.cli?.versionFiles ?? []).map(versionFileOf);
  const carrying = [...rcFiles]
    .filter(([path, bytes]) => carriesVersion(`${path}\n${bytes.toString('latin1')}`, input.rcTag))
    .map(([path]) => path);
  const choice = chooseStrategy({
    kind: 'cli',
    // A CLI on its own version line is not the service's version: its rc archive is the release's.
    declared: input.cli?.version === 'own' ? 'keep' : input.cli?.reversion,
    builtByCommand: input.cli?.build !== undefined,
    carryingVersion: carrying,
    inPlace: rcFiles.has(NPM_MANIFEST) ? [NPM_MANIFEST, ...declared.map((f) => `package/${f.path}`)] : [],
  });
  if (choice.strategy === 'keep') return { ...choice, bytes: input.rcArchive };
  if (choice.strategy === 'in-place')
    // Declared version files are re-written with package.json; without any, the default re-stamp.
    return declared.length
      ? { ...choice, bytes: await input.restampNpm(input.rcArchive, input.version, declared) }
      : choice;
  const build = input.cli?.build;
  if (!build)
    throw new UsageError(
      'REBUILD_WITHOUT_COMMAND',
      'artifacts.cli declares reversion "rebuild" and has no build command',
      {
        hint: 'give artifacts.cli.build a command and its archive, or declare reversion "in-place" or "keep"',
      },
    );
  const rebuilt = await rebuildFromRc({
    projectDir: input.projectDir,
    rcTag: input.rcTag,
    version: input.version,
    at: 'artifacts.cli.build.command',
    command: build.command,
    setup: build.setup,
    outputs: [build.archive],
    env: input.env,
    progress: input.progress,
  });
  const bytes = rebuilt.get(build.archive)!;
  const comparison = compareRebuild(
    rcFiles,
    await archiveFiles(bytes, 'the rebuilt CLI archive'),
    input.rcTag,
    input.version,
  );
  if (!comparison.equal) {
    const shown = comparison.code.slice(0, 8).map((d) => `${d.path} (${d.reason})`);
    const more = comparison.code.length > 8 ? ` and ${comparison.code.length - 8} more` : '';
    throw new RuleError(
      'REBUILD_NOT_THE_RC',
      `the CLI rebuilt from ${input.rcTag}'s commit as ${input.version} is not the rc's code: ${shown.join(', ')}${more}`,
      {
        hint: `nothing was written; the build must be reproducible, differing only in version strings (${input.rcTag}, its SemVer and PEP 440 forms). Cut a new rc, or declare artifacts.cli.reversion "keep"`,
      },
    );
  }
  return { ...choice, comparison, bytes };
}
