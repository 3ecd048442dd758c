import { isAlias, isScalar, isMap as isYamlMap, isSeq as isYamlSeq } from 'yaml';

/** Small helpers over the plain tree of a document (`plainTree`). */

export type Path = (string | number)[];

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function getAt(tree: unknown, path: Path): unknown {
  let node = tree;
  for (const key of path) {
    if (Array.isArray(node) && typeof key === 'number') node = node[key];
    else if (isMap(node) && typeof key === 'string') node = node[key];
    else return undefined;
  }
  return node;
}

/** A scalar as text: strings as they are, numbers as YAML wrote them, empty and null as null. */
export function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** Every mapping in the tree with its path, parents before children. */
export function* mappings(tree: unknown, path: Path = []): Generator<[Path, Record<string, unknown>]> {
  if (isMap(tree)) {
    yield [path, tree];
    for (const [key, value] of Object.entries(tree)) yield* mappings(value, [...path, key]);
  } else if (Array.isArray(tree)) {
    for (const [i, value] of tree.entries()) yield* mappings(value, [...path, i]);
  }
}

/** Every sequence in the tree with its path. */
export function* sequences(tree: unknown, path: Path = []): Generator<[Path, unknown[]]> {
  if (Array.isArray(tree)) {
    yield [path, tree];
    for (const [i, value] of tree.entries()) yield* sequences(value, [...path, i]);
  } else if (isMap(tree)) {
    for (const [key, value] of Object.entries(tree)) yield* sequences(value, [...path, key]);
  }
}

/**
 * A document as a plain tree of the nodes it spells out, aliases left out: a value reached through
 * an alias (`<<: *defaults`) is not a place of its own (the anchor is), and nothing is expanded,
 * so an alias bomb costs nothing (getsentry/self-hosted's compose file has more aliases than the
 * `yaml` package's own guard lets `toJS` resolve).
 */
export function plainTree(node: unknown): unknown {
  if (isYamlMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      if (isAlias(pair.value) || (isScalar(pair.key) && pair.key.value === '<<')) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      // defineProperty: a key spelled `__proto__` is a key, not the object's prototype.
      if (key !== undefined)
        Object.defineProperty(out, key, {
          value: plainTree(pair.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return out;
  }
  if (isYamlSeq(node)) return node.items.map((item) => (isAlias(item) ? undefined : plainTree(item)));
  if (isScalar(node)) return node.value;
  return undefined;
}
