import { builtImageArtifacts } from '../../config/artifacts.ts';
import { UsageError } from '../../errors.ts';
import { runAs, setSize } from '../../mirror/mirror-set.ts';
import { mirrorVersionTag } from '../../mirror/mirror-version.ts';
import { type MirrorStore, openMirrorStore } from '../../mirror/open-mirror-store.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import { spelledTagIn } from '../../registry/spelled-tag.ts';
import { readPublicKey } from '../../signing/key-files.ts';
import { shortKeyId } from '../../signing/keys.ts';
import { readVerifierPublicKey } from '../../signing/verifier-key.ts';
import type { GlobalOptions } from '../command-context.ts';
import { baseContext } from '../command-context.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { MirrorContext } from './mirror-context.ts';
import { mirrorPipeline } from './mirror-steps.ts';

export interface MirrorFlags extends GlobalOptions {
  version: string;
  from?: string;
  to: string;
  latest?: boolean;
  strictReferrers?: boolean;
}

export async function runMirror(flags: MirrorFlags): Promise<void> {
  const version = mirrorVersionTag(flags.version);
  const base = await baseContext(flags);
  const trusted = await readPublicKey(base);
  if (!trusted)
    throw new UsageError(
      'MIRROR_NO_PUBLIC_KEY',
      'release mirror checks the release with signing.publicKey, and the config has none',
      {
        hint: 'set signing.publicKey to the .pub file of the key that signs releases',
      },
    );
  const verifier = await readVerifierPublicKey(base);
  const options = { cwd: base.configDir, env: base.env, insecure: base.config.insecureRegistries };
  const opened: MirrorStore[] = [];
  try {
    const from = await openMirrorStore(flags.from ?? base.config.registry, 'source', options);
    opened.push(from);
    const to = await openMirrorStore(flags.to, 'target', options);
    opened.push(to);
    // `--version v2026.7.0` of a project tagging `2026.7.0` carries `2026.7.0`, as the source spells it.
    const first = builtImageArtifacts(base.config)[0];
    const spelled = first ? await spelledTagIn(from.store, first.image, version) : version;
    const ctx: MirrorContext = {
      ...base,
      version: spelled,
      latest: Boolean(flags.latest),
      strictReferrers: Boolean(flags.strictReferrers),
      from: from.store,
      to: to.store,
      trusted,
      ...(verifier ? { verifier } : {}),
      ...(to.finish ? { finish: to.finish } : {}),
    };
    await runPipeline(mirrorPipeline, ctx, { json: ctx.json, env: ctx.env, dryRun: ctx.dryRun });
    report(ctx);
  } finally {
    for (const store of opened) await store.close();
  }
}

function report(ctx: MirrorContext): void {
  const set = ctx.set!;
  if (ctx.json) {
    printJson({
      version: ctx.version,
      from: ctx.from.name,
      to: ctx.to.name,
      keyId: ctx.trusted.keyId,
      dryRun: ctx.dryRun,
      images: set.images,
      manifests: set.manifests.map((m) => ({
        repository: m.repository,
        digest: m.digest,
        mediaType: m.mediaType,
        role: m.role,
        size: m.bytes.length,
        ...(m.subject ? { subject: m.subject } : {}),
      })),
      blobs: set.blobs,
      dropped: set.dropped,
      bytes: setSize(set),
      tags: ctx.tags ?? [],
      ...(ctx.latestKept ? { latestKept: ctx.latestKept } : {}),
      ...(ctx.counts ? { written: ctx.counts } : {}),
      ...(ctx.archive ? { archive: ctx.archive } : {}),
      warnings: ctx.warnings,
    });
  } else {
    printLine(
      `${ctx.dryRun ? 'would mirror' : 'mirrored'} ${ctx.version} from ${ctx.from.name} to ${ctx.to.name} (checked with key ${shortKeyId(ctx.trusted.keyId)})`,
    );
    for (const image of set.images) {
      printLine(
        `  ${image.repository}:${image.tag} ${image.digest}${image.roles ? ` (${runAs(image)})` : ''}`,
      );
      for (const child of image.children) printLine(`    ${child}`);
    }
    printLine(`  ${set.manifests.length} manifests, ${set.blobs.length} blobs, ${setSize(set)} bytes`);
    if (ctx.counts)
      printLine(
        `  copied ${ctx.counts.blobs.copied} blob(s) and ${ctx.counts.manifests.copied} manifest(s), ${ctx.counts.blobs.present} blob(s) already there; ${ctx.counts.tags} tag(s) written`,
      );
    if (ctx.latestKept) printLine(`  latest not moved: ${ctx.latestKept}`);
    if (ctx.archive)
      printLine(`  archive ${ctx.archive.file}: sha256 ${ctx.archive.sha256}, ${ctx.archive.size} bytes`);
  }
  for (const text of ctx.warnings) warn(text);
}
