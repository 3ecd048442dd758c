import { buildEpoch } from '../../build/image-specs.ts';
import { makeBaseImage } from '../../build-engines/base-image.ts';
import { storeOpener } from '../../build-engines/store-cache.ts';
import { builtImageArtifacts } from '../../config/artifacts.ts';
import { UsageError } from '../../errors.ts';
import { userCacheDir } from '../../files/user-cache-dir.ts';
import { parseStoreImageRef } from '../../registry/image-ref.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';

/** `release base-image`: the node base, written to each reference (the configured bases by default). */
export async function runBaseImage(options: GlobalOptions & { ref?: string[] }) {
  const ctx = await baseContext(options);
  const texts = options.ref?.length
    ? options.ref
    : [...new Set(builtImageArtifacts(ctx.config).map((artifact) => artifact.base))];
  const refs = texts.map(parseStoreImageRef);
  for (const ref of refs) {
    if (ref.reference.startsWith('sha256:')) {
      throw new UsageError('BASE_REF_IS_DIGEST', `${ref.text} names a digest; a new image needs a tag`, {
        hint: 'give a tag, e.g. oci-layout:.release/base/node:20',
      });
    }
  }
  const open = storeOpener({ cwd: ctx.configDir, env: ctx.env, insecure: ctx.config.insecureRegistries });
  const epoch = buildEpoch(ctx.env, null);
  const written = [];
  for (const ref of refs) {
    const made = await makeBaseImage({
      store: open(ref.store),
      repository: ref.repository,
      tags: [ref.reference],
      epoch,
      cacheDir: userCacheDir(ctx.env),
    });
    written.push({ reference: ref.text, digest: made.digest, node: made.nodeVersion, files: made.files });
  }
  if (ctx.json) printJson({ images: written });
  else
    for (const image of written)
      printLine(`${image.reference}@${image.digest}  node ${image.node}, ${image.files.length} files`);
}
