/**
 * The services of a compose file and how each is built, read without a YAML library: the block
 * form compose files are written in (`services:` then two-space-indented names, `build:` as a path
 * or as a map with `context`, `dockerfile`, `target`). Enough for `release init` to name artifacts
 * after services; anything it cannot read is simply not found. Pure.
 */
export interface ComposeService {
  name: string;
  image?: string;
  build?: { context: string; dockerfile?: string; target?: string };
}

export function readComposeServices(text: string): ComposeService[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const start = lines.findIndex((line) => /^services:\s*$/.test(line));
  if (start < 0) return [];
  const services: ComposeService[] = [];
  let serviceIndent = -1;
  let current: ComposeService | undefined;
  let inBuild = -1;
  for (const line of lines.slice(start + 1)) {
    const indent = line.length - line.trimStart().length;
    if (indent === 0) break; // the next top-level key
    const [, key = '', value = ''] = /^\s*([A-Za-z0-9_.-]+):\s*(.*?)\s*$/.exec(line) ?? [];
    if (serviceIndent < 0) serviceIndent = indent;
    if (indent === serviceIndent) {
      if (!key) continue;
      current = { name: key };
      services.push(current);
      inBuild = -1;
      continue;
    }
    if (!current || !key) continue;
    const clean = unquote(value);
    if (inBuild >= 0 && indent > inBuild) {
      current.build ??= { context: '.' };
      if (key === 'context') current.build.context = clean;
      if (key === 'dockerfile') current.build.dockerfile = clean;
      if (key === 'target') current.build.target = clean;
      continue;
    }
    inBuild = -1;
    if (key === 'image' && clean) current.image = clean;
    if (key === 'build') {
      if (clean) current.build = { context: clean };
      else inBuild = indent;
    }
  }
  return services;
}

function unquote(value: string): string {
  return value.replace(/^(['"])(.*)\1$/, '$2');
}
