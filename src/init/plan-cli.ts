import type { Detection } from './detect.ts';
import type { InitPlan, PlannedArtifact } from './init-plan.ts';
import { repositoryName } from './repository-name.ts';

// What `cli.bin` accepts: a command name, no path (src/config/artifacts-schema.ts).
const BIN = /^[A-Za-z0-9_@][A-Za-z0-9._@+-]{0,63}$/;

/**
 * The `cli` artifact `release init` plans: the project's own CLI build first (scripts/build-cli.*,
 * a script named for the CLI), then a guess by the packaging tool of the CLI's language (pyproject
 * scripts, a package.json bin), which `release build` refuses when it packages no code. Pure.
 */
export function cliArtifact(
  detection: Detection,
  prefix: string,
  plan: InitPlan,
  tags: readonly string[] = [],
): PlannedArtifact {
  const script = detection.buildScripts.find((s) => s.artifact === 'cli');
  const named = detection.cliScripts[0];
  // A package named for a CLI (`packages/acme-cli`, `@acme/cli`) before any other with a bin.
  const pick = <T extends { dir: string }>(list: T[], name: (t: T) => string): T | undefined =>
    list.find((c) => CLI_WORD.test(c.dir) || CLI_WORD.test(name(c))) ?? list[0];
  const pythonPick = pick(detection.pythonClis, (c) => c.project);
  const nodePick = pick(detection.nodeBins, (c) => c.package);
  const goPick = detection.goClis[0];
  // The one named for a CLI wins across languages; else Python, Node, then Go, as before.
  const named3 = [
    pythonPick && (CLI_WORD.test(pythonPick.dir) || CLI_WORD.test(pythonPick.project)) ? 'python' : undefined,
    nodePick && (CLI_WORD.test(nodePick.dir) || CLI_WORD.test(nodePick.package)) ? 'node' : undefined,
    goPick ? 'go' : undefined,
  ].find(Boolean);
  const kind = named3 ?? (pythonPick ? 'python' : nodePick ? 'node' : undefined);
  const python = kind === 'python' ? pythonPick : undefined;
  const node = kind === 'node' ? nodePick : undefined;
  const go = kind === 'go' ? goPick : undefined;
  if (!script && !named && !python && !node && !go)
    return {
      name: 'cli',
      value: false,
      notes: [
        'no CLI found (package.json "bin", pyproject.toml scripts, a Go cmd/*cli*/main.go, scripts/build-cli.*)',
      ],
    };
  const value: Record<string, unknown> = {};
  const notes: string[] = [];
  const archiveName = script?.archive
    ?.split('/')
    .pop()
    ?.replace(/\.(tar\.gz|tgz)$/, '');
  const goPackage = go ? repositoryName(go.name) : undefined;
  const pkg = archiveName ?? python?.project ?? node?.package ?? goPackage ?? `${prefix}-cli`;
  value['package'] = pkg;
  if (python) {
    notes.push(`found: ${python.dir}/pyproject.toml, a Python CLI (${python.scripts.join(', ')})`);
    plan.found.push(
      `${python.dir === '.' ? '' : `${python.dir}/`}pyproject.toml: Python CLI ${python.scripts.join(', ')}`,
    );
    value['installCommand'] = 'pipx install --force {url}';
    if (BIN.test(python.scripts[0] ?? '')) value['bin'] = python.scripts[0];
  } else if (node) {
    notes.push(`found: ${node.dir}/package.json bin ${node.bins.join(', ')}`);
    plan.found.push(`${node.dir === '.' ? '' : `${node.dir}/`}package.json: bin ${node.bins.join(', ')}`);
    if (BIN.test(node.bins[0] ?? '')) value['bin'] = node.bins[0];
  } else if (go) {
    const bin = goBinary(detection, go) ?? go.name;
    notes.push(`found: ${go.dir}/main.go, a Go CLI (${bin})`);
    plan.found.push(`${go.dir}/main.go: Go CLI ${bin}`);
    if (BIN.test(bin)) value['bin'] = bin;
    // A Go binary in a tar.gz, installed by unpacking it onto PATH.
    value['installCommand'] = `sh -c 'curl -fsSL {url} | tar -xz -C "$HOME/.local/bin" ${bin}'`;
  }
  const own = ownVersionLine(python?.version ?? node?.version, tags);
  if (own) {
    const where = python ? `${python.dir}/pyproject.toml` : `${node!.dir}/package.json`;
    notes.push(
      `its own version line: ${where} says ${own.version}, not a tag of this repository (newest ${own.newest}); release stamps the service's version into it unless the config says the CLI keeps its own`,
    );
    plan.found.push(
      `${where}: version ${own.version}, not one of the repository's tags (newest ${own.newest}): the CLI has its own version line`,
    );
    plan.todo.push(
      `artifacts.cli: its own version line (${own.version}, the tags are at ${own.newest}); keep it with cli: { version: 'own' } where your toolkit has that key, or build it at the service's version`,
    );
  }
  if (script?.archive) {
    value['build'] = { command: script.command, archive: script.archive };
    notes.push(`build: ${script.path} writes ${script.archive}`);
    plan.found.push(`${script.path}: builds the CLI archive ${script.archive}`);
  } else if (script || named) {
    // The project's own CLI build, before any guess: only the archive it writes is to confirm.
    const path = script?.path ?? named!;
    const command = script?.command ?? [interpreterOf(path), path];
    const archive = `dist/${repositoryName(pkg)}.tar.gz`;
    value['build'] = { command, archive };
    notes.push(`build: ${path}, the project's own CLI build (its archive path is a guess: check it)`);
    plan.found.push(`${path}: builds the CLI`);
    plan.todo.push(`artifacts.cli.build.archive: the archive ${path} writes (guessed ${archive})`);
  } else {
    // A build is needed whenever the API image is built (it serves the archive): the packaging
    // tool of the CLI's own language, renamed to one archive name the config can give.
    const archive = `dist/${repositoryName(pkg)}.tar.gz`;
    const bin = go ? (goBinary(detection, go) ?? go.name) : '';
    const command = python
      ? `python3 -m build --sdist --outdir dist/cli-build ${python.dir} && mv dist/cli-build/*.tar.gz ${archive} && rm -rf dist/cli-build`
      : go
        ? `mkdir -p dist/cli-build && CGO_ENABLED=0 go build -o dist/cli-build/${bin} ./${go.dir} && tar -czf ${archive} -C dist/cli-build ${bin} && rm -rf dist/cli-build`
        : `mkdir -p dist/cli-build && npm pack ${node!.dir === '.' ? '' : `./${node!.dir} `}--pack-destination dist/cli-build && mv dist/cli-build/*.tgz ${archive} && rm -rf dist/cli-build`;
    value['build'] = { command: ['sh', '-c', command], archive };
    notes.push(
      python
        ? 'build: guessed, an sdist by python -m build (pip install build); stamp SERVICE_VERSION into its version'
        : go
          ? 'build: guessed, go build into a tar.gz; pass SERVICE_VERSION with -ldflags "-X <package>.Version=…"'
          : 'build: guessed, the package by npm pack; stamp SERVICE_VERSION into its version',
    );
    plan.guessed.push(
      `artifacts.cli.build: ${python ? 'python3 -m build --sdist' : go ? 'go build' : 'npm pack'}, renamed to ${archive}`,
    );
    plan.todo.push('artifacts.cli.build: bake the release version (SERVICE_VERSION) into the CLI it builds');
  }
  if (!archiveName) plan.guessed.push(`artifacts.cli.package: "${pkg}"`);
  return { name: 'cli', value, notes };
}

