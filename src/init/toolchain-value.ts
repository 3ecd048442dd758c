/**
 * The value of a toolchain's version build arg (`GO_VERSION`) as the repository pins it, for a
 * Dockerfile that has no usable default (`ARG GO_VERSION=PLEASE_PROVIDE_GO_VERSION`, or none):
 * a file named after the arg at the top (`GO_VERSION`), the tool's own version file
 * (`.go-version`, `.python-version`, `.nvmrc`), asdf's `.tool-versions`, then go.mod's
 * `toolchain`/`go` line for Go. Pure: `read` gives a top-level file's text.
 */
export interface ToolchainValue {
  value: string;
  from: string;
}

// What a version is written as; anything else is not pasted into a build arg.
const VALUE = /^v?\d+(?:\.\d+){0,3}(?:[-+][\w.-]{1,40})?$/;
// The tool a `<TOOL>_VERSION` names, as its version files and asdf name it.
const FILES: Record<string, { files: string[]; asdf: string[] }> = {
  GO: { files: ['.go-version'], asdf: ['golang', 'go'] },
  GOLANG: { files: ['.go-version'], asdf: ['golang', 'go'] },
  NODE: { files: ['.nvmrc', '.node-version'], asdf: ['nodejs', 'node'] },
  NODEJS: { files: ['.nvmrc', '.node-version'], asdf: ['nodejs', 'node'] },
  PYTHON: { files: ['.python-version'], asdf: ['python'] },
  RUBY: { files: ['.ruby-version'], asdf: ['ruby'] },
  RUST: { files: ['rust-toolchain'], asdf: ['rust'] },
  JAVA: { files: ['.java-version'], asdf: ['java'] },
};

export function toolchainValue(
  name: string,
  read: (path: string) => string | undefined,
): ToolchainValue | undefined {
  const own = firstLine(read(name));
  if (own && VALUE.test(own)) return { value: own, from: name };
  const tool = name.replace(/_VERSION$/, '');
  const known = FILES[tool];
  for (const file of known?.files ?? []) {
    const value = firstLine(read(file))?.replace(/^v(?=\d)/, '');
    if (value && VALUE.test(value)) return { value, from: file };
  }
  const asdf = read('.tool-versions');
  if (asdf && known)
    for (const line of asdf.split('\n').slice(0, 200)) {
      const [plugin, value] = line.trim().split(/\s+/);
      if (plugin && value && known.asdf.includes(plugin) && VALUE.test(value))
        return { value, from: `.tool-versions (${plugin})` };
    }
  if (tool === 'GO' || tool === 'GOLANG') {
    const mod = read('go.mod') ?? '';
    const lines = mod
      .split('\n')
      .slice(0, 400)
      .map((l) => l.trim());
    const toolchain = lines.find((l) => l.startsWith('toolchain go'))?.slice('toolchain go'.length);
    if (toolchain && VALUE.test(toolchain)) return { value: toolchain, from: 'go.mod (toolchain)' };
    const go = lines
      .find((l) => /^go\s/.test(l))
      ?.slice(2)
      .trim();
    if (go && VALUE.test(go)) return { value: go, from: 'go.mod (go)' };
  }
  return undefined;
}

function firstLine(text: string | undefined): string | undefined {
  if (text === undefined || text.length > 4096) return undefined;
  return text
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .find(Boolean);
}
