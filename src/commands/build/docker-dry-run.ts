import { existsSync } from 'node:fs';
import { readArtifactDockerfile } from '../../build/artifact-dockerfile.ts';
import { fixedPlatform } from '../../build/dockerfile-findings.ts';
import { imageVersionVariables, versionBuildArgs } from '../../build/image-specs.ts';
import { cacheUnsupported } from '../../build-engines/docker/builder-cache.ts';
import { type DockerBuilder, findDockerBuilder } from '../../build-engines/docker/docker-builder.ts';
import { imageReachable, type Reachability } from '../../build-engines/docker/image-reachable.ts';
import { storeOpener } from '../../build-engines/store-cache.ts';
import type { ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import { connectDocker, type DockerClient, dockerAnswers } from '../../docker-client/connect.ts';
import { headStatus } from '../../http/head-status.ts';
import { goArch } from '../../oci-image/base-image-reader.ts';
import type { BaseContext } from '../../pipeline/context.ts';

/** What the dry run found for the docker engine: said per artifact, refusals and warnings apart. */
export interface DockerDryRun {
  /** The builder line (`docker 20.10.24 (its own BuildKit), /usr/bin/docker`), or why there is none. */
  builder: string;
  /** Per artifact: what its Dockerfile needs and where its bases are. */
  details: Record<string, string[]>;
  problems: string[];
  warnings: string[];
}

/** qemu's name for each Go architecture: binfmt_misc registers `qemu-<name>`. */
const QEMU: Record<string, string> = {
  amd64: 'x86_64',
  arm64: 'aarch64',
  arm: 'arm',
  ppc64le: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
  386: 'i386',
};

/**
 * The docker engine's side of `release build --dry-run`: each Dockerfile read (dockerfile-findings.ts)
 * for the BuildKit features it needs, its bases (in the engine, in their registry, or not to be
 * had), whether a version variable reaches it, its platforms and secrets; and the builder the
 * build would use. A Docker engine is asked when one answers; without one, a base its registry
 * cannot be asked about is a warning, not a refusal.
 */
export async function dockerDryRun(
  base: BaseContext,
  images: readonly ImageArtifactConfig[],
): Promise<DockerDryRun> {
  const problems: string[] = [];
  const warnings: string[] = [];
  const details: Record<string, string[]> = {};
  let builder: DockerBuilder | undefined;
  let builderLine: string;
  try {
    builder = await findDockerBuilder(base.env);
    builderLine = `${builder.description}, ${builder.cli}`;
  } catch (error) {
    builderLine = (error as Error).message;
    problems.push(
      `${(error as Error).message.replace(/\n\s*/g, '; ')} (the legacy builder cannot build what Dockerfiles use today)`,
    );
  }
  const docker = await engineIfAnswering(base.env);
  const open = storeOpener({ cwd: base.configDir, env: base.env, insecure: base.config.insecureRegistries });
  const reachCache = new Map<string, Promise<Reachability>>();
  const reach = (image: string) => {
    const found = reachCache.get(image) ?? imageReachable(image, { docker, open });
    reachCache.set(image, found);
    return found;
  };
  const native = goArch(process.arch);

  for (const artifact of images) {
    if (!artifact.context) continue;
    const at = `artifacts.${artifact.name}`;
    const versionArgs = versionBuildArgs(base.config, 'VERSION');
    const names = [
      ...new Set([...Object.keys(versionArgs), ...imageVersionVariables(base.config, artifact)]),
    ];
    const dockerfile = readArtifactDockerfile(base.configDir, artifact, versionArgs, names);
    if (!dockerfile?.findings.stage) continue; // the file or the target: checked and said elsewhere
    const { findings, parsed } = dockerfile;
    const lines: string[] = [];
    details[artifact.name] = lines;
    lines.push(
      findings.features.length
        ? `needs BuildKit for: ${findings.features.join(', ')}`
        : 'uses nothing only BuildKit reads',
    );
    if (parsed.syntax) {
      const frontend = await reach(parsed.syntax);
      if (frontend.where === 'missing' || frontend.where === 'unknown') {
        const heredoc = findings.features.includes('heredoc');
        const text = `${at}: ${dockerfile.path}: # syntax=${parsed.syntax} cannot be fetched (${frontend.reason}); the engine's own Dockerfile frontend will read it`;
        if (heredoc && builder?.kind === 'buildkit')
          problems.push(`${text}, and that of a docker CLI before 23 reads no heredocs`);
        else warnings.push(text);
      }
    }
    for (const from of findings.unresolved)
      problems.push(
        `${at}: ${dockerfile.path} line ${from.line}: FROM ${from.from} names a build arg with no value (give it in ${at}.buildArgs or an ARG default)`,
      );
    for (const b of findings.bases) {
      const found = await reach(b.image);
      const where = `base ${b.image} (stage ${b.stage}, line ${b.line})`;
      if (found.where === 'engine' || found.where === 'registry') {
        lines.push(`${where}: in the ${found.where === 'engine' ? 'Docker engine' : 'registry'}`);
        continue;
      }
      const reason = 'reason' in found ? found.reason : '';
      const text = `${at}: ${where}: ${docker ? 'not in the Docker engine, and ' : ''}${reason}`;
      if (found.where === 'missing' || docker) problems.push(text);
      else warnings.push(`${text} (not checked in an engine: none answered)`);
    }
    for (const download of findings.downloads) {
      const where = `${dockerfile.path} line ${download.line}: ADD ${download.url}`;
      lines.push(
        `downloads while building: ${download.url} (ADD, stage ${download.stage}, line ${download.line})`,
      );
      if (download.url.includes('$')) continue; // a stage ARG: its value is the build's
      const answer = await fetchable(download.url);
      if (answer.problem)
        problems.push(`${at}: ${where}: ${answer.problem}; BuildKit fetches it while building`);
      else if (answer.warning) warnings.push(`${at}: ${where}: ${answer.warning}`);
    }
    if (findings.usesBaseImage) lines.push(`the configured base ${artifact.base} (FROM \${BASE_IMAGE})`);
    if (findings.versionArgs.length)
      lines.push(`version build args it reads: ${findings.versionArgs.join(', ')}`);
    else
      warnings.push(
        `${at}: ${dockerfile.path} declares no ARG of a version variable (${names.join(', ')}) in a stage of its target: nothing it builds can bake the version (the image env still carries it)`,
      );
    for (const platform of artifact.platforms ?? []) {
      const arch = platform.split('/')[1] ?? '';
      if (arch === native) continue;
      if (findings.runsOnTarget.length && !emulates(arch))
        problems.push(
          `${at}.platforms: ${platform}: stage ${findings.runsOnTarget.join(', ')} RUN commands for ${arch}, and this machine cannot run ${arch} programs (no binfmt_misc qemu-${QEMU[arch] ?? arch}); build those stages FROM --platform=$BUILDPLATFORM, or register the emulator`,
        );
      const targetBases = findings.bases.filter(
        (x) => !/^\$\{?BUILDPLATFORM\}?$/.test(x.platform ?? '') && !fixedPlatform(x.platform),
      );
      for (const image of new Set(targetBases.map((b) => b.image))) {
        if ((await reach(image)).where !== 'registry')
          problems.push(
            `${at}.platforms: ${platform}: the base ${image} must be fetched for ${arch} (an engine keeps one platform per name), and its registry cannot give it`,
          );
      }
    }
    for (const run of findings.runsOnFixed) {
      const arch = run.platform.split('/')[1] ?? '';
      if (arch !== native && !emulates(arch))
        problems.push(
          `${at}: stage ${run.stage} RUN commands for ${run.platform} (its FROM --platform), and this machine cannot run ${arch} programs (no binfmt_misc qemu-${QEMU[arch] ?? arch})`,
        );
    }
    if ((artifact.platforms?.length ?? 0) > 1)
      lines.push(
        builder?.kind === 'buildx'
          ? `platforms ${artifact.platforms!.join(', ')}: one build per platform, joined in one index`
          : `platforms ${artifact.platforms!.join(', ')}: one BuildKit build per platform (the docker CLI's own BuildKit builds one at a time), joined in one index`,
      );
    const configured = new Set((artifact.secrets ?? []).map((s) => s.id));
    for (const id of findings.secretIds)
      if (!configured.has(id))
        warnings.push(
          `${at}: ${dockerfile.path} mounts the secret "${id}", which ${at}.secrets does not give: the step sees no file`,
        );
    for (const secret of artifact.secrets ?? [])
      if (secret.env && !base.env[secret.env]?.length)
        problems.push(`${at}.secrets: "${secret.id}" comes from ${secret.env}, which is not set`);
    if (builder)
      for (const text of cacheUnsupported(builder.kind, artifact.cache))
        problems.push(`${at}.${text} (${builderLine})`);
  }
  return { builder: builderLine, details, problems, warnings };
}

async function engineIfAnswering(env: Record<string, string | undefined>): Promise<DockerClient | undefined> {
  try {
    const docker = connectDocker(env);
    return (await dockerAnswers(docker, 2_000)) ? docker : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this machine can fetch what an ADD downloads: a HEAD, 6 s; no redirect followed. */
async function fetchable(url: string): Promise<{ problem?: string; warning?: string }> {
  try {
    const status = await headStatus(url, 6_000);
    if (status === 404 || status === 410) return { problem: `answers ${status}: there is no such file` };
    // Some servers refuse HEAD (405, 403 on signed URLs) and still serve a GET: said, not refused.
    if (status >= 400) return { warning: `answers ${status} to a HEAD; the build's GET may still be served` };
    return {};
  } catch (error) {
    return { problem: `cannot be fetched from here (${(error as Error).message})` };
  }
}

function emulates(arch: string): boolean {
  const name = QEMU[arch];
  return name !== undefined && existsSync(`/proc/sys/fs/binfmt_misc/qemu-${name}`);
}
