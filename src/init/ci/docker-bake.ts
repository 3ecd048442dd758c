import type { CiBuild } from './ci-build.ts';
import { type HclBody, type HclValue, readHcl } from './hcl-subset.ts';

/**
 * The targets of a `docker-bake.hcl` (or `docker-bake.json`) as builds: each target with what it
 * inherits merged in (the parent's keys, then its own), `${VAR}` in strings replaced by the
 * default of `variable "VAR"`, paths relative to the bake file's folder (its `dockerfile` to its
 * context, as bake reads it). `targets`: the targets or groups a CI step builds; none means the
 * `default` group, as `docker buildx bake` alone builds. Pure.
 */
export interface BakeTarget {
  name: string;
  context?: string;
  dockerfile?: string;
  target?: string;
  args: Record<string, string>;
  platforms: string[];
  tags: string[];
}

export interface BakeRead {
  path: string;
  targets: BakeTarget[];
  groups: Record<string, string[]>;
  unreadable?: string;
}

const MAX_INHERIT = 16;

export function readBakeFile(path: string, text: string): BakeRead {
  const out: BakeRead = { path, targets: [], groups: {} };
  let raw: {
    targets: Record<string, Record<string, unknown>>;
    groups: Record<string, unknown>;
    variables: Record<string, string>;
  };
  if (path.endsWith('.json')) {
    let data: unknown;
    try {
      data = text.length > 2 * 1024 * 1024 ? undefined : JSON.parse(text);
    } catch (error) {
      return { ...out, unreadable: (error as Error).message.slice(0, 200) };
    }
    if (!isRecord(data)) return { ...out, unreadable: 'not a JSON object (or over 2 MB)' };
    const variables: Record<string, string> = {};
    for (const [name, v] of Object.entries(isRecord(data['variable']) ? data['variable'] : {}))
      if (isRecord(v) && typeof v['default'] === 'string') variables[name] = v['default'];
    raw = {
      targets: Object.fromEntries(
        Object.entries(isRecord(data['target']) ? data['target'] : {}).filter(
          (e): e is [string, Record<string, unknown>] => isRecord(e[1]),
        ),
      ),
      groups: isRecord(data['group']) ? data['group'] : {},
      variables,
    };
  } else {
    const read = readHcl(text);
    if ('unreadable' in read) return { ...out, unreadable: read.unreadable };
    raw = fromHcl(read.body);
  }
  for (const [name, group] of Object.entries(raw.groups))
    if (isRecord(group)) out.groups[name] = strings(group['targets'], raw.variables);
  const resolve = (name: string, depth: number): Record<string, unknown> => {
    const own = raw.targets[name];
    if (!own || depth > MAX_INHERIT) return {};
    const merged: Record<string, unknown> = {};
    for (const parent of strings(own['inherits'], raw.variables))
      Object.assign(merged, resolve(parent, depth + 1));
    for (const [key, value] of Object.entries(own)) {
      // `args` merge key by key, as bake merges them.
      if (key === 'args' && isRecord(merged['args']) && isRecord(value))
        merged['args'] = { ...merged['args'], ...value };
      else merged[key] = value;
    }
    return merged;
  };
  for (const name of Object.keys(raw.targets)) {
    const t = resolve(name, 0);
    const text = (key: string) =>
      typeof t[key] === 'string' ? interpolate(t[key] as string, raw.variables) : undefined;
    const context = text('context');
    const dockerfile = text('dockerfile');
    const target = text('target');
    const args: Record<string, string> = {};
    if (isRecord(t['args']))
      for (const [k, v] of Object.entries(t['args']))
        if (typeof v === 'string') args[k] = interpolate(v, raw.variables);
    out.targets.push({
      name,
      ...(context !== undefined ? { context } : {}),
      ...(dockerfile !== undefined ? { dockerfile } : {}),
      ...(target !== undefined ? { target } : {}),
      args,
      platforms: strings(t['platforms'], raw.variables),
      tags: strings(t['tags'], raw.variables),
    });
  }
  return out;
}

/** The targets a bake run builds: the names given (targets or groups, expanded), else `default`. */
export function bakeTargets(read: BakeRead, names: readonly string[]): BakeTarget[] {
  const wanted = new Set<string>();
  const expand = (name: string, depth: number) => {
    if (depth > MAX_INHERIT) return;
    if (read.groups[name]) for (const member of read.groups[name]!) expand(member, depth + 1);
    else wanted.add(name);
  };
  for (const name of names.length ? names : ['default']) expand(name, 0);
  // No default group: `docker buildx bake` builds the target named default, or fails; take all.
  if (!names.length && !read.groups['default'] && !read.targets.some((t) => t.name === 'default'))
    return read.targets.filter((t) => !t.name.startsWith('_') && t.name !== 'docker-metadata-action');
  return read.targets.filter((t) => wanted.has(t.name));
}

/** A bake target as a build, its paths resolved from the bake file's folder. */
export function bakeBuild(
  read: BakeRead,
  target: BakeTarget,
  how: { at: string; push: boolean; images: string[]; pushesLatest: boolean; pushesVersion: boolean },
): CiBuild {
  const dir = read.path.includes('/') ? read.path.slice(0, read.path.lastIndexOf('/')) : '.';
  const context = target.context ?? '.';
  const images = target.tags.map(repositoryOf).filter((i) => i);
  return {
    at: `${how.at} (${read.path} target ${target.name})`,
    context: dir === '.' ? context : `${dir}/${context}`,
    ...(target.dockerfile !== undefined ? { file: target.dockerfile } : {}),
    fileBase: 'context',
    ...(target.target !== undefined ? { target: target.target } : {}),
    buildArgs: target.args,
    platforms: target.platforms,
    images: images.length ? [...new Set(images)] : how.images,
    tags: target.tags,
    push: how.push,
    pushesLatest: how.pushesLatest || target.tags.some((t) => t.endsWith(':latest')),
    pushesVersion: how.pushesVersion || target.tags.some((t) => /:v?\d+\.\d+|\$\{?(?:VERSION|TAG)/.test(t)),
  };
}

function fromHcl(body: HclBody): {
  targets: Record<string, Record<string, unknown>>;
  groups: Record<string, unknown>;
  variables: Record<string, string>;
} {
  const variables: Record<string, string> = {};
  const targets: Record<string, Record<string, unknown>> = {};
  const groups: Record<string, unknown> = {};
  for (const block of body.blocks) {
    const name = block.labels[0];
    if (!name) continue;
    if (block.type === 'variable') {
      const value = block.body.attributes['default'];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        variables[name] = String(value);
    } else if (block.type === 'target') targets[name] = block.body.attributes as Record<string, unknown>;
    else if (block.type === 'group') groups[name] = block.body.attributes;
  }
  return { targets, groups, variables };
}

function strings(value: unknown, variables: Record<string, string>): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return list.filter((v): v is string => typeof v === 'string').map((v) => interpolate(v, variables));
}

/** `${NAME}` replaced by the variable's default where it is a plain name; the rest as written. */
function interpolate(text: string, variables: Record<string, string>): string {
  if (!text.includes('${')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('${', i);
    if (open < 0) return out + text.slice(i);
    const close = text.indexOf('}', open + 2);
    if (close < 0) return out + text.slice(open);
    out += text.slice(i, open);
    const name = text.slice(open + 2, close).trim();
    out += Object.hasOwn(variables, name) ? variables[name] : text.slice(open, close + 1);
    i = close + 1;
  }
  return out;
}

function repositoryOf(reference: string): string {
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? reference.slice(0, colon) : reference;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !('expression' in value && Object.keys(value).length === 1)
  );
}

export type { HclValue };
