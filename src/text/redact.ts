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

/*
 * A secret is masked where it stands as a value of its own, never inside another word: a
 * passphrase `signing` must not turn `release-signing.key` into `release-***.key` (which both
 * mangles the path and tells a reader the passphrase is a word of it). "Inside a word" means a
 * letter, digit, `_`, `-` or `.` right before it, or one of those right after it (a `.` only when
 * more of the word follows, so a secret that ends a sentence is still masked). Quotes, spaces,
 * `=`, `:`, `@`, `/`, commas and brackets end a value, so `password=...`, `"token": "..."`,
 * `user:pass@host` and paths are masked.
 */
const BEFORE = '(?<![A-Za-z0-9_.-])';
const AFTER = '(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_])';

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`${BEFORE}${escaped}${AFTER}`, 'g'), '***');
  }
  // Credentials embedded in URLs (https://user:pass@host) are hidden even if never registered.
  return out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, '$1***:***@');
}
