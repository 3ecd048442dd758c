import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ImageArtifactConfig } from '../config/artifacts-schema.ts';
import { dockerfileOf } from './check-artifacts.ts';
import {
  BASE_IMAGE_ARG,
  configuredBaseArg,
  type DockerfileFindings,
  dockerfileFindings,
} from './dockerfile-findings.ts';
import { type ParsedDockerfile, parseDockerfile } from './dockerfile-stages.ts';

/** Read far enough for any Dockerfile a person writes; a larger file is refused, not read whole. */
const MAX_DOCKERFILE_BYTES = 4 * 1024 * 1024;

export interface ArtifactDockerfile {
  /** The path as the config gives it (relative to the config's folder). */
  path: string;
  text: string;
  parsed: ParsedDockerfile;
  findings: DockerfileFindings;
}

/**
 * An artifact's Dockerfile read and its target's needs found, with the build args the build
 * passes (the artifact's, the version's, BASE_IMAGE as the configured base). Undefined when the
 * artifact has no Dockerfile or it cannot be read (checkArtifacts says why).
 */
export function readArtifactDockerfile(
  configDir: string,
  artifact: ImageArtifactConfig,
  versionArgs: Record<string, string>,
  versionNames: readonly string[],
): ArtifactDockerfile | undefined {
  const path = dockerfileOf(artifact);
  if (!path) return undefined;
  let text: string;
  try {
    const bytes = readFileSync(resolve(configDir, path));
    if (bytes.length > MAX_DOCKERFILE_BYTES) return undefined;
    text = bytes.toString('utf8');
  } catch {
    return undefined;
  }
  const parsed = parseDockerfile(text);
  const findings = dockerfileFindings(parsed, {
    target: artifact.target,
    buildArgs: {
      // A Dockerfile that defaults BASE_IMAGE itself keeps its own base (buildArgs may still set it).
      ...(configuredBaseArg(parsed) ? { [BASE_IMAGE_ARG]: artifact.base } : {}),
      ...(artifact.buildArgs ?? {}),
      ...versionArgs,
    },
    versionNames,
    platform: artifact.platforms?.[0] ?? machinePlatform(),
  });
  return { path, text, parsed, findings };
}

/** This machine's platform as BuildKit names it (`linux/amd64`): what a build without `platforms` targets. */
function machinePlatform(): string {
  const arch = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm/v7',
    ppc64: 'ppc64le',
    s390x: 's390x',
    riscv64: 'riscv64',
  }[process.arch as string];
  return `linux/${arch ?? process.arch}`;
}