// `cli` as a word of a folder or package name (`acme-cli`, `@acme/cli`, `cli/`), not inside one (`client`).
const CLI_WORD = /(?:^|[-_/@.])cli(?:$|[-_/.])/;
const RELEASE_TAG = /^v?(\d+\.\d+\.\d+)$/;

/** The CLI's package version when no tag of the repository is at it: a version line of its own. */
function ownVersionLine(
  version: string | undefined,
  tags: readonly string[],
): { version: string; newest: string } | undefined {
  const released = tags.filter((t) => RELEASE_TAG.test(t));
  if (!version || !released.length || /^0\.0\.0(?:$|-)/.test(version)) return undefined;
  if (released.some((t) => RELEASE_TAG.exec(t)![1] === version)) return undefined;
  return { version, newest: released[0]! };
}

/** The binary name a goreleaser file in the CLI's folder (or the top) gives its build. */
function goBinary(detection: Detection, go: { dir: string }): string | undefined {
  const release =
    detection.goreleaser.find((g) => g.dir === go.dir) ?? detection.goreleaser.find((g) => g.dir === '.');
  return release?.builds.find((b) => !b.main || b.main.includes(go.dir) || release.dir === go.dir)?.binary;
}

function interpreterOf(path: string): string {
  if (path.endsWith('.py')) return 'python3';
  if (path.endsWith('.sh')) return 'sh';
  return 'node';
}
