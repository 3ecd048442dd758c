import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkArtifacts, dockerfileOf } from '../../build/check-artifacts.ts';
import type { EngineName } from '../../build-engines/engine.ts';
import { readOwnVersion } from '../../cli-version/read-own-version.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import type { CliArtifactConfig, ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import { checkOwnMinimum } from '../../config/own-minimum.ts';
import { isReleaseError } from '../../errors.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import { printJson, printLine } from '../output.ts';
import { invalid } from './build-check-artifacts-step.ts';
import { dockerDryRun } from './docker-dry-run.ts';

const ENGINES: readonly EngineName[] = ['docker', 'oci'];

export interface EngineVerdict {
  engine: EngineName;
  /** Every reason this engine cannot build the selection as configured; empty: it can. */
  problems: string[];
  /** What it would build, one line per artifact. */
  builds: Record<string, string>;
  /** docker: the builder, what each Dockerfile needs and where its bases are. */
  builder?: string;
  details?: Record<string, string[]>;
  /** What would build but deserves a look (a Dockerfile that reads no version). */
  warnings?: string[];
}

/**
 * `release build --dry-run`: the config and the inputs checked for each engine (or the one
 * `--engine` names), and what each would build, without building or writing anything, without a
 * release record and without a Docker engine. Fails (exit 2) when no engine checked can build it.
 */
export async function runBuildDryRun(
  base: BaseContext,
  images: readonly ImageArtifactConfig[],
  only: ReadonlySet<string>,
  requested: EngineName | undefined,
): Promise<void> {
  const cli = cliArtifact(base.config);
  const cliSelected = cli && (only.has(cli.name) || images.some((a) => a.role === 'api')) ? cli : undefined;
  const verdicts = (requested ? [requested] : ENGINES).map((engine) =>
    verdict(base.configDir, engine, images, cliSelected, Boolean(cli && only.has(cli.name))),
  );
  const docker = verdicts.find((v) => v.engine === 'docker');
  if (docker && images.some((a) => a.context)) {
    // The Dockerfiles themselves: features, bases, version args, platforms, secrets, the builder.
    const found = await dockerDryRun(base, images);
    docker.builder = found.builder;
    docker.details = found.details;
    docker.problems.push(...found.problems);
    docker.warnings = found.warnings;
  }
  const own = cliSelected ? await ownLine(base, cliSelected) : undefined;
  for (const v of verdicts) {
    if (own?.problem) v.problems.push(own.problem);
    else if (own?.line && v.builds[cliSelected!.name]) v.builds[cliSelected!.name] += `; ${own.line}`;
  }
  const commands = [...images, ...(cliSelected ? [cliSelected] : [])]
    .filter((a) => a.build)
    .map((a) => ({ artifact: a.name, command: a.build!.command }));
  const usable = verdicts.filter((v) => v.problems.length === 0).map((v) => v.engine);
  if (base.json) {
    printJson({
      dryRun: true,
      usable,
      engines: verdicts,
      commands,
      cli: cliSelected?.build
        ? {
            command: cliSelected.build.command,
            archive: cliSelected.build.archive,
            ...(own?.version ? { version: own.version } : {}),
          }
        : null,
    });
  } else {
    for (const c of commands) printLine(`would run for ${c.artifact}: ${c.command.join(' ')}`);
    for (const v of verdicts) {
      printLine(`${v.engine}: ${v.problems.length ? 'cannot build it as configured' : 'would build'}`);
      if (v.builder) printLine(`  builder: ${v.builder.split('\n')[0]}`);
      for (const [name, what] of Object.entries(v.builds)) {
        printLine(`  ${name}: ${what}`);
        for (const line of v.details?.[name] ?? []) printLine(`    ${line}`);
      }
      for (const problem of v.problems) printLine(`  ! ${problem}`);
      for (const warning of v.warnings ?? []) printLine(`  warning: ${warning}`);
    }
    printLine(
      `nothing was built or written${usable.length ? `; ready for --engine ${usable.join(' or --engine ')}` : ''}`,
    );
  }
  if (usable.length === 0) {
    const error = invalid(verdicts.flatMap((v) => v.problems.map((p) => `${v.engine}: ${p}`)));
    error.reported = base.json;
    throw error;
  }
}

function verdict(
  projectDir: string,
  engine: EngineName,
  images: readonly ImageArtifactConfig[],
  cli: CliArtifactConfig | undefined,
  cliRequested: boolean,
): EngineVerdict {
  const problems = checkArtifacts({ projectDir, engine, images, cli, cliRequested, stage: 'before' });
  const builds: Record<string, string> = {};
  for (const artifact of images) {
    const at = `artifacts.${artifact.name}`;
    if (engine === 'docker' && artifact.context) {
      const dockerfile = dockerfileOf(artifact)!;
      builds[artifact.name] =
        `${artifact.image} from ${dockerfile} (context ${artifact.context}${artifact.target ? `, target ${artifact.target}` : ''})`;
      if (artifact.target) {
        const text = readText(join(projectDir, dockerfile));
        const stages = [...(text ?? '').matchAll(/^\s*FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1]);
        if (text !== undefined && !stages.includes(artifact.target))
          problems.push(
            `${at}.target: ${dockerfile} has no stage "${artifact.target}" (it has ${stages.join(', ') || 'none'})`,
          );
      }
    } else if (engine === 'oci' && artifact.files && artifact.entrypoint) {
      builds[artifact.name] =
        `${artifact.image} on ${artifact.base}: ${artifact.files.map((f) => `${f.from} -> ${f.to}`).join(', ')}; runs ${[...artifact.entrypoint, ...(artifact.cmd ?? [])].join(' ')}`;
    }
  }
  if (cli?.build)
    builds[cli.name] = `${cli.package}: ${cli.build.archive} from ${cli.build.command.join(' ')}`;
  return { engine, problems, builds };
}

/**
 * A CLI on its own line whose config names where its version is declared: read now, as the build
 * would, and held to the API's minimum, so the dry run never says ready for a CLI whose version
 * cannot be read or that its API would block.
 */
async function ownLine(
  base: BaseContext,
  cli: CliArtifactConfig,
): Promise<{ version?: string; line?: string; problem?: string } | undefined> {
  if (cli.version !== 'own' || !cli.own) return undefined;
  try {
    const own = await readOwnVersion(cli.own, { cwd: base.configDir, env: base.env });
    checkOwnMinimum(own.version, base.config, `build its CLI ${own.version}`);
    return { version: own.version, line: `its own version line: ${own.version} (${own.from})` };
  } catch (error) {
    if (!isReleaseError(error)) throw error;
    return { problem: `artifacts.${cli.name}.version: ${error.message}` };
  }
}

function readText(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
