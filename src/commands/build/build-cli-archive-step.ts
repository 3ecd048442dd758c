import { createHash, type KeyObject } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SIGNATURE_SUFFIX, signArchive, signatureFileText } from '../../archives/archive-signature.ts';
import { codeFiles } from '../../build/archive-code-files.ts';
import { buildCommandEnv, runBuildCommand } from '../../build/run-build-command.ts';
import { readOwnVersion } from '../../cli-version/read-own-version.ts';
import { fileVersion, sameOwnVersion } from '../../cli-version/version-scheme.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import { checkOwnMinimum } from '../../config/own-minimum.ts';
import { UsageError } from '../../errors.ts';
import { writeFileAtomically } from '../../files/atomic-write.ts';
import type { Step } from '../../pipeline/step.ts';
import { archiveFiles } from '../../reversion/archive-files.ts';
import { hasSigningKey, readPublicKey, readSigningKey } from '../../signing/key-files.ts';
import { PASSPHRASE_ENV, shortKeyId } from '../../signing/keys.ts';
import { invalid } from './build-check-artifacts-step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * The CLI archive, in any language: the CLI's build command runs (no shell, in the project,
 * SERVICE_VERSION set, and the project's install command for the gate), and the archive it
 * names must be one it wrote; its SHA-256 and size are recorded. The api image serves it.
 * With `signing.publicKey` configured and its private key at hand, the command gets the key as
 * SERVICE_CLI_PUBLIC_KEY (the reference svc bakes it in, and its `svc update` then installs only
 * archives signed by it) and the archive is signed into `<archive>.sig`.
 */
export const buildCliArchiveStep: Step<BuildContext> = {
  title: 'Build the CLI archive',
  writes: true,
  skip(ctx) {
    const cli = cliArtifact(ctx.config);
    if (!cli) return 'no CLI artifact';
    if (!ctx.only.has(cli.name) && !imagesToBuild(ctx).some((a) => a.role === 'api'))
      return 'not selected (--only)';
    return cli.build ? false : `artifacts.${cli.name} has no build command`;
  },
  async run(ctx, io) {
    const cli = cliArtifact(ctx.config)!;
    const { command } = cli.build!;
    // Its own version line, declared in a pyproject, a file or a command: read before anything is
    // built, so a CLI its own API would block is refused with nothing written.
    const own =
      cli.version === 'own' && cli.own
        ? await readOwnVersion(cli.own, { cwd: ctx.configDir, env: ctx.env })
        : undefined;
    if (own) {
      checkOwnMinimum(own.version, ctx.config, `build ${ctx.tag} with its CLI ${own.version}`);
      io.progress(`${cli.name} keeps its own version line: ${own.version} (${own.from})`);
    }
    const archive = archiveName(
      cli.build!.archive,
      cli.name,
      own ? fileVersion(own.scheme, own.version) : cli.version === 'own' ? undefined : ctx.tag!,
    );
    const path = resolve(ctx.configDir, archive);
    const signing = await archiveSigning(ctx);
    const before = await stat(path).catch(() => undefined);
    await ctx.timer.time(cli.name, 'build command', () =>
      runBuildCommand({
        at: `artifacts.${cli.name}.build.command`,
        command,
        cwd: ctx.configDir,
        env: buildCommandEnv(ctx.env, ctx.tag!, {
          SERVICE_CLI_INSTALL_COMMAND: cli.installCommand,
          ...(own ? { SERVICE_CLI_VERSION: own.version } : {}),
          ...(signing ? { SERVICE_CLI_PUBLIC_KEY: signing.publicKeyPem } : {}),
        }),
        progress: (line) => io.progress(line),
      }),
    );
    const after = await stat(path).catch(() => undefined);
    const unchanged =
      before &&
      after &&
      before.ino === after.ino &&
      before.mtimeMs === after.mtimeMs &&
      before.size === after.size;
    if (!after?.isFile() || unchanged) {
      throw invalid([
        `artifacts.${cli.name}.build.archive: the command did not ${after ? 'write' : 'produce'} "${archive}"`,
      ]);
    }
    const bytes = await readFile(path);
    if (/\.(?:tar\.gz|tgz)$/.test(archive)) {
      // A package of metadata only (a guessed sdist of the wrong folder) installs nothing to run.
      const files = [...(await archiveFiles(bytes, archive)).keys()];
      if (!codeFiles(files).length)
        throw invalid([
          `artifacts.${cli.name}.build.archive: "${archive}" holds no code files (${files.slice(0, 5).join(', ') || 'nothing'}): the build command packaged nothing to run`,
        ]);
    }
    ctx.cli = { path, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    if (own) {
      // What the build packed must say the version the project declares, where it says one.
      const packed = await packedVersion(bytes, archive);
      if (packed && !sameOwnVersion(own.scheme, packed.version, own.version))
        throw new UsageError(
          'CLI_VERSION_MISMATCH',
          `artifacts.${cli.name}: the archive ${archive} says version ${packed.version} (${packed.from}), but ${own.from} declares ${own.version}`,
          {
            hint: `build the CLI from the version it declares, or point artifacts.${cli.name}.version.own at the place its build reads`,
          },
        );
      ctx.cli.version = own.version;
    } else if (cli.version === 'own') {
      // Its own version line: the version its package declares, held to its API's minimum.
      ctx.cli.version = await declaredVersion(bytes, archive);
      checkOwnMinimum(ctx.cli.version, ctx.config, `build ${ctx.tag} with its CLI ${ctx.cli.version}`);
      io.progress(`${cli.name} keeps its own version line: ${ctx.cli.version}`);
    }
    // A signature of an older archive must never stay beside a new one.
    const signaturePath = `${path}${SIGNATURE_SUFFIX}`;
    if (signing) {
      await ctx.timer.time(cli.name, 'sign', () =>
        writeFileAtomically(signaturePath, signatureFileText(signArchive(bytes, signing.privateKey))),
      );
      ctx.cli.signature = signaturePath;
    } else await rm(signaturePath, { force: true });
    io.progress(
      `${archive} sha256 ${ctx.cli.sha256.slice(0, 12)}${signing ? `, signed (${archive}.sig)` : ''}`,
    );
  },
};

/**
 * The version a CLI on its own line declares: its npm package's `version` (package.json in the
 * archive). An archive that is no npm package has none to read: refused, naming the fix.
 */
async function declaredVersion(bytes: Buffer, archive: string): Promise<string> {
  const manifest = await archiveFiles(bytes, archive)
    .then((files) => files.get('package/package.json'))
    .catch(() => undefined);
  let version: unknown;
  try {
    version = manifest ? (JSON.parse(manifest.toString('utf8')) as { version?: unknown }).version : undefined;
  } catch {
    version = undefined;
  }
  if (typeof version === 'string' && version.trim() !== '') return version.trim();
  throw invalid([
    `artifacts.cli.version: "own" reads the version the CLI's package declares, and "${archive}" has no package/package.json with a version; for a CLI of another kind name where its version is declared: version: { own: { pyproject: "…" } }, { own: { file: "…" } } or { own: { command: [ … ] } }`,
  ]);
}

/**
 * The archive's path, `{version}` read as the CLI's version (its own declared one, or the
 * service's tag on the service's line). An npm CLI on its own line without a declared source
 * has no version before its build: `{version}` is refused there.
 */
function archiveName(archive: string, name: string, version: string | undefined): string {
  if (!archive.includes('{version}')) return archive;
  if (version === undefined)
    throw invalid([
      `artifacts.${name}.build.archive: "{version}" needs the CLI's version before it is built: name where it is declared (version: { own: { pyproject | file | command } })`,
    ]);
  return archive.replaceAll('{version}', version);
}

/**
 * The version a built archive carries in its own metadata, where it has some: a Python sdist's
 * `<name>-<version>/PKG-INFO`, an npm package's package.json. Undefined for an archive without
 * (a Go or Rust binary's tarball) or one that is not a gzipped tar (a wheel is a zip).
 */
async function packedVersion(
  bytes: Buffer,
  archive: string,
): Promise<{ version: string; from: string } | undefined> {
  if (!/\.(?:tar\.gz|tgz)$/.test(archive)) return undefined;
  const files = await archiveFiles(bytes, archive).catch(() => undefined);
  if (!files) return undefined;
  for (const [path, content] of files) {
    if (!/^[^/]+\/PKG-INFO$/.test(path)) continue;
    const m = /^Version:[ \t]*(\S+)[ \t]*$/m.exec(content.toString('utf8'));
    if (m) return { version: m[1]!, from: path };
  }
  const manifest = files.get('package/package.json');
  if (!manifest) return undefined;
  try {
    const version = (JSON.parse(manifest.toString('utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? { version, from: 'package/package.json' } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether this build signs its CLI archive: only when signing.publicKey is configured and the
 * matching private key can be used here. Baking the key is tied to signing, so an svc never
 * carries a key its own API's archive is not signed with. A build without the private key (a CI
 * job without the signing secrets, a key made after the first build) still builds, unsigned, and
 * says so: signing is a property of the release, and a missing secret must not stop a dev build.
 * A private key that is given but unusable (wrong passphrase, another key) is an error.
 */
async function archiveSigning(
  ctx: BuildContext,
): Promise<{ publicKeyPem: string; privateKey: KeyObject } | undefined> {
  if (!ctx.config.signing?.publicKey) return undefined;
  const unsigned = (why: string) => {
    ctx.warnings.push(
      `the CLI archive is not signed (${why}): this svc bakes no key, so its \`svc update\` checks only the checksum`,
    );
    return undefined;
  };
  const publicKey = await readPublicKey(ctx).catch((error: Error) => error);
  if (publicKey instanceof Error) return unsigned(publicKey.message);
  if (!publicKey) return undefined;
  if (!hasSigningKey(ctx))
    return unsigned(
      `no private key: set RELEASE_SIGNING_KEY and RELEASE_SIGNING_PASSPHRASE, or signing.privateKey, to sign it with key ${shortKeyId(publicKey.keyId)}`,
    );
  if (!ctx.env[PASSPHRASE_ENV]) return unsigned(`${PASSPHRASE_ENV} is not set`);
  const key = await readSigningKey(ctx);
  return { publicKeyPem: publicKey.pem, privateKey: key.privateKey };
}
