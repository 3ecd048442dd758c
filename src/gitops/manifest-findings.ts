import type { ArtifactRow, Finding } from '../verify/types.ts';
import { type BumpPlan, keyOf, type Place, type PlaceKind } from './gitops-types.ts';
import { parseImageRef, splitTagValue } from './image-ref.ts';

const CODE: Record<PlaceKind, string> = {
  tag: 'MANIFEST_TAG_STALE',
  reference: 'MANIFEST_TAG_STALE',
  'new-tag': 'MANIFEST_TAG_STALE',
  digest: 'MANIFEST_DIGEST_MISMATCH',
  'app-version': 'MANIFEST_APP_VERSION_STALE',
  override: 'MANIFEST_OVERRIDE_STALE',
  env: 'MANIFEST_ENV_STALE',
};

/** The table's short "why" per finding code (verify's report looks codes up here too). */
export const MANIFEST_WHY: Record<string, string> = {
  MANIFEST_TAG_STALE: 'another tag than the release',
  MANIFEST_DIGEST_MISMATCH: "another digest than the release's",
  MANIFEST_APP_VERSION_STALE: "chart appVersion is not the release's",
  MANIFEST_OVERRIDE_STALE: 'an override holds another version',
  MANIFEST_ENV_STALE: 'version variable holds another version',
  MANIFEST_ARTIFACT_MISSING: 'not in the manifests',
  MANIFEST_DUPLICATE_KEY: 'a key given twice',
};

/**
 * `release verify --manifests`: every place whose value is not the release's is drift, named by
 * file and key; every image of the release with no place is missing. `fix` is the bump that
 * writes them all.
 */
export function manifestFindings(plan: BumpPlan, tag: string): Finding[] {
  const fix = `release bump --version ${tag} (writes every place in one change), then commit it`;
  const stale = plan.edits.map(
    (p): Finding => ({
      code: digestOnly(p) ? 'MANIFEST_DIGEST_MISMATCH' : CODE[p.kind],
      message: `${p.file} ${keyOf(p.path)} is ${p.current === null ? 'empty' : `"${p.current}"`}; the release needs "${p.want}"${p.note ? ` (${p.note})` : ''}`,
      fix,
      severity: 'drift',
      artifact: rowName(p),
      source: sourceOf(p),
    }),
  );
  const missing = plan.unplaced.map(
    (u): Finding => ({
      code: 'MANIFEST_ARTIFACT_MISSING',
      message: `${u.artifacts.join(', ') || 'a declared key'}: ${u.reason}`,
      fix: 'add the image to the manifests, or declare the key that holds its tag under deploy.manifests',
      severity: 'drift',
      ...(u.artifacts[0] ? { artifact: u.artifacts.join('+') } : {}),
      ...(u.file ? { source: u.file } : {}),
    }),
  );
  const twice = plan.duplicates.map(
    (d): Finding => ({
      code: 'MANIFEST_DUPLICATE_KEY',
      message: `${d.file}:${d.line} gives ${d.key} a second time; which one a tool reads is not the release's to guess`,
      fix: `remove the duplicate ${d.key} from ${d.file}, then ${fix}`,
      severity: 'drift',
      source: `${d.file}:${d.line}`,
    }),
  );
  return [...stale, ...missing, ...twice];
}

/** One row per place: the artifacts it decides, the file and key, and what it holds. */
export function manifestRows(plan: BumpPlan, findings: Finding[]): ArtifactRow[] {
  const rows = plan.places.map((p): ArtifactRow => {
    const finding = findings.find((f) => f.source === sourceOf(p));
    return {
      name: rowName(p),
      source: sourceOf(p),
      version: p.current ?? undefined,
      status: finding ? 'drift' : 'ok',
      why: finding ? (MANIFEST_WHY[finding.code] ?? finding.code) : '',
    };
  });
  for (const f of findings.filter((f) =>
    ['MANIFEST_ARTIFACT_MISSING', 'MANIFEST_DUPLICATE_KEY'].includes(f.code),
  ))
    rows.push({
      name: f.artifact ?? '-',
      source: f.source ?? '-',
      version: undefined,
      status: 'drift',
      why: MANIFEST_WHY[f.code]!,
    });
  return rows;
}

function rowName(p: Place): string {
  if (p.artifacts.length > 0) return p.artifacts.join('+');
  return p.kind === 'app-version' ? 'appVersion' : p.kind === 'env' ? 'env' : 'version';
}

function sourceOf(p: Place): string {
  return `${p.file} ${p.doc > 0 ? `(document ${p.doc + 1}) ` : ''}${keyOf(p.path)}`;
}

/** Same tag, other digest: the pin is what is stale. */
function digestOnly(p: Place): boolean {
  if (p.current === null || !['tag', 'reference'].includes(p.kind)) return false;
  const tagOf = (v: string) => (p.kind === 'reference' ? parseImageRef(v).tag : splitTagValue(v).tag);
  return tagOf(p.current) === tagOf(p.want);
}
