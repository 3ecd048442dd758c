import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { imageArtifacts } from '../../config/artifacts.ts';
import { isRegistryReference } from '../../config/schema.ts';
import { table } from '../../console/table.ts';
import { RuleError, UsageError } from '../../errors.ts';
import { releaseImages } from '../../evidence/attest-release.ts';
import { vsasFromFile, vsasFromStore } from '../../evidence/read-vsa.ts';
import { DEFAULT_VERIFIER_ID } from '../../evidence/vsa.ts';
import type { VsaCheck } from '../../evidence/vsa-checks.ts';
import { type MirrorStore, OCI_ARCHIVE_PREFIX, openMirrorStore } from '../../mirror/open-mirror-store.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import { readPublicKey } from '../../signing/key-files.ts';
import { shortKeyId } from '../../signing/keys.ts';
import { readVerifierPublicKey } from '../../signing/verifier-key.ts';
import { printable } from '../../text/printable.ts';
import { judgeVsas } from '../../verify/checks/check-vsa.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import { printJson, printLine } from '../output.ts';

export interface VsaCheckFlags {
  /** A summaries file, or a store holding them as referrers. */
  vsa: string;
  expect: string;
  registry?: string | true;
  verifierPub?: string;
  requireCheck?: VsaCheck[];
}

/**
 * `release verify --vsa <file|store> --expect <tag>`: the far side's check. The verifier's public
 * key alone decides whether a summary is genuine; the store (the `--vsa` store, else `--registry`
 * or the config's) says which digests the release is. Exit 1 unless every summary offered is a
 * PASSED one for this release with the required checks, and every image digest is covered.
 */
export async function runVsaCheck(flags: VsaCheckFlags, base: BaseContext): Promise<void> {
  const verifier = await readVerifierPublicKey({ ...base, publicKeyPath: flags.verifierPub });
  if (!verifier)
    throw new UsageError('VSA_NO_VERIFIER_KEY', "--vsa checks summaries with the verifier's public key", {
      hint: 'pass --verifier-pub <release-verifier.pub> or set verifier.publicKey in the config',
    });
  const tag = imageTagOf(parseVersion(flags.expect));
  const fromStore = isStoreText(flags.vsa) && !existsSync(resolve(base.cwd, flags.vsa));
  const storeText = fromStore
    ? flags.vsa
    : flags.registry === undefined || flags.registry === true
      ? base.config.registry
      : flags.registry;
  const opened: MirrorStore = await openMirrorStore(storeText, 'source', {
    cwd: base.configDir,
    env: base.env,
    insecure: base.config.insecureRegistries,
  });
  try {
    const artifacts = imageArtifacts(base.config).map((a) => ({ name: a.name, repository: a.image }));
    const images = (await releaseImages(opened.store, artifacts, tag)).map((i) => ({
      artifact: i.artifact,
      repository: i.repository,
      digests: [i.digest, ...i.children],
    }));
    const readings = fromStore
      ? await vsasFromStore(opened.store, verifier, images)
      : await vsasFromFile(resolve(base.cwd, flags.vsa), verifier);
    // The summary must name the release key and verifier this project trusts, not any key.
    const releaseKey = await readPublicKey(base);
    const trust = {
      verifierId: base.config.verifier?.id ?? DEFAULT_VERIFIER_ID,
      ...(releaseKey ? { releaseKey: releaseKey.keyId } : {}),
    };
    const { verdicts, uncovered } = judgeVsas(
      readings,
      { version: tag, images },
      flags.requireCheck ?? [],
      trust,
    );
    const accepted = readings.length > 0 && uncovered.length === 0 && verdicts.every((v) => v.accepted);
    if (base.json) {
      printJson({
        accepted,
        version: tag,
        store: opened.store.name,
        verifierKeyId: verifier.keyId,
        required: flags.requireCheck ?? [],
        summaries: verdicts,
        uncovered,
      });
    } else {
      printLine(
        `${accepted ? 'accepted' : 'REFUSED'}: verification summaries of ${tag} (verifier key ${shortKeyId(verifier.keyId)}, digests from ${opened.store.name})`,
      );
      for (const line of table(
        ['SUMMARY', 'RESULT', 'LEVELS', 'VERDICT'],
        // What a summary says reaches the terminal only escaped: a bundle is outside data.
        verdicts.map((v) => [
          printable(v.source, { max: 200 }),
          printable(v.result ?? '-', { max: 20 }),
          printable(v.levels?.join(' ') || '-', { max: 80 }),
          v.accepted ? 'accepted' : printable(v.problems.join('; '), { max: 600 }),
        ]),
      ))
        printLine(line);
      for (const ref of uncovered) printLine(`  no accepted summary covers ${ref}`);
      if (readings.length === 0) printLine(`  no verification summary found for ${tag}`);
    }
    if (!accepted)
      throw Object.assign(
        new RuleError('VSA_REFUSED', `the verification summaries do not vouch for ${tag}`, {
          hint: 'run release verify --attest against the deployment again, with the verifier key',
        }),
        { reported: true },
      );
  } finally {
    await opened.close();
  }
}

/** A store reference, not a file (`vsa.jsonl` also reads as a host name: a summaries file wins). */
function isStoreText(text: string): boolean {
  if (/\.jsonl?$/.test(text)) return false;
  return text.startsWith(OCI_ARCHIVE_PREFIX) || isRegistryReference(text);
}
