// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are GitHub expressions and shell variables
/**
 * What the CI must log into a registry with, by the registry: ghcr.io takes a GitHub workflow's own
 * token (with `packages: write`), GitLab's registry a GitLab job's own credentials; Docker Hub, Amazon
 * ECR, Google Artifact Registry and the rest a pair of secrets named here (never their values).
 * Pure.
 */
export interface RegistryLogin {
  host: string;
  kind: 'ghcr' | 'gitlab' | 'dockerhub' | 'ecr' | 'gar' | 'other';
  /** The secrets (GitHub) or CI/CD variables (GitLab) the login reads; none for ghcr.io's token. */
  secrets: { username: string; password: string } | undefined;
  /** docker/login-action's `registry:` (Docker Hub is its default: left out). */
  loginRegistry?: string;
  /** A fixed user name instead of a secret (Artifact Registry's `_json_key`). */
  username?: string;
}

export function registryLogin(host: string): RegistryLogin {
  if (host === 'ghcr.io') return { host, kind: 'ghcr', secrets: undefined, loginRegistry: host };
  // GitLab's own jobs log in with CI_REGISTRY_USER/CI_REGISTRY_PASSWORD; the secrets are for GitHub.
  if (host === 'registry.gitlab.com')
    return {
      host,
      kind: 'gitlab',
      secrets: { username: 'REGISTRY_USERNAME', password: 'REGISTRY_PASSWORD' },
      loginRegistry: host,
    };
  if (host === 'docker.io' || host === 'index.docker.io' || host === 'registry-1.docker.io')
    return {
      host: 'docker.io',
      kind: 'dockerhub',
      secrets: { username: 'DOCKERHUB_USERNAME', password: 'DOCKERHUB_TOKEN' },
    };
  if (/^\d+\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com$/.test(host))
    return {
      host,
      kind: 'ecr',
      secrets: { username: 'AWS_ACCESS_KEY_ID', password: 'AWS_SECRET_ACCESS_KEY' },
      loginRegistry: host,
    };
  if (/(^|\.)(gcr\.io|[a-z0-9-]+-docker\.pkg\.dev)$/.test(host))
    return {
      host,
      kind: 'gar',
      secrets: { username: '', password: 'GCP_SERVICE_ACCOUNT_KEY' },
      loginRegistry: host,
      username: '_json_key',
    };
  return {
    host,
    kind: 'other',
    secrets: { username: 'REGISTRY_USERNAME', password: 'REGISTRY_PASSWORD' },
    loginRegistry: host,
  };
}
