/**
 * The Node.js version a repository pins, for the CI init writes: `.nvmrc`, `.node-version`, then
 * package.json's `volta.node` and `engines.node`. The toolkit itself needs Node 20.19 or later: a
 * pin below that is named and the CI runs the toolkit's own default instead. Pure.
 */
export interface NodeVersion {
  /** For `node-version:` of setup-node (a version or a range it resolves). */
  version: string;
  /** setup-node's `node-version-file:` when the pin is a file of its own it reads as it stands. */
  file?: string;
  /** For a `node:<tag>` image (GitLab): a tag Docker Hub's node image has. */
  imageTag: string;
  from: string;
  /** The pin is older than the toolkit runs on: what the CI runs instead, and why. */
  tooOld?: string;
}

export const DEFAULT_NODE = '22';
// What a version pin is written with; anything else (it is pasted into comments) is not read.
const PIN = /^[\w.*/<>=^~| -]{1,40}$/;
// The oldest Node the toolkit runs on (its package.json engines).
const MINIMUM: [number, number] = [20, 19];

export function nodeVersion(read: (path: string) => string | undefined): NodeVersion {
  for (const file of ['.nvmrc', '.node-version']) {
    const text = read(file);
    if (text === undefined) continue;
    const pin = text
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .find(Boolean);
    if (pin && PIN.test(pin)) return judged(pin, `${file} (${pin})`, file);
  }
  let pkg: { volta?: { node?: unknown }; engines?: { node?: unknown } } = {};
  try {
    pkg = JSON.parse(read('package.json') ?? '') as typeof pkg;
  } catch {}
  const volta = pkg.volta?.node;
  if (typeof volta === 'string' && PIN.test(volta))
    return judged(volta, `package.json volta.node (${volta})`);
  const engines = pkg.engines?.node;
  if (typeof engines === 'string' && PIN.test(engines))
    return judged(engines, `package.json engines.node (${engines})`);
  return { version: DEFAULT_NODE, imageTag: DEFAULT_NODE, from: 'no Node version pinned: 22' };
}

// The first Node major that ships without corepack.
const NO_COREPACK = 25;

/**
 * Whether the Node a pipeline runs still bundles corepack: a pinned major below 25. An alias
 * (`lts/*`, `node`, a codename) may be newer, so it counts as not bundling it.
 */
export function bundlesCorepack(node: NodeVersion): boolean {
  const major = /^(\d+)/.exec(node.imageTag);
  return major !== null && Number(major[1]) < NO_COREPACK;
}

function judged(pin: string, from: string, file?: string): NodeVersion {
  const spec = pin.replace(/^v(?=\d)/, '');
  // lts/*, lts/iron, node, a codename: setup-node reads them from the file; the image takes lts.
  if (/^(lts\/\*|node|latest|current)$/i.test(spec))
    return { version: file ? spec : 'lts/*', ...(file ? { file } : {}), imageTag: 'lts', from };
  const codename = /^lts\/([a-z]+)$/i.exec(spec);
  if (codename)
    return { version: spec, ...(file ? { file } : {}), imageTag: codename[1]!.toLowerCase(), from };
  // The lowest version the pin allows (`>=20.11`, `^20.11.1`, `20.x`, `22`): below the minimum?
  const lowest = /(\d+)(?:\.(\d+|x|\*))?/.exec(spec);
  if (!lowest) return { version: DEFAULT_NODE, imageTag: DEFAULT_NODE, from: `${from}, not read: 22` };
  const major = Number(lowest[1]);
  const minor = Number.isNaN(Number(lowest[2])) ? 0 : Number(lowest[2] ?? 0);
  // A range that allows newer majors (`>=18`) is satisfied by the default.
  const openEnded = /^>=?\s*\d/.test(spec) && !/</.test(spec);
  if (
    major < MINIMUM[0] ||
    (major === MINIMUM[0] && minor < MINIMUM[1] && /^\d/.test(spec) && spec.split('.').length >= 2)
  ) {
    if (openEnded) return { version: DEFAULT_NODE, imageTag: DEFAULT_NODE, from: `${from}: 22 fits it` };
    return {
      version: DEFAULT_NODE,
      imageTag: DEFAULT_NODE,
      from,
      tooOld: `${from} is older than service-release runs on (Node ${MINIMUM.join('.')} or later): its release job runs Node ${DEFAULT_NODE}`,
    };
  }
  if (openEnded) return { version: DEFAULT_NODE, imageTag: DEFAULT_NODE, from: `${from}: 22 fits it` };
  const exact = /^\d+(\.\d+){0,2}$/.test(spec);
  return {
    version: exact ? spec : `${major}`,
    ...(file && exact ? { file } : {}),
    imageTag: exact ? spec : `${major}`,
    from,
  };
}
