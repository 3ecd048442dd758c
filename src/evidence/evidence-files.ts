import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type FileToWrite, writeFilesAtomically } from '../files/atomic-write.ts';

/** Where the evidence of a build is written: `evidence/` beside the release record. */
export function evidenceDir(recordPath: string): string {
  return join(dirname(recordPath), 'evidence');
}

/** The files of one artifact's evidence, by name: `<artifact>.sbom.cdx.json`, `.sbom.intoto.json`, ... */
export function evidenceFileNames(artifact: string) {
  return {
    sbom: `${artifact}.sbom.cdx.json`,
    sbomStatement: `${artifact}.sbom.intoto.json`,
    provenanceStatement: `${artifact}.provenance.intoto.json`,
    sbomBundle: `${artifact}.sbom.sigstore.json`,
    provenanceBundle: `${artifact}.provenance.sigstore.json`,
  } as const;
}

/**
 * Write one artifact's evidence all at once (each file replaced atomically): the SBOM, both
 * statements, and the Sigstore bundles when signed. A bundle of an older build never stays beside
 * new statements: unsigned evidence removes them.
 */
export async function writeEvidenceFiles(
  dir: string,
  artifact: string,
  evidence: {
    sbom: string;
    sbomStatement: Uint8Array;
    provenanceStatement: Uint8Array;
    bundles?: { sbom: Uint8Array; provenance: Uint8Array };
  },
): Promise<string[]> {
  const names = evidenceFileNames(artifact);
  const files: FileToWrite[] = [
    { path: join(dir, names.sbom), content: evidence.sbom },
    { path: join(dir, names.sbomStatement), content: evidence.sbomStatement },
    { path: join(dir, names.provenanceStatement), content: evidence.provenanceStatement },
  ];
  if (evidence.bundles) {
    files.push(
      { path: join(dir, names.sbomBundle), content: evidence.bundles.sbom },
      { path: join(dir, names.provenanceBundle), content: evidence.bundles.provenance },
    );
  }
  await writeFilesAtomically(files);
  if (!evidence.bundles) {
    await Promise.all(
      [names.sbomBundle, names.provenanceBundle].map((n) => rm(join(dir, n), { force: true })),
    );
  }
  return files.map((f) => f.path);
}
