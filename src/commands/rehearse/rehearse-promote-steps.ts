import { imageOfRole } from '../../config/artifacts.ts';
import { IMAGE_ROLES } from '../../config/constants.ts';
import { RuleError } from '../../errors.ts';
import { hasVersionLayer, VERSION_LABEL } from '../../oci-image/version-layer.ts';
import type { Step } from '../../pipeline/step.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import type { ImageStore } from '../../registry/store.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { releaseJson } from './release-json.ts';
import { gitTag } from './workspace.ts';

interface PromoteJson {
  plan: { artifacts: { artifact: string; source: string; writes: { reference: string }[] }[] };
}

/** `release promote --channel dev`: `dev` and `sha-<commit>` for every image. */
export const rehearsePromoteDevStep: Step<RehearseContext> = {
  title: 'Promote to dev',
  async run(ctx) {
    const { json } = await releaseJson<PromoteJson>(['promote', '--channel', 'dev'], {
      cwd: ctx.repo!,
      env: ctx.releaseEnv!,
    });
    ctx.notes[this.title] = `${countWrites(json)} tags written (dev, sha-<commit>)`;
  },
};

/** `release promote --channel rc` (signed); `latest` must not exist afterwards. */
export const rehearsePromoteRcStep: Step<RehearseContext> = {
  title: 'Promote the release candidate (signed), leaving latest alone',
  async run(ctx) {
    const { json } = await releaseJson<PromoteJson>(['promote', '--channel', 'rc'], {
      cwd: ctx.repo!,
      env: ctx.releaseEnv!,
    });
    ctx.rcDigests = Object.fromEntries(json.plan.artifacts.map((a) => [a.artifact, a.source]));
    const latest = await latestDigests(ctx);
    const moved = Object.entries(latest).filter(([, digest]) => digest !== undefined);
    if (moved.length > 0) {
      throw new RuleError(
        'REHEARSAL_RC_MOVED_LATEST',
        `the rc promotion moved latest of ${moved.map(([a]) => a).join(', ')}`,
      );
    }
    ctx.notes[this.title] =
      `${REHEARSAL.rcTag} tagged and signed for ${IMAGE_ROLES.join(', ')}; latest: absent, untouched`;
  },
};

/**
 * Tag the release, then promote from the rc: each image re-stamped as `vX.Y.Z` (its own tag inside)
 * with the rc's code layers unchanged, tagged `vX.Y.Z` and `latest`; no rebuild.
 */
export const rehearsePromoteReleaseStep: Step<RehearseContext> = {
  title: 'Release the rc as the full release (re-stamped, same code layers)',
  async run(ctx) {
    await gitTag(ctx.repo!, REHEARSAL.releaseTag);
    await releaseJson(
      ['promote', '--channel', 'release', '--from', REHEARSAL.rcTag, '--version', REHEARSAL.releaseTag],
      {
        cwd: ctx.repo!,
        env: ctx.releaseEnv!,
      },
    );
    const latest = await latestDigests(ctx);
    const store = openConfiguredStore({ config: ctx.config, configDir: ctx.repo!, env: ctx.releaseEnv! });
    const layers: string[] = [];
    for (const artifact of IMAGE_ROLES) {
      const repository = imageOfRole(ctx.config, artifact);
      const release = await store.resolve(repository, REHEARSAL.releaseTag);
      if (!release || latest[artifact] !== release.digest || release.digest === ctx.rcDigests![artifact]) {
        throw new RuleError(
          'REHEARSAL_RELEASE_DIGEST',
          `${artifact}: ${REHEARSAL.releaseTag} is ${release?.digest ?? 'absent'}, latest ${latest[artifact] ?? 'absent'}; expected one new digest re-stamped from the rc's ${ctx.rcDigests![artifact]}`,
        );
      }
      const compared = await compareWithRc(store, repository, ctx.rcDigests![artifact]!, release.digest);
      if (compared.version !== REHEARSAL.releaseTag || !compared.codeEqual) {
        throw new RuleError(
          'REHEARSAL_RELEASE_NOT_RESTAMPED',
          `${artifact}: the release image reports ${compared.version ?? 'no version'} and its code layers ${compared.codeEqual ? 'equal' : 'DIFFER from'} the rc's`,
        );
      }
      layers.push(
        `${artifact} ${compared.codeLayers} equal${compared.versionLayer ? ' + version layer' : ''}`,
      );
    }
    ctx.notes[this.title] =
      `${REHEARSAL.releaseTag} and latest re-stamped from the signed rc, reporting ${REHEARSAL.releaseTag}; code layers: ${layers.join(', ')}; release signed, bound to the rc`;
  },
};

/** The release image's version label and whether its code layers are the rc's (by digest). */
async function compareWithRc(store: ImageStore, repository: string, rcDigest: string, releaseDigest: string) {
  const read = async (digest: string) => {
    const manifest = await store.getManifest(repository, digest);
    const json = JSON.parse(Buffer.from(manifest!.bytes).toString('utf8')) as {
      config: { digest: string };
      layers: { digest: string }[];
    };
    const config = JSON.parse(
      Buffer.from(await store.getBlob(repository, json.config.digest)).toString('utf8'),
    ) as {
      config?: { Labels?: Record<string, string> };
    };
    const labels = config.config?.Labels ?? {};
    const layers = json.layers.map((l) => l.digest);
    const withVersionLayer = hasVersionLayer(labels, layers);
    return { labels, code: withVersionLayer ? layers.slice(0, -1) : layers, withVersionLayer };
  };
  const [rc, release] = await Promise.all([read(rcDigest), read(releaseDigest)]);
  return {
    version: release.labels[VERSION_LABEL],
    codeEqual: rc.code.length === release.code.length && rc.code.every((d, i) => d === release.code[i]),
    codeLayers: release.code.length,
    versionLayer: release.withVersionLayer,
  };
}

async function latestDigests(ctx: RehearseContext): Promise<Record<string, string | undefined>> {
  const store = openConfiguredStore({ config: ctx.config, configDir: ctx.repo!, env: ctx.releaseEnv! });
  const entries = await Promise.all(
    IMAGE_ROLES.map(async (artifact) => {
      const descriptor = await store.resolve(imageOfRole(ctx.config, artifact), 'latest');
      return [artifact, descriptor?.digest] as const;
    }),
  );
  return Object.fromEntries(entries);
}

function countWrites(json: PromoteJson): number {
  return json.plan.artifacts.reduce((n, a) => n + a.writes.length, 0);
}
