import { bundlesCorepack } from './node-version.ts';
import { execCommand, installCommand } from './package-manager.ts';
import { type PipelineFacts, webUrlFlags } from './pipeline-facts.ts';
import { gitlabTagRegex } from './tag-scheme.ts';

/**
 * The release pipeline `release init` writes for GitLab CI (included from the project's
 * .gitlab-ci.yml), for the config it wrote and the repository it is in: the repository's Node
 * image and package manager (frozen to its lockfile), its tag scheme, Docker-in-Docker only for
 * the docker engine, the registry login from CI/CD variables (GitLab's own for its registry), the
 * signing key from masked variables, verify with flags that fit the config. Pure.
 */
export function renderGitlabPipeline(facts: PipelineFacts): string {
  const publish = facts.registryHost !== undefined;
  const login = facts.login;
  const gitlabRegistry = login?.kind === 'gitlab';
  const secrets = login?.secrets ?? { username: 'REGISTRY_USERNAME', password: 'REGISTRY_PASSWORD' };
  const user = gitlabRegistry ? '$CI_REGISTRY_USER' : (login?.username ?? `$${secrets.username}`);
  const password = gitlabRegistry ? '$CI_REGISTRY_PASSWORD' : `$${secrets.password}`;
  const release = execCommand(facts.manager, 'release');
  const { manager } = facts;
  // Node 25 and later ship without corepack: installed first there.
  const corepack = [
    ...(bundlesCorepack(facts.node) ? [] : ['    - npm install --global corepack@latest']),
    '    - corepack enable',
  ];
  const lines = [
    '# The release pipeline `release init` wrote for this repository (service-release); include it',
    '# from .gitlab-ci.yml (`include: [{ local: <the path of this file> }]`).',
    `# main -> dev; ${facts.tags.example}-rc.N tags -> a signed rc; ${facts.tags.example} tags -> the release of that rc (no rebuild).`,
    '#',
    '# Before the first release candidate (Settings > CI/CD > Variables, masked and protected):',
    `${`#   ${release} keygen`.padEnd(24)} ` +
      'writes release-signing.pub (commit it: signing.publicKey in the config)',
    '#                        and release-signing.key: the variable RELEASE_SIGNING_KEY (its text), and',
    '#                        its passphrase as RELEASE_SIGNING_PASSPHRASE',
    ...(publish && !gitlabRegistry
      ? [
          `#   registry login       the variables ${[login?.username ? '' : secrets.username, secrets.password].filter(Boolean).join(' and ')} for ${facts.registryHost}`,
        ]
      : []),
    ...(!publish
      ? [
          '#   registry             the config names an OCI layout, which a runner throws away: set',
          `#                        \`registry\` and run \`${release} init --force --ci gitlab\``,
        ]
      : []),
    ...(facts.installDockerode && manager.name !== 'npm'
      ? [
          `#   dockerode            the docker engine needs it: add it with ${manager.name} (dockerode@4) and commit the lockfile`,
        ]
      : []),
    '#   verify               the variable SERVICE_URL: where the released service answers',
    `# Install: ${manager.name} (${manager.from}); Node: ${facts.node.from}; tags: ${facts.tags.from}.`,
    ...(facts.node.tooOld ? [`# ${facts.node.tooOld}.`] : []),
    'stages: [release, verify]',
    '',
    'variables:',
    "  GIT_DEPTH: '0' # git describe needs the tags",
    ...(facts.engine === 'docker' ? ['  DOCKER_HOST: tcp://docker:2375', "  DOCKER_TLS_CERTDIR: ''"] : []),
    '',
    '.release-node:',
    `  image: node:${facts.node.imageTag}`,
    '  before_script:',
    ...(manager.name === 'pnpm'
      ? manager.pinned
        ? corepack
        : [`    - npm install --global pnpm@${manager.major ?? 10}`]
      : manager.name === 'yarn' && manager.berry
        ? corepack
        : []),
    `    - ${installCommand(manager)}`,
    ...(facts.pythonBuild
      ? [
          "    - apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null && python3 -m pip install --break-system-packages build # the CLI's build",
        ]
      : []),
    ...(facts.installDockerode && manager.name === 'npm'
      ? ['    - npm install --no-save dockerode@4 # the docker engine, an optional peer dependency']
      : []),
    ...(publish
      ? [
          '    # Registry credentials as docker login writes them (release reads the docker config).',
          '    - mkdir -p ~/.docker',
          `    - printf '{"auths":{"%s":{"auth":"%s"}}}' "${facts.registryHost === 'docker.io' ? 'https://index.docker.io/v1/' : facts.registryHost}" "$(printf '%s:%s' "${user}" "${password}" | base64 -w0)" > ~/.docker/config.json`,
        ]
      : []),
    '',
    'release:',
    '  extends: .release-node',
    '  stage: release',
    ...(facts.engine === 'docker' ? ['  services: [docker:27-dind]'] : []),
    '  # One at a time: promote converges by itself, this keeps the logs simple.',
    '  resource_group: release-promote',
    '  rules:',
    '    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH',
    `    - if: $CI_COMMIT_TAG =~ ${gitlabTagRegex(facts.tags)}`,
    '  script:',
    ...(facts.engine === 'oci' ? [`    - ${release} base-image`] : []),
    `    - SERVICE_VERSION="\${CI_COMMIT_TAG:-}" ${release} stamp --json > stamp.json`,
    '    - channel=$(node -p "require(\'./stamp.json\').channel")',
    `    - if [ "$channel" != release ]; then ${release} build --engine ${facts.engine}${publish ? ' --push' : ''} --json; fi`,
  ];
  if (publish)
    lines.push(
      '    # A release: the newest rc of the tag pushed (the tag as pushed, -rc.N after it).',
      '    - |',
      '      case "$channel" in',
      `        dev) ${release} promote --channel dev --json ;;`,
      `        rc) ${release} promote --channel rc --json ;;`,
      '        release)',
      '          rc=$(git tag --list "$CI_COMMIT_TAG-rc.*" --sort=-v:refname | head -n 1)',
      '          if [ -z "$rc" ]; then echo "no release candidate $CI_COMMIT_TAG-rc.N to release" >&2; exit 1; fi',
      `          ${release} promote --channel release --from "$rc" --version "$CI_COMMIT_TAG" --json ;;`,
      '      esac',
    );
  lines.push('  artifacts:', '    paths: [dist/release.json]');
  if (publish)
    lines.push(
      '',
      'verify:',
      '  extends: .release-node',
      '  stage: verify',
      '  rules:',
      '    - if: $CI_COMMIT_TAG && $SERVICE_URL',
      '  script:',
      '    # --no-cli: the operator CLI is not installed on a runner (its gate checks it against the API).',
      `    - ${release} verify --url "$SERVICE_URL"${webUrlFlags(facts)} --expect "$CI_COMMIT_TAG" --registry --require-signature --no-cli --json`,
    );
  return `${lines.join('\n')}\n`;
}
