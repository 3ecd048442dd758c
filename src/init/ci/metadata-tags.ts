/**
 * What a `docker/metadata-action` step makes of its `tags:` and `flavor:` inputs: whether the
 * images get the release's version tag and whether they move `latest`, by the action's own rules
 * (`latest=auto`, its default, adds `latest` on a tag push for `type=semver`, `type=pep440`,
 * `type=match` and `type=ref,event=tag`; with no `tags:` input its defaults include
 * `type=ref,event=tag`). Pure; each line is split on commas, so linear.
 */
export interface MetadataTags {
  /** The image repositories of its `images:` input, as written (one per line or comma). */
  images: string[];
  /** A tag named after the git tag or its version (`type=semver`, `type=ref,event=tag`, …). */
  version: boolean;
  /** It moves `latest`: always, or under a condition (`enable=…`, `latest=${{ … }}`). */
  latest: boolean;
  /** The condition `latest` is under, as written, when there is one. */
  latestWhen?: string;
  /** The rules as written, one a line, for the user to read. */
  rules: string[];
}

const VERSION_TYPES = new Set(['semver', 'pep440', 'match']);

export function metadataTags(inputs: {
  images?: string | undefined;
  tags?: string | undefined;
  flavor?: string | undefined;
}): MetadataTags {
  // `name=ghcr.io/a/b,enable=…` is one image with attributes; `a/b,c/d` two images.
  const images = splitLines(inputs.images ?? '').flatMap((line) =>
    line.startsWith('name=') ? [attributes(line).get('name')!] : splitOutsideExpressions(line, ','),
  );
  const rules =
    inputs.tags === undefined
      ? ['type=schedule', 'type=ref,event=branch', 'type=ref,event=tag', 'type=ref,event=pr']
      : splitLines(inputs.tags);
  const flavor = new Map<string, string>();
  for (const line of splitList(inputs.flavor ?? '')) {
    const eq = line.indexOf('=');
    if (eq > 0) flavor.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const out: MetadataTags = { images, version: false, latest: false, rules };
  let autoLatest = false;
  for (const rule of rules) {
    const attrs = attributes(rule);
    const type = attrs.get('type') ?? 'raw';
    const enable = attrs.get('enable');
    if (enable === 'false') continue;
    const onTag = VERSION_TYPES.has(type) || (type === 'ref' && attrs.get('event') === 'tag');
    if (onTag) {
      out.version = true;
      autoLatest = true;
    }
    if (type === 'raw' && attrs.get('value') === 'latest') {
      out.latest = true;
      if (enable && enable !== 'true') out.latestWhen = enable;
    }
  }
  const latest = flavor.get('latest') ?? 'auto';
  if (latest === 'true') out.latest = true;
  else if (latest === 'auto') out.latest ||= autoLatest;
  else if (latest !== 'false') {
    // An expression: latest under that condition.
    out.latest = true;
    out.latestWhen = latest;
  }
  return out;
}

/** `type=raw,value=latest,enable=${{ x }}` as a map; a bare word (`name/app`) under `name`. */
function attributes(rule: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of splitOutsideExpressions(rule, ',')) {
    const eq = part.indexOf('=');
    if (eq > 0) map.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    else if (part.trim()) map.set('name', part.trim());
  }
  return map;
}

function splitLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** Lines, and the items of comma-separated lines (`images: a,b` and `flavor: latest=false,prefix=`). */
function splitList(text: string): string[] {
  return splitLines(text).flatMap((line) =>
    line.includes('=') && !line.includes(',') ? [line] : splitOutsideExpressions(line, ','),
  );
}

/** Split on `sep` except inside `${{ … }}`, whose text may hold commas of its own. */
export function splitOutsideExpressions(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('${{', i)) {
      depth++;
      i += 2;
    } else if (depth > 0 && text.startsWith('}}', i)) {
      depth--;
      i += 1;
    } else if (depth === 0 && text[i] === sep) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out.filter(Boolean);
}
