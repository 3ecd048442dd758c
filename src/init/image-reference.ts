import { withDefaults } from './compose-file.ts';

/**
 * An `image:` line of a compose file, read as Docker reads a reference, with `${VAR:-default}`
 * taken at its default: the registry and namespace it names (only when it names a registry host,
 * as `ghcr.io/acme/app` does; `acme/app` is Docker Hub's and says nothing about the user's
 * registry) and the repository's last component. Pure.
 */
export interface ImageLine {
  /** `ghcr.io/acme`, when the line names a registry host. */
  registry?: string;
  /** The last path component without tag or digest: `app`. */
  name: string;
}

export function readImageLine(line: string): ImageLine | undefined {
  // No reference is this long (Docker caps a name at 255 characters): not worth reading.
  if (line.length > 1024) return undefined;
  const text = withDefaults(line).trim();
  const at = text.indexOf('@');
  const withoutDigest = at < 0 ? text : text.slice(0, at);
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const repository = colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
  const parts = repository.split('/');
  const name = parts.at(-1) ?? '';
  if (!/^[a-z0-9]+(?:[._-][a-z0-9]+)*$/.test(name)) return undefined;
  const first = parts[0]!;
  const host = parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!host) return { name };
  return { registry: parts.slice(0, -1).join('/'), name };
}

/** The registry most image lines name (the first on a tie), and how many name it. */
export function commonRegistry(lines: readonly ImageLine[]): { registry: string; count: number } | undefined {
  const counts = new Map<string, number>();
  for (const line of lines)
    if (line.registry) counts.set(line.registry, (counts.get(line.registry) ?? 0) + 1);
  let best: { registry: string; count: number } | undefined;
  for (const [registry, count] of counts) if (!best || count > best.count) best = { registry, count };
  return best;
}
