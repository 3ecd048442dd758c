import { RuleError, UsageError } from '../../errors.ts';
import { readEvidence } from '../../evidence/attach-evidence.ts';
import { childDigests } from '../../evidence/release-images.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { readPublicKey } from '../../signing/key-files.ts';
import { targetsFromRef } from '../../signing/sign-targets.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';

export type SbomFlags = GlobalOptions;

interface Component {
  type: string;
  name: string;
  group?: string;
  version?: string;
  licenses?: { license?: { id?: string; name?: string }; expression?: string }[];
}

/**
 * `release sbom <image>`: the SBOM attached to an image (each platform's, for an index), read from
 * the configured store and shown only when its signature verifies under signing.publicKey.
 * `--json` prints the CycloneDX document itself (an array of them for an index).
 */
export async function runSbom(ref: string, flags: SbomFlags): Promise<void> {
  const base = await baseContext(flags);
  const trusted = await readPublicKey(base);
  if (!trusted) {
    throw new UsageError(
      'SBOM_NO_PUBLIC_KEY',
      'release sbom checks the SBOM against signing.publicKey, which is not set',
      {
        hint: 'set signing.publicKey to the .pub file of the release key',
      },
    );
  }
  const store = openConfiguredStore(base);
  const documents: { image: string; sbom: Record<string, unknown> }[] = [];
  for (const target of targetsFromRef(ref, base.config)) {
    const descriptor = await store.resolve(target.repository, target.reference);
    if (!descriptor) {
      throw new RuleError(
        'SBOM_IMAGE_MISSING',
        `${target.repository}:${target.reference} is not in ${store.name}`,
        {
          hint: 'name an image the store has (release build --push, or a promoted tag)',
        },
      );
    }
    const children = await childDigests(store, target.repository, descriptor.digest);
    for (const digest of [descriptor.digest, ...children]) {
      const entries = await readEvidence(store, trusted, {
        repository: target.repository,
        digest,
        kind: 'sbom',
      });
      const valid = entries.find((e) => e.status === 'valid');
      if (valid)
        documents.push({ image: `${target.repository}@${digest}`, sbom: valid.statement!.predicate });
      else if (digest === descriptor.digest && children.length === 0) {
        const why =
          entries
            .map((e) => e.reason)
            .filter(Boolean)
            .join('; ') || 'none is attached';
        throw new RuleError(
          'SBOM_MISSING',
          `${target.repository}@${digest} has no SBOM signed by signing.publicKey: ${why}`,
          {
            hint: 'build with the release key at hand: release build signs the SBOM and attaches it to the image',
          },
        );
      }
    }
  }
  if (documents.length === 0)
    throw new RuleError('SBOM_MISSING', `no SBOM signed by signing.publicKey is attached to ${ref}`);
  if (base.json) {
    printJson(documents.length === 1 ? documents[0]!.sbom : documents.map((d) => d.sbom));
    return;
  }
  for (const { image, sbom } of documents) {
    const components = (sbom['components'] ?? []) as Component[];
    const files = components.filter((c) => c.type === 'file');
    const libraries = components.filter((c) => c.type === 'library');
    const baseImage = components.find((c) => c.type === 'container');
    printLine(`${image}  ${String(sbom['serialNumber'] ?? '')}`);
    if (baseImage) printLine(`  base: ${baseImage.name}@${baseImage.version ?? ''}`);
    printLine(`  ${files.length} files, ${libraries.length} npm packages`);
    for (const lib of libraries) {
      const name = lib.group ? `${lib.group}/${lib.name}` : lib.name;
      const license = lib.licenses?.map((l) => l.license?.id ?? l.license?.name ?? l.expression).join(' ');
      printLine(`  ${name}@${lib.version ?? '?'}${license ? `  ${license}` : ''}`);
    }
  }
}
