// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are GitHub expressions, ${{ }} is theirs
import { bundlesCorepack } from './node-version.ts';
import { execCommand, installCommand } from './package-manager.ts';
import { type PipelineFacts, webUrlFlags, webUrlVariables } from './pipeline-facts.ts';
import { githubTagFilters } from './tag-scheme.ts';

/**
 * The release workflow `release init` writes for GitHub Actions, for the config it wrote and the
 * repository it is in: it installs with the repository's package manager (frozen to its lockfile)
 * and Node, runs on the repository's tags (with or without a `v`), logs into the registry the
 * config names, signs release candidates with the key from named secrets, and verifies with flags
 * that fit the config. Checked by actionlint in test/init/pipelines.test.ts. Pure.
 */
export function renderGithubWorkflow(facts: PipelineFacts): string {
  const login = facts.login;
  const ghcr = login?.kind === 'ghcr';
  const publish = facts.registryHost !== undefined;
  const release = execCommand(facts.manager, 'release');
  const [releaseTag, rcTag] = githubTagFilters(facts.tags);
  const lines = [
    '# The release workflow `release init` wrote for this repository (service-release).',
    `# main -> the dev channel; a ${facts.tags.example}-rc.N tag -> a signed release candidate; a ${facts.tags.example}`,
    "# tag -> the release of that rc's exact digests (no rebuild).",
    '#',
    '# Before the first release candidate:',
    `${`#   ${release} keygen`.padEnd(26)} ` +
      'writes release-signing.pub (commit it: signing.publicKey in the config)',
    '#                          and release-signing.key: store it as the secret RELEASE_SIGNING_KEY,',
    '#                          and its passphrase as the secret RELEASE_SIGNING_PASSPHRASE',
    ...(login?.secrets
      ? [
          `#   registry login         the secrets ${[login.secrets.username, login.secrets.password].filter(Boolean).join(' and ')} for ${login.host}`,
        ]
      : []),
    ...(ghcr ? ['#   registry login         ghcr.io takes the workflow token (packages: write below)'] : []),
    ...(!publish
      ? [
          '#   registry               the config names an OCI layout, which a runner throws away: set',
          `#                          \`registry\` (e.g. "ghcr.io/<org>") and run \`${release} init --force\``,
        ]
      : []),
    ...(facts.installDockerode && facts.manager.name !== 'npm'
      ? [
          `#   dockerode              the docker engine needs it: \`${facts.manager.name === 'pnpm' ? 'pnpm add -D -w' : facts.manager.berry ? 'yarn add -D' : 'yarn add -D -W'} dockerode@4\`,`,
          '#                          committed with the lockfile (this workflow installs from the lockfile only)',
        ]
      : []),
    '#   verify                 the secret SERVICE_URL: where the released service answers (a secret,',
    '#                          not a variable: the actionlint we check this file with predates `vars`)',
    ...webUrlVariables(facts)
      .filter((w) => w.variable !== 'SERVICE_URL')
      .map(
        (w) => `#                          the secret ${w.variable}: where the web client ${w.name} answers`,
      ),
    `# Install: ${facts.manager.name} (${facts.manager.from}); Node: ${facts.node.from}; tags: ${facts.tags.from}.`,
    ...(facts.node.tooOld ? [`# ${facts.node.tooOld}.`] : []),
    'name: release',
    '',
    'on:',
    '  push:',
    '    branches: [main]',
    `    tags: ['${releaseTag}', '${rcTag}']`,
    '',
    'permissions:',
    '  contents: read',
    ...(ghcr ? ['  packages: write'] : []),
    '',
    'jobs:',
    '  release:',
    '    runs-on: ubuntu-latest',
    '    # `release promote` converges under concurrent runs by itself; one at a time keeps logs simple.',
    '    # Never cancel a promotion under way.',
    '    concurrency:',
    '      group: release-promote-${{ github.repository }}',
    '      cancel-in-progress: false',
    '    steps:',
    '      - uses: actions/checkout@v4',
    '        with:',
    '          fetch-depth: 0 # git describe needs the tags; a shallow clone gives a bare hash',
    '',
    ...setupSteps(facts),
  ];
  if (facts.pythonBuild)
    lines.push(
      '',
      "      # The CLI's build runs python -m build.",
      '      - uses: actions/setup-python@v5',
      '        with:',
      "          python-version: '3.12'",
      '      - run: python3 -m pip install build',
    );
  if (facts.installDockerode && facts.manager.name === 'npm')
    lines.push(
      '',
      '      # The docker engine is driven through dockerode, an optional peer dependency of service-release.',
      '      - run: npm install --no-save dockerode@4',
    );
  if (facts.engine === 'oci')
    lines.push(
      '',
      '      # The node base the daemonless builds start from, made from this runner.',
      `      - run: ${release} base-image`,
    );
  if (publish) lines.push('', ...loginStep(facts, '      '));
  lines.push(
    '',
    '      # On a tag the version is the tag pushed; on main git describe decides. Outputs: version, tag, channel.',
    '      - id: stamp',
    '        env:',
    "          SERVICE_VERSION: ${{ github.ref_type == 'tag' && github.ref_name || '' }}",
    `        run: ${release} stamp --json`,
    '',
    "      # A full release is not rebuilt: it promotes the tested rc's digests below.",
    "      - if: steps.stamp.outputs.channel != 'release'",
    `        run: ${release} build --engine ${facts.engine}${publish ? ' --push' : ''} --json`,
  );
  if (publish)
    lines.push(
      '',
      '      - name: dev channel',
      "        if: steps.stamp.outputs.channel == 'dev'",
      `        run: ${release} promote --channel dev --json`,
      '',
      '      - name: release candidate (tagged and signed)',
      "        if: steps.stamp.outputs.channel == 'rc'",
      '        env:',
      '          RELEASE_SIGNING_KEY: ${{ secrets.RELEASE_SIGNING_KEY }}',
      '          RELEASE_SIGNING_PASSPHRASE: ${{ secrets.RELEASE_SIGNING_PASSPHRASE }}',
      `        run: ${release} promote --channel rc --json`,
      '',
      '      # The newest rc of the tag pushed (its own scheme: the tag as pushed, -rc.N after it),',
      '      # re-stamped to report the tag (its code layers unchanged) and signed.',
      '      - name: full release',
      "        if: steps.stamp.outputs.channel == 'release'",
      '        env:',
      '          RELEASE_SIGNING_KEY: ${{ secrets.RELEASE_SIGNING_KEY }}',
      '          RELEASE_SIGNING_PASSPHRASE: ${{ secrets.RELEASE_SIGNING_PASSPHRASE }}',
      '          TAG: ${{ github.ref_name }}',
      '        run: |',
      '          rc=$(git tag --list "$TAG-rc.*" --sort=-v:refname | head -n 1)',
      '          if [ -z "$rc" ]; then echo "::error::no release candidate $TAG-rc.N to release"; exit 1; fi',
      `          ${release} promote --channel release --from "$rc" --version "$TAG" --json`,
      '',
      '  # After the deployment rolls out: API, worker and web in step with the tag, signatures checked.',
      '  verify:',
      '    needs: release',
      "    if: github.ref_type == 'tag'",
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: actions/checkout@v4',
      ...setupSteps(facts),
      ...loginStep(facts, '      '),
      '      # --no-cli: the operator CLI is not installed on a runner (its gate checks it against the API).',
      '      - env:',
      '          SERVICE_URL: ${{ secrets.SERVICE_URL }}',
      // Every other web client's own address (an admin dashboard): read when its secret is set.
      ...webUrlVariables(facts)
        .filter((w) => w.variable !== 'SERVICE_URL')
        .map((w) => `          ${w.variable}: \${{ secrets.${w.variable} }}`),
      '          TAG: ${{ github.ref_name }}',
      '        run: |',
      '          if [ -z "$SERVICE_URL" ]; then echo "::notice::set the secret SERVICE_URL to verify the deployment"; exit 0; fi',
      `          ${release} verify --url "$SERVICE_URL"${webUrlFlags(facts)} --expect "$TAG" --registry --require-signature --no-cli --json`,
    );
  return `${lines.join('\n')}\n`;
}

