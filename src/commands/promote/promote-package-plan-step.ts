import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type ArchiveEntry, readPackageArchive } from '../../archives/read-package-archive.ts';
import { npmClient, tarballDigest } from '../../cli-package/npm-client.ts';
import { planPackage } from '../../cli-package/package-plan.ts';
import { REGISTRY_MARK, restampCliArchive } from '../../cli-package/restamp-archive.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import { checkOwnMinimum } from '../../config/own-minimum.ts';
import { RuleError, UsageError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { cliRecord } from '../../record/release-record.ts';
import { versionFileOf } from '../../reversion/version-files.ts';
import { compareVersionStrings } from '../../version/compare.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { ownPackageVersion } from '../../version/own-cli-version.ts';
import { packageVersionOf } from '../../version/package-version.ts';
import { parseVersion } from '../../version/parse.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * `artifacts.cli.publish`: find the CLI tarball, read the package from the npm registry and plan
 * the publish and dist-tags (pure, cli-package/package-plan.ts). Every refusal happens here, before
 * any write: other bytes under a published version, a token the registry does not accept.
 *
 * The tarball is the build's archive (re-stamped when promoted under another version). A release
 * made `--from` an rc publishes the rc's published tarball re-stamped: the same svc.js as tested.
 */
export const promotePackagePlanStep: Step<PromoteContext> = {
  title: 'Plan the CLI package',
  skip: (ctx) => (cliArtifact(ctx.config)?.publish ? false : 'artifacts.cli.publish is off'),
  async run(ctx, io) {
    const name = cliArtifact(ctx.config)!.package;
    const notNpm = await notAnNpmArchive(ctx);
    if (notNpm) {
      // Said once, here: the API image still serves it re-versioned; no npm registry is touched.
      ctx.cliNotPublished = `the CLI archive is not an npm package (${notNpm}): it ships in the API image, re-versioned with each release, and is not published`;
      ctx.warnings.push(ctx.cliNotPublished);
      io.progress(ctx.cliNotPublished);
      return;
    }
    const npm = npmClient({ configDir: ctx.configDir, env: ctx.env });
    const registry = await npm.registry();
    const version = ctx.version!;
    const stage = await mkdtemp(join(tmpdir(), 'release-cli-package-'));
    const source = await sourceArchive(ctx, name, npm, stage).finally(() =>
      rm(stage, { recursive: true, force: true }),
    );
    // A CLI rebuilt from the rc's commit (proven the rc's code) is what the release publishes.
    const rebuilt = ctx.cliReversion?.strategy === 'rebuild' ? ctx.cliReversion.bytes : undefined;
    const { bytes, origin } = rebuilt
      ? { bytes: rebuilt, origin: `rebuilt from ${ctx.from}'s commit as ${version}` }
      : source;
    const baked = archiveVersions(bytes, name);
    if (cliArtifact(ctx.config)!.version === 'own') {
      await planOwnLine(ctx, { npm, registry, name, bytes, origin, declared: baked.npm }, io);
      return;
    }
    const wanted = bakedName(version);
    // Built as this promotion's version (the same npm version): published as built, plus the
    // registry mark. Built as another (a release from an rc): re-versioned, its code as tested.
    const same = baked.npm === packageVersionOf(version);
    const final = await restampCliArchive(
      bytes,
      same ? (baked.service ?? version) : wanted,
      REGISTRY_MARK,
      (cliArtifact(ctx.config)!.versionFiles ?? []).map(versionFileOf),
    );
    const digest = tarballDigest(final);
    const npmVersion = packageVersionOf(wanted);
    const state = await npm.readState(name, [npmVersion]);
    const plan = planPackage({
      channel: ctx.channel,
      version: wanted,
      dirty: ctx.dirty ?? false,
      tarball: digest,
      state,
    });
    if (plan.publish || plan.distTags.length) {
      // Prove the token now: a refusal must come before any image tag or package is written.
      if (!ctx.dryRun) await npm.whoami();
    }
    ctx.cliPackage = {
      npm,
      registry,
      plan,
      tarball: final,
      origin: same ? origin : `${origin}, re-stamped ${wanted}`,
      integrity: digest.integrity,
      moved: [],
      undone: [],
      notUndone: [],
    };
    io.progress(
      `${name}@${plan.version} on ${registry}: ${plan.publish ? 'publish' : 'already published'}, ${plan.distTags.map((w) => `${w.tag} -> ${w.to}`).join(', ') || 'no dist-tag moves'}`,
    );
  },
};

/**
 * A CLI on its own version line: published under the version its package declares, on the
 * service's channel (`0.31.3-rc.1` for the service's rc.1, `0.31.3` for its release; see
 * ownPackageVersion), never under the service's tag; held to its API's minimum as that version.
 */
async function planOwnLine(
  ctx: PromoteContext,
  source: {
    npm: ReturnType<typeof npmClient>;
    registry: string;
    name: string;
    bytes: Buffer;
    origin: string;
    declared: string;
  },
  io: { progress(text: string): void },
): Promise<void> {
  const { npm, registry, name, bytes, origin, declared } = source;
  const npmVersion = ownPackageVersion(declared, ctx.version!);
  if (npmVersion === undefined)
    throw new UsageError(
      'CLI_VERSION_INVALID',
      `the CLI's package declares version "${declared}", which has no X.Y.Z to keep its own line on`,
      { hint: 'give the package a semver version (0.31.3), or set artifacts.cli.version to "service"' },
    );
  checkOwnMinimum(npmVersion, ctx.config, `promote ${ctx.version} with its CLI ${npmVersion}`);
  const final = await restampCliArchive(
    bytes,
    npmVersion,
    REGISTRY_MARK,
    (cliArtifact(ctx.config)!.versionFiles ?? []).map(versionFileOf),
  );
  const digest = tarballDigest(final);
  const state = await npm.readState(name, [npmVersion]);
  const plan = planPackage({
    channel: ctx.channel,
    version: npmVersion,
    dirty: ctx.dirty ?? false,
    tarball: digest,
    state,
  });
  if ((plan.publish || plan.distTags.length) && !ctx.dryRun) await npm.whoami();
  ctx.cliPackage = {
    npm,
    registry,
    plan,
    tarball: final,
    origin:
      npmVersion === declared ? origin : `${origin}, versioned ${npmVersion} (its own line, ${declared})`,
    integrity: digest.integrity,
    moved: [],
    undone: [],
    notUndone: [],
  };
  io.progress(
    `${name}@${plan.version} (own version line) on ${registry}: ${plan.publish ? 'publish' : 'already published'}, ${plan.distTags.map((w) => `${w.tag} -> ${w.to}`).join(', ') || 'no dist-tag moves'}`,
  );
}

async function sourceArchive(
  ctx: PromoteContext,
  name: string,
  npm: ReturnType<typeof npmClient>,
  stage: string,
): Promise<{ bytes: Buffer; origin: string }> {
  const from = ctx.from ? parseVersion(ctx.from) : undefined;
  if (ctx.channel === 'release' && from?.kind === 'rc') {
    const rcVersion = await rcPackageVersion(ctx, name, npm);
    const state = await npm.readState(name);
    if (Object.hasOwn(state.versions, rcVersion)) {
      const file = await npm.download(name, rcVersion, stage);
      return { bytes: await readFile(file), origin: `${name}@${rcVersion} from the registry` };
    }
    ctx.warnings.push(
      `${name}@${rcVersion} is not in the registry: the CLI package is made from the release record's archive`,
    );
  }
  const archive = ctx.record ? cliRecord(ctx.record)?.archive : undefined;
  if (!archive)
    throw new UsageError(
      'CLI_ARCHIVE_MISSING',
      `the release record at ${ctx.recordPath} has no CLI archive to publish`,
      {
        hint: 'run `release build` (it builds the CLI archive and records it), or set artifacts.cli.publish to false',
      },
    );
  const path = resolve(ctx.cwd, archive);
  const bytes = await readFile(path).catch(() => {
    throw new UsageError(
      'CLI_ARCHIVE_MISSING',
      `the CLI archive ${path} named by the release record is missing`,
      {
        hint: 'run `release build` again',
      },
    );
  });
  return { bytes, origin: path };
}

/**
 * The npm version the rc's package was published under: the rc's tag on the service's line; on
 * the CLI's own line, the rc's number on the core of the package the record (or the registry's
 * `next`) names.
 */
async function rcPackageVersion(
  ctx: PromoteContext,
  name: string,
  npm: ReturnType<typeof npmClient>,
): Promise<string> {
  if (cliArtifact(ctx.config)!.version !== 'own') return packageVersionOf(ctx.from!);
  const state = await npm.readState(name);
  const rc = parseVersion(ctx.from!);
  const wanted = rc.kind === 'rc' ? `-rc.${rc.rc}` : '';
  // The rc of the same number whose core is the highest published: the rc this release comes from.
  const candidates = Object.keys(state.versions).filter(
    (v) => v.endsWith(wanted) && /^\d+\.\d+\.\d+-rc\.\d+$/.test(v),
  );
  const next = state.distTags['next'];
  if (next && candidates.includes(next)) return next;
  return candidates.sort(compareVersionStrings).at(-1) ?? `0.0.0${wanted}`;
}

/**
 * The archive's own versions, from its package.json: the npm `version` (any npm CLI has one) and,
 * for an svc built by this toolkit, the `serviceVersion` it prints.
 */
function archiveVersions(bytes: Buffer, name: string): { npm: string; service?: string } {
  let manifest: ArchiveEntry | undefined;
  try {
    manifest = readPackageArchive(bytes).find((e) => e.path === 'package.json');
  } catch (error) {
    throw notAnNpmPackage(`it is ${(error as Error).message}`);
  }
  let parsed: Record<string, unknown> = {};
  try {
    parsed = manifest ? (JSON.parse(manifest.content.toString('utf8')) as Record<string, unknown>) : {};
  } catch {
    throw notAnNpmPackage('its package.json is not JSON');
  }
  if (parsed['name'] !== name)
    throw new RuleError(
      'CLI_PACKAGE_NAME',
      `the CLI archive is the package ${JSON.stringify(parsed['name'])}, not ${name}`,
      {
        hint: 'set artifacts.cli.package to the name the archive carries',
      },
    );
  if (typeof parsed['version'] !== 'string') throw notAnNpmPackage('its package.json has no version');
  const service = parsed['serviceVersion'];
  return { npm: parsed['version'], ...(typeof service === 'string' ? { service } : {}) };
}

/** Why the release record's CLI archive is not an npm package, or undefined when it is one. */
async function notAnNpmArchive(ctx: PromoteContext): Promise<string | undefined> {
  const archive = ctx.record ? cliRecord(ctx.record)?.archive : undefined;
  if (!archive) return undefined;
  const bytes = await readFile(resolve(ctx.cwd, archive)).catch(() => undefined);
  if (!bytes) return undefined; // sourceArchive says it is missing
  try {
    const manifest = readPackageArchive(bytes).find((e) => e.path === 'package.json');
    return manifest ? undefined : 'it has no package/package.json';
  } catch (error) {
    return `it is ${(error as Error).message}`;
  }
}

function notAnNpmPackage(reason: string): UsageError {
  return new UsageError('CLI_ARCHIVE_INVALID', `the CLI archive is not an npm package: ${reason}`, {
    hint: 'artifacts.cli.publish publishes an npm package (an `npm pack` tarball); set it to false for a CLI of another registry',
  });
}

/** The version baked into svc: releases and rcs carry the image tag's `v`, like `release build`. */
function bakedName(version: string): string {
  return imageTagOf(parseVersion(version));
}
