/**
 * Secrets that must never reach a log, an error or `--json`. Adapters that read credentials
 * (registry passwords, tokens, key passphrases) register them here as soon as they have them; every
 * line the command line prints goes through `redact`.
 */
const secrets = new Set<string>();

export function registerSecret(value: string | undefined): void {
  // Very short values would blank out ordinary words; no real credential is this short.
  if (value && value.length >= 4) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  // Credentials embedded in URLs (https://user:pass@host) are hidden even if never registered.
  return out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, '$1***:***@');
}
