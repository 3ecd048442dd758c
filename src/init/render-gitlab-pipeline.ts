import type { PipelineFacts } from './pipeline-facts.ts';

/**
 * The release pipeline `release init` writes for GitLab CI (included from the project's
 * .gitlab-ci.yml), for the config it wrote: Docker-in-Docker only for the docker engine, the
 * registry login from CI/CD variables (GitLab's own for its registry), the signing key from masked
 * variables, verify with flags that fit the config. Pure.
 */
export function renderGitlabPipeline(facts: PipelineFacts): string {
  const publish = facts.registryHost !== undefined;
  const gitlabRegistry = facts.registryHost === 'registry.gitlab.com';
  const user = gitlabRegistry ? '$CI_REGISTRY_USER' : '$REGISTRY_USERNAME';
  const password = gitlabRegistry ? '$CI_REGISTRY_PASSWORD' : '$REGISTRY_PASSWORD';
  const lines = [
    '# The release pipeline `release init` wrote for this repository (service-release); include it',
    '# from .gitlab-ci.yml: `include: [{ local: .gitlab/release.gitlab-ci.yml }]`.',
    '# main -> dev; vX.Y.Z-rc.N tags -> a signed rc; vX.Y.Z tags -> the release of that rc (no rebuild).',
    '#',
    '# Before the first release candidate (Settings > CI/CD > Variables, masked and protected):',
    '#   npx release keygen   writes release-signing.pub (commit it: signing.publicKey in the config)',
    '#                        and release-signing.key: the variable RELEASE_SIGNING_KEY (its text), and',
    '#                        its passphrase as RELEASE_SIGNING_PASSPHRASE',
    ...(publish && !gitlabRegistry
      ? [
          `#   registry login       the variables REGISTRY_USERNAME and REGISTRY_PASSWORD for ${facts.registryHost}`,
        ]
      : []),
    ...(!publish
      ? [
          '#   registry             the config names an OCI layout, which a runner throws away: set',
          '#                        `registry` and run `npx release init --force --ci gitlab`',
        ]
      : []),
    '#   verify               the variable SERVICE_URL: where the released service answers',
    'stages: [release, verify]',
    '',
    'variables:',
    "  GIT_DEPTH: '0' # git describe needs the tags",
    ...(facts.engine === 'docker' ? ['  DOCKER_HOST: tcp://docker:2375', "  DOCKER_TLS_CERTDIR: ''"] : []),
    '',
    '.release-node:',
    '  image: node:22',
    '  before_script:',
    '    - npm ci',
    ...(facts.pythonBuild
      ? [
          "    - apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null && python3 -m pip install --break-system-packages build # the CLI's build",
        ]
      : []),
    ...(facts.installDockerode
      ? ['    - npm install --no-save dockerode@4 # the docker engine, an optional peer dependency']
      : []),
    ...(publish
      ? [
          '    # Registry credentials as docker login writes them (release reads the docker config).',
          '    - mkdir -p ~/.docker',
          `    - printf '{"auths":{"%s":{"auth":"%s"}}}' "${facts.registryHost}" "$(printf '%s:%s' "${user}" "${password}" | base64 -w0)" > ~/.docker/config.json`,
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
    '    - if: $CI_COMMIT_TAG =~ /^v\\d+\\.\\d+\\.\\d+(-rc\\.\\d+)?$/',
    '  script:',
    ...(facts.engine === 'oci' ? ['    - npx release base-image'] : []),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion in the job's script
    '    - SERVICE_VERSION="${CI_COMMIT_TAG:-}" npx release stamp --json > stamp.json',
    '    - channel=$(node -p "require(\'./stamp.json\').channel")',
    '    - tag=$(node -p "require(\'./stamp.json\').tag")',
    `    - if [ "$channel" != release ]; then npx release build --engine ${facts.engine}${publish ? ' --push' : ''} --json; fi`,
  ];
  if (publish)
    lines.push(
      '    - |',
      '      case "$channel" in',
      '        dev) npx release promote --channel dev --json ;;',
      '        rc) npx release promote --channel rc --json ;;',
      '        release)',
      '          rc=$(git tag --list "$tag-rc.*" --sort=-v:refname | head -n 1)',
      '          npx release promote --channel release --from "$rc" --version "$tag" --json ;;',
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
      `    - npx release verify --url "$SERVICE_URL"${facts.web ? ' --web-url "$SERVICE_URL"' : ''} --expect "$CI_COMMIT_TAG" --registry --require-signature --no-cli --json`,
    );
  return `${lines.join('\n')}\n`;
}
