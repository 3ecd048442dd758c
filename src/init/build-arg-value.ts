/**
 * The value a repository's own build scripts give a build arg its Dockerfile has no default for
 * (`ARG FROM` then `FROM ${FROM}`): `--build-arg "FROM=${DOCKER_FROM}"` and `DOCKER_FROM="docker.io/
 * ubuntu:24.04"` in a build script, read through one variable. Only a literal image reference is
 * taken. Pure: the texts of the scripts, workflows and Makefile it is given.
 */
export interface BuildArgValue {
  value: string;
  from: string;
}

// The files a build arg is given in: top-level and scripts/ shell scripts, a Makefile, CI files.
const SOURCES =
  /^(?:(?:scripts\/)?[\w.-]+\.sh|Makefile|\.github\/workflows\/[\w.-]+\.ya?ml|\.gitlab-ci\.yml)$/;
const REFERENCE = /^[a-z0-9][\w.-]*(?::\d+)?(?:\/[\w.-]+)*(?::[\w.-]+)?(?:@sha256:[a-f0-9]{64})?$/;
// Longer lines are minified or data: nothing a person wrote a build arg in.
const MAX_LINE = 2000;

export function isBuildArgSource(path: string): boolean {
  return SOURCES.test(path);
}

export function buildArgValue(
  name: string,
  texts: readonly { path: string; text: string }[],
  depth = 0,
): BuildArgValue | undefined {
  for (const { path, text } of texts) {
    for (const line of text.split('\n')) {
      if (line.length > MAX_LINE) continue;
      const value = assignedIn(line, name);
      if (value === undefined) continue;
      const variable = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(value);
      if (variable && depth === 0) {
        const through = buildArgValue(variable[1]!, texts, depth + 1);
        if (through)
          return { value: through.value, from: `${path} (${name}=$${variable[1]}, ${through.from})` };
        continue;
      }
      if (REFERENCE.test(value)) return { value, from: path };
    }
  }
  return undefined;
}

/** `NAME=value`, `NAME="value"` or `NAME: value` as a word of the line (not `OTHER_NAME=`). */
function assignedIn(line: string, name: string): string | undefined {
  for (let at = line.indexOf(name); at >= 0; at = line.indexOf(name, at + 1)) {
    const before = at === 0 ? ' ' : line[at - 1]!;
    if (/[\w$]/.test(before)) continue;
    const rest = line.slice(at + name.length);
    const assign = /^(?:=|:\s+)(["']?)([^\s"']+)\1/.exec(rest);
    if (assign) return assign[2];
  }
  return undefined;
}
