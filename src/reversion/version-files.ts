import { RuleError } from '../errors.ts';
import { escapeHtml } from '../text/escape-html.ts';

/**
 * How a version file carries its version (release.config `versionFiles[].format`):
 * - `text`: the whole file is the version (a trailing newline kept when it had one);
 * - `json`: a JSON document whose `key` (default `version`) is the version;
 * - `html-meta`: an HTML page with exactly one `<meta name="<name>" content="...">` (default name
 *   `service-client-version`), the tag a bundle reads at run time.
 */
export type VersionFileFormat =
  | { format: 'text' }
  /** A file whose code bakes the version (a bundle): its copy rebuilt from the rc's commit. */
  | { format: 'rebuild' }
  | { format: 'json'; key: string }
  | { format: 'html-meta'; name: string };

export type VersionFile = VersionFileFormat & { path: string };

export const DEFAULT_JSON_KEY = 'version';
export const DEFAULT_META_NAME = 'service-client-version';

/**
 * The label that says how each file of the version layer carries its version, so a release and
 * verify re-stamp it from the image alone (no config needed): `path=format[:arg]`, comma-separated
 * (`/app/web/index.html=html-meta:service-client-version,/app/web/version.json=json:version`).
 * A listed file the label does not describe is re-stamped by its name, as before the label.
 */
export const VERSION_FILES_FORMAT_LABEL = 'org.service-release.version-layer.formats';

/** The label's value for these files. */
export function formatsLabel(files: readonly VersionFile[]): string {
  return files.map((f) => `${f.path}=${formatText(f)}`).join(',');
}

function formatText(f: VersionFileFormat): string {
  if (f.format === 'json') return `json:${f.key}`;
  if (f.format === 'html-meta') return `html-meta:${f.name}`;
  return f.format;
}

/** The formats a label describes, by path; an entry it cannot read is left out (name rule applies). */
export function parseFormatsLabel(raw: string | undefined): Map<string, VersionFileFormat> {
  const out = new Map<string, VersionFileFormat>();
  for (const item of (raw ?? '').split(',')) {
    const at = item.lastIndexOf('=');
    if (at <= 0) continue;
    const path = item.slice(0, at).trim();
    const [kind, arg] = item
      .slice(at + 1)
      .trim()
      .split(/:(.*)/s, 2);
    if (kind === 'text' || kind === 'rebuild') out.set(path, { format: kind });
    else if (kind === 'json' && arg) out.set(path, { format: 'json', key: arg });
    else if (kind === 'html-meta' && arg && /^[A-Za-z0-9._-]+$/.test(arg))
      out.set(path, { format: 'html-meta', name: arg });
  }
  return out;
}

/** The format a file without a declared one has, by its name (the rule before declarations). */
export function formatByName(path: string): VersionFileFormat | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === 'version.json') return { format: 'json', key: DEFAULT_JSON_KEY };
  if (name.endsWith('.html')) return { format: 'html-meta', name: DEFAULT_META_NAME };
  return undefined;
}

/**
 * `content` with its version replaced by `version`, per `format`. Pure. Refuses (RuleError) a
 * file that does not carry a version where its format says: a release must never ship a file it
 * believes re-versioned and is not.
 */
export function rewriteVersionFile(
  path: string,
  content: Buffer,
  format: VersionFileFormat,
  version: string,
): Buffer {
  if (format.format === 'rebuild')
    throw new RuleError(
      'VERSION_LAYER_INVALID',
      `${path} bakes the version into its code: only a rebuild from the rc's commit re-versions it`,
    );
  if (format.format === 'text')
    return Buffer.from(content.toString('utf8').endsWith('\n') ? `${version}\n` : version);
  if (format.format === 'json') return Buffer.from(rewriteJson(path, content, format.key, version));
  const html = content.toString('utf8');
  const meta = metaPattern(format.name);
  const count = html.match(meta)?.length ?? 0;
  if (count !== 1)
    throw new RuleError('VERSION_LAYER_INVALID', `${path} has ${count} ${format.name} <meta> tags, not one`);
  return Buffer.from(html.replace(meta, `$1${escapeHtml(version)}$2`));
}

function rewriteJson(path: string, content: Buffer, key: string, version: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(content.toString('utf8'));
  } catch {
    throw new RuleError('VERSION_LAYER_INVALID', `${path} is not JSON`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || !(key in doc))
    throw new RuleError('VERSION_LAYER_INVALID', `${path} has no "${key}" key`);
  // Assigning the existing key keeps its place: the file differs from the build's only in value.
  (doc as Record<string, unknown>)[key] = version;
  return `${JSON.stringify(doc)}\n`;
}

function metaPattern(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(<meta name="${escaped}" content=")[^"]*(")`, 'g');
}

/** A declared version file (release.config `versionFiles[]`) with its defaults filled in. */
export function versionFileOf(f: {
  path: string;
  format: 'text' | 'json' | 'html-meta';
  key?: string | undefined;
  name?: string | undefined;
}): VersionFile {
  if (f.format === 'json') return { path: f.path, format: 'json', key: f.key ?? DEFAULT_JSON_KEY };
  if (f.format === 'html-meta')
    return { path: f.path, format: 'html-meta', name: f.name ?? DEFAULT_META_NAME };
  return { path: f.path, format: 'text' };
}
