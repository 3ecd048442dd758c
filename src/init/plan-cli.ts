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
export function cliArtifact(detection: Detection, prefix: string, plan: InitPlan): PlannedArtifact {
  const script = detection.buildScripts.find((s) => s.artifact === 'cli');
  const python = detection.pythonClis[0];
  const node = detection.nodeBins[0];
  const named = detection.cliScripts[0];
  if (!script && !named && !python && !node)
    return {
      name: 'cli',
      value: false,
      notes: ['no CLI found (package.json "bin", pyproject.toml scripts, scripts/build-cli.*)'],
    };
  const value: Record<string, unknown> = {};
  const notes: string[] = [];
  const archiveName = script?.archive
    ?.split('/')
    .pop()
    ?.replace(/\.(tar\.gz|tgz)$/, '');
  const pkg = archiveName ?? python?.project ?? node?.package ?? `${prefix}-cli`;
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
    const command = python
      ? `python3 -m build --sdist --outdir dist/cli-build ${python.dir} && mv dist/cli-build/*.tar.gz ${archive} && rm -rf dist/cli-build`
      : `mkdir -p dist/cli-build && npm pack ${node!.dir === '.' ? '' : `./${node!.dir} `}--pack-destination dist/cli-build && mv dist/cli-build/*.tgz ${archive} && rm -rf dist/cli-build`;
    value['build'] = { command: ['sh', '-c', command], archive };
    notes.push(
      python
        ? 'build: guessed, an sdist by python -m build (pip install build); stamp SERVICE_VERSION into its version'
        : 'build: guessed, the package by npm pack; stamp SERVICE_VERSION into its version',
    );
    plan.guessed.push(
      `artifacts.cli.build: ${python ? 'python3 -m build --sdist' : 'npm pack'}, renamed to ${archive}`,
    );
    plan.todo.push('artifacts.cli.build: bake the release version (SERVICE_VERSION) into the CLI it builds');
  }
  if (!archiveName) plan.guessed.push(`artifacts.cli.package: "${pkg}"`);
  return { name: 'cli', value, notes };
}

function interpreterOf(path: string): string {
  if (path.endsWith('.py')) return 'python3';
  if (path.endsWith('.sh')) return 'sh';
  return 'node';
}
