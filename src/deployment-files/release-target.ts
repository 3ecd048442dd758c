import { existsSync } from 'node:fs';
import { imageArtifacts } from '../config/artifacts.ts';
import { clientVersionVariables, serverVersionVariables } from '../config/version-variables.ts';
import { UsageError } from '../errors.ts';
import { projectPath } from '../files/project-path.ts';
import type { ReleaseImage, ReleaseTarget } from '../gitops/gitops-types.ts';
import type { BaseContext } from '../pipeline/context.ts';
import { imageRecord, type ReleaseRecord, readReleaseRecord, recordPath } from '../record/release-record.ts';
import { sameTag } from '../version/compare.ts';
import { imageTagOf } from '../version/image-tag.ts';
import { parseVersion } from '../version/parse.ts';
import type { ManifestSource } from './read-manifests.ts';

/**
 * The release as the manifests should carry it: `--version` (else the record's tag), every image
 * artifact of the config grouped by image (roles of one image placed together), and from the
 * record, when it is of this tag, each image's repository and digest.
 */
export async function releaseTarget(
  base: BaseContext,
  flags: { version?: string | undefined; pinDigest?: boolean | undefined },
  mode: ReleaseTarget['mode'],
): Promise<{ target: ReleaseTarget; from: string }> {
  const path = recordPath(base.configDir, base.config.record);
  const record = flags.version === undefined || existsSync(path) ? await readReleaseRecord(path) : undefined;
  const tag = flags.version === undefined ? record!.tag : checkedTag(flags.version);
  const ofTag = record && sameTag(record.tag, tag) ? record : undefined;
  const byImage = new Map<string, ReleaseImage>();
  // A role's default the config never declared is not deployed by anyone's manifests.
  for (const artifact of imageArtifacts(base.config).filter((a) => !a.implicit)) {
    const image = byImage.get(artifact.image) ?? { artifacts: [], image: artifact.image };
    image.artifacts.push(artifact.name);
    if (artifact.command) image.commands = { ...image.commands, [artifact.name]: artifact.command };
    const entry = ofTag ? imageRecord(ofTag, artifact.name) : undefined;
    if (entry) image.repository = entry.repository.replace(/^oci-layout:.*\//, '');
    const digest = ofTag ? digestOf(ofTag, artifact.name) : undefined;
    if (digest) image.digest = digest;
    byImage.set(artifact.image, image);
  }
  if (flags.pinDigest && !ofTag)
    throw new UsageError('BUMP_PIN_WITHOUT_RECORD', `--pin-digest needs the release record of ${tag}`, {
      hint: 'run bump where `release promote` wrote the record, or leave --pin-digest out',
    });
  return {
    target: {
      tag,
      images: [...byImage.values()],
      versionVariables: versionVariables(base.config),
      pinDigest: Boolean(flags.pinDigest),
      mode,
    },
    from: flags.version === undefined ? `the release record ${base.config.record}` : '--version',
  };
}

/**
 * `--manifests <dir>` (relative to the working directory), else the config's deploy.manifests.
 * Either must stay inside the project (the config's folder), links followed: bump writes there,
 * and a path from a repository must not make a CI job write outside its checkout (exit 2).
 */
export function manifestSources(base: BaseContext, flag: string | undefined): ManifestSource[] {
  const entries = base.config.deploy?.manifests;
  const configured = (entries ?? []).map((e, i) => {
    const path = typeof e === 'string' ? e : e.path;
    const full = projectPath(base.configDir, path, {
      setting: `deploy.manifests[${i}]${typeof e === 'string' ? '' : '.path'}`,
      code: 'MANIFESTS_OUTSIDE_PROJECT',
    });
    return typeof e === 'string' ? { path: full } : { path: full, keys: e.keys };
  });
  if (flag !== undefined) {
    // Keys the config declares for a file under --manifests still apply to it.
    const root = projectPath(base.configDir, flag, {
      setting: '--manifests',
      base: base.cwd,
      code: 'MANIFESTS_OUTSIDE_PROJECT',
    });
    const declared = configured.filter(
      (e): e is ManifestSource & { keys: Record<string, string> } =>
        e.keys !== undefined && (e.path === root || e.path.startsWith(`${root}/`)),
    );
    return [{ path: root }, ...declared];
  }
  if (!entries)
    throw new UsageError('MANIFESTS_NOT_CONFIGURED', 'which deployment files? none are configured', {
      hint: 'give --manifests <dir>, or set deploy.manifests in the config',
    });
  return configured;
}

/** The digest the release's tag names: the last promotion to it, else the build's. */
function digestOf(record: ReleaseRecord, name: string): string | undefined {
  const promoted = (record.promotions ?? []).filter((p) => sameTag(p.tag, record.tag) && p.artifacts[name]);
  return promoted.at(-1)?.artifacts[name]?.digest ?? imageRecord(record, name)?.digest;
}

/** The standard names and the service's own (`versionVariables`): every one is the release's tag. */
function versionVariables(config: BaseContext['config']): string[] {
  return [...new Set([...serverVersionVariables(config), ...clientVersionVariables(config)])];
}

function checkedTag(version: string): string {
  const parsed = parseVersion(version);
  if (parsed.kind === 'invalid' || parsed.kind === 'unknown')
    throw new UsageError('BUMP_BAD_VERSION', `--version "${version}" is not a version`, {
      hint: 'give the release to write, like --version v1.4.0',
    });
  return imageTagOf(parsed);
}
