/** One challenge from a `WWW-Authenticate` header: the scheme and its parameters. */
export interface Challenge {
  /** Lowercase: `bearer`, `basic`. */
  scheme: string;
  params: Record<string, string>;
}

/**
 * Parse `WWW-Authenticate` (RFC 7235): `Bearer realm="https://auth",service="reg",scope="a:b:pull"`.
 * Quoted values may hold commas and escaped quotes; several challenges may share one header.
 */
export function parseWwwAuthenticate(header: string | null | undefined): Challenge[] {
  if (!header) return [];
  const challenges: Challenge[] = [];
  let pos = 0;
  const skip = (chars: string) => {
    while (pos < header.length && chars.includes(header[pos]!)) pos++;
  };
  const token = () => {
    const start = pos;
    while (pos < header.length && !' \t,="'.includes(header[pos]!)) pos++;
    return header.slice(start, pos);
  };
  while (pos < header.length) {
    skip(' \t,');
    const name = token();
    if (!name) {
      pos++; // a stray character: step over it rather than loop forever
      continue;
    }
    skip(' \t');
    if (header[pos] !== '=') {
      challenges.push({ scheme: name.toLowerCase(), params: {} });
      continue;
    }
    pos++;
    skip(' \t');
    let value = '';
    if (header[pos] === '"') {
      pos++;
      while (pos < header.length && header[pos] !== '"') {
        if (header[pos] === '\\') pos++;
        value += header[pos] ?? '';
        pos++;
      }
      pos++;
    } else {
      value = token();
    }
    const current = challenges.at(-1);
    if (current) current.params[name.toLowerCase()] = value;
  }
  return challenges;
}
