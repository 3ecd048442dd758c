import type { InitPlan, PlannedArtifact } from './init-plan.ts';

/**
 * `release init --force` over a config the user has edited since: the user's values win, what
 * init finds now fills the gaps, and nothing is dropped: a key init would not write is kept and
 * named. Returns the plan to write (its registry, version variables and artifacts merged), the
 * other top-level keys to write as they were (signing, deploy, base…), and what changed, for the
 * report. A value that is not plain data (a function, a class instance) cannot be written back:
 * its path is given, and the caller refuses. Pure.
 */
export interface MergedConfig {
  plan: InitPlan;
  /** Top-level keys besides registry, versionVariables and artifacts: signing and the rest. */
  rest: Record<string, unknown>;
  /** `path: why`, one a change kept or made, for the report. */
  kept: string[];
  added: string[];
  /** Paths of values that are not plain data: the merge cannot write them back. */
  unwritable: string[];
}

const PLANNED = new Set(['registry', 'versionVariables', 'artifacts']);

/**
 * `previous`: the config as loaded (the module's default export, or the JSON). `registryFlag`:
 * `--registry`, which replaces the user's registry (the one value the command line names).
 */
export function mergeConfig(
  plan: InitPlan,
  fresh: { signing: unknown },
  previous: Record<string, unknown>,
  registryFlag?: string,
): MergedConfig {
  const kept: string[] = [];
  const added: string[] = [];
  const unwritable: string[] = [];
  checkPlain(previous, '', unwritable);
  const out: InitPlan = { ...plan, artifacts: [], versionVariables: { ...plan.versionVariables } };

  if (registryFlag !== undefined) {
    if (typeof previous['registry'] === 'string' && previous['registry'] !== registryFlag)
      kept.push(`registry: "${registryFlag}" (--registry), replacing yours, "${previous['registry']}"`);
    out.registry = registryFlag;
  } else if (typeof previous['registry'] === 'string') {
    if (previous['registry'] !== plan.registry)
      kept.push(`registry: yours, "${previous['registry']}" (init found "${plan.registry}")`);
    out.registry = previous['registry'];
  }

  const vv = previous['versionVariables'];
  if (vv && typeof vv === 'object') {
    const merged = merge(vv, plan.versionVariables, 'versionVariables', kept, added);
    out.versionVariables = merged as InitPlan['versionVariables'];
  }

  const previousArtifacts =
    previous['artifacts'] && typeof previous['artifacts'] === 'object'
      ? (previous['artifacts'] as Record<string, unknown>)
      : {};
  const freshByName = new Map(plan.artifacts.map((a) => [a.name, a]));
  for (const [name, value] of Object.entries(previousArtifacts)) {
    const found = freshByName.get(name);
    const at = `artifacts.${name}`;
    if (!found) {
      kept.push(`${at}: yours, kept (init did not find it now)`);
      out.artifacts.push({
        name,
        value: value as PlannedArtifact['value'],
        notes: ['kept from the config as it was'],
      });
      continue;
    }
    if (value === false && found.value !== false) {
      // init writes false for every role it did not find: a gap, which what it finds now fills.
      added.push(
        `${at}: was false, found now (${found.notes[0] ?? 'see the config'}); set it back to false if it is not released`,
      );
      out.artifacts.push(found);
    } else if (value && typeof value === 'object' && found.value) {
      out.artifacts.push({
        name,
        value: merge(value, found.value, at, kept, added) as PlannedArtifact['value'],
        notes: found.notes,
      });
    } else {
      if (JSON.stringify(value) !== JSON.stringify(found.value)) kept.push(`${at}: yours, kept`);
      out.artifacts.push({ name, value: value as PlannedArtifact['value'], notes: found.notes });
    }
  }
  for (const artifact of plan.artifacts) {
    if (artifact.name in previousArtifacts) continue;
    if (artifact.value) added.push(`artifacts.${artifact.name}: found now`);
    out.artifacts.push(artifact);
  }

  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(previous))
    if (!PLANNED.has(key) && key !== '$schema') rest[key] = value;
  if (!('signing' in rest)) {
    rest['signing'] = fresh.signing;
    added.push('signing: the public key release keygen writes');
  } else if (JSON.stringify(rest['signing']) !== JSON.stringify(fresh.signing))
    kept.push('signing: yours, kept');
  for (const key of Object.keys(rest))
    if (key !== 'signing') kept.push(`${key}: yours, kept (init does not write it)`);
  return { plan: out, rest, kept, added, unwritable };
}

/** `mine` over `found`, key by key: mine wins where both have a key, found fills the rest. */
function merge(mine: object, found: object, at: string, kept: string[], added: string[]): unknown {
  if (Array.isArray(mine) || Array.isArray(found) || !isObject(mine) || !isObject(found)) {
    if (JSON.stringify(mine) !== JSON.stringify(found))
      kept.push(`${at}: yours, ${short(mine)} (init found ${short(found)})`);
    return mine;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(mine)) {
    const other = (found as Record<string, unknown>)[key];
    if (other === undefined) {
      out[key] = value;
      kept.push(`${at}.${key}: yours, kept (init would not write it)`);
    } else if (value && typeof value === 'object' && other && typeof other === 'object')
      out[key] = merge(value, other, `${at}.${key}`, kept, added);
    else {
      if (JSON.stringify(value) !== JSON.stringify(other))
        kept.push(`${at}.${key}: yours, ${short(value)} (init found ${short(other)})`);
      out[key] = value;
    }
  }
  for (const [key, value] of Object.entries(found)) {
    if (key in mine) continue;
    out[key] = value;
    added.push(`${at}.${key}: ${short(value)}`);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Paths of values JSON would not carry as they are: functions, symbols, class instances, undefined in arrays. */
function checkPlain(value: unknown, at: string, out: string[]): void {
  if (value === null || value === undefined || ['string', 'number', 'boolean'].includes(typeof value)) return;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) checkPlain(item, `${at}[${i}]`, out);
    return;
  }
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) checkPlain(item, at ? `${at}.${key}` : key, out);
    return;
  }
  out.push(at || '(the config)');
}
