import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EngineName } from '../build-engines/engine.ts';
import type { CliArtifactConfig, ImageArtifactConfig } from '../config/artifacts-schema.ts';
import { insideProject, within } from '../files/project-path.ts';

export interface ArtifactCheck {
  /** The config's folder: every path is relative to it and must stay in it. */
  projectDir: string;
  /** The engine the images are built with; undefined when not known yet (or no image is built). */
  engine: EngineName | undefined;
  images: readonly ImageArtifactConfig[];
  /** The CLI, when its archive is built in this run. */
  cli: CliArtifactConfig | undefined;
  /** The CLI was asked for by name (`--only cli`), so it must say how it is built. */
  cliRequested: boolean;
  /**
   * `before` the build commands run, a path is only required to exist when no build command of
   * its artifact could make it; `after` they ran, every path must exist.
   */
  stage: 'before' | 'after';
}

/** The Dockerfile an artifact is built from: `dockerfile`, else `Dockerfile` in its context. */
export function dockerfileOf(artifact: ImageArtifactConfig): string | undefined {
  return artifact.dockerfile ?? (artifact.context ? `${artifact.context}/Dockerfile` : undefined);
}

/**
 * Every reason the selected artifacts cannot be built as configured, as `path: message`: no
 * recipe for the chosen engine, a path that leaves the project, a Dockerfile, context or file
 * that is not there. Pure but for reading the file system.
 */
export function checkArtifacts(check: ArtifactCheck): string[] {
  const problems: string[] = [];
  for (const artifact of check.images) {
    const at = `artifacts.${artifact.name}`;
    const mustExist = check.stage === 'after' || !artifact.build;
    const path = (key: string, value: string, kind: 'file' | 'folder' | 'any', engine: EngineName) => {
      const full = insideProject(check.projectDir, value);
      if (!full) problems.push(`${at}.${key}: "${value}" is outside the project (${check.projectDir})`);
      else if (mustExist && check.engine === engine) {
        const found = kindOf(full);
        if (!found || (kind !== 'any' && found !== kind))
          problems.push(
            `${at}.${key}: ${kind === 'any' ? '' : `the ${kind} `}"${value}" does not exist${artifact.build && check.stage === 'after' ? ' (its build command did not make it)' : ''}`,
          );
      }
    };
    // Paths leave the project under neither engine; they must exist only for the one that builds.
    if (artifact.context) path('context', artifact.context, 'folder', 'docker');
    if (artifact.context || artifact.dockerfile)
      path(artifact.dockerfile ? 'dockerfile' : 'context', dockerfileOf(artifact) ?? '', 'file', 'docker');
    artifact.files?.forEach((file, i) => {
      path(`files.${i}.from`, file.from, 'any', 'oci');
    });
    if (check.engine === 'docker') {
      if (!artifact.context)
        problems.push(`${at}: nothing says how the docker engine builds it: give context (and dockerfile)`);
      // A path in the build context as Docker sees it, not on this machine: path arithmetic only.
      if (artifact.cliArchive !== undefined && !within('/context', resolve('/context', artifact.cliArchive)))
        problems.push(`${at}.cliArchive: with the docker engine, a path inside the build context`);
    } else if (check.engine === 'oci') {
      if (!artifact.files || !artifact.entrypoint)
        problems.push(
          `${at}: nothing says how the daemonless engine builds it: give files [{ from, to }] and entrypoint`,
        );
      if (artifact.cliArchive !== undefined && !artifact.cliArchive.startsWith('/'))
        problems.push(`${at}.cliArchive: with the oci engine, an absolute path in the image`);
    }
  }
  const cli = check.cli;
  if (cli) {
    const at = `artifacts.${cli.name}`;
    if (!cli.build) {
      if (check.cliRequested)
        problems.push(`${at}.build: nothing says how the CLI is built: give build.command and build.archive`);
    } else if (!insideProject(check.projectDir, cli.build.archive)) {
      problems.push(
        `${at}.build.archive: "${cli.build.archive}" is outside the project (${check.projectDir})`,
      );
    }
  }
  return problems;
}

function kindOf(path: string): 'file' | 'folder' | undefined {
  try {
    const info = statSync(path);
    return info.isDirectory() ? 'folder' : info.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}
