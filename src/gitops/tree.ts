/** Small helpers over the plain tree `yaml` gives for a document (`doc.toJS()`). */

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