/**
 * Node and the dependencies as the repository installs them: pnpm set up before setup-node (its
 * cache needs pnpm), Yarn 2+ through corepack (after setup-node, which has no cache for it then),
 * classic Yarn and npm as the runner has them; the lockfile frozen.
 */
function setupSteps(facts: PipelineFacts): string[] {
  const { manager, node } = facts;
  const steps: string[] = [];
  if (manager.name === 'pnpm') {
    steps.push('      - uses: pnpm/action-setup@v4');
    // Without a packageManager field the action needs a version: the lockfile's pnpm.
    if (!manager.pinned) steps.push('        with:', `          version: ${manager.major ?? 10}`);
  }
  const cache = manager.lockfile && !(manager.name === 'yarn' && manager.berry) ? manager.name : undefined;
  steps.push(
    '      - uses: actions/setup-node@v4',
    '        with:',
    node.file ? `          node-version-file: ${node.file}` : `          node-version: '${node.version}'`,
    ...(cache ? [`          cache: ${cache}`] : []),
  );
  if (manager.name === 'yarn' && manager.berry) {
    // Node 25 and later ship without corepack: installed first there.
    if (!bundlesCorepack(node)) steps.push('      - run: npm install --global corepack@latest');
    steps.push('      - run: corepack enable');
  }
  steps.push(`      - run: ${installCommand(manager)}`);
  return steps;
}

/** docker/login-action for the registry: the workflow token for ghcr.io, named secrets otherwise. */
function loginStep(facts: PipelineFacts, indent: string): string[] {
  const login = facts.login;
  if (!login) return [];
  const username =
    login.username ?? (login.secrets ? `\${{ secrets.${login.secrets.username} }}` : '${{ github.actor }}');
  const password = login.secrets
    ? `\${{ secrets.${login.secrets.password} }}`
    : '${{ secrets.GITHUB_TOKEN }}';
  return [
    `${indent}- name: registry login`,
    `${indent}  uses: docker/login-action@v3`,
    `${indent}  with:`,
    ...(login.loginRegistry ? [`${indent}    registry: ${login.loginRegistry}`] : []),
    `${indent}    username: ${username}`,
    `${indent}    password: ${password}`,
  ];
}
