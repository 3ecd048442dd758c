import * as z from 'zod';
import { ExternalError } from '../errors.ts';
import { BodyTooLargeError, readAtMost } from '../http/bounded-body.ts';
import { printable } from '../text/printable.ts';
import { registerSecret } from '../text/redact.ts';
import type { Credentials } from './credentials.ts';
import { parseJson } from './oci-schema.ts';
import { registryBaseUrl } from './registry-base-url.ts';
import type { Challenge } from './www-authenticate.ts';

/** A token answer is a few kilobytes (a JWT and its lifetime). */
const MAX_TOKEN_BYTES = 64 * 1024;

/** The token answer (docker's `token`, OAuth2's `access_token`); other fields are ignored. */
const tokenSchema = z.looseObject({
  token: z.string().min(1).max(MAX_TOKEN_BYTES).optional(),
  access_token: z.string().min(1).max(MAX_TOKEN_BYTES).optional(),
  // An odd lifetime (a string, a year and more) is not worth refusing a token for: the default then.
  expires_in: z.number().int().positive().max(31_536_000).optional().catch(undefined),
});

interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * Authorization for one registry: anonymous, basic, or the bearer token flow. It learns the scheme
 * from the first 401 challenge and from then on authorizes requests up front, so each request
 * costs one round trip; bearer tokens are cached per scope until shortly before they expire.
 */
export class RegistryAuth {
  private scheme: 'unknown' | 'basic' | 'bearer' = 'unknown';
  private bearer: { realm: string; service: string | undefined } | undefined;
  private readonly tokens = new Map<string, CachedToken>();
  /** Requests made to the token server (for benchmarks and tests). */
  tokenRequests = 0;

  constructor(
    private readonly host: string,
    private readonly credentials: () => Promise<Credentials | undefined>,
    private readonly timeoutMs: number,
    /** Hosts (`host[:port]` or `host`) that may be reached over plain http (`insecureRegistries`). */
    private readonly insecure: string[] = [],
  ) {}

  /** The Authorization header for a request needing `scopes`, when the scheme is known. */
  async header(scopes: string[]): Promise<string | undefined> {
    if (this.scheme === 'basic') return this.basicHeader();
    if (this.scheme === 'bearer') return `Bearer ${await this.token(scopes)}`;
    return undefined;
  }

  /**
   * Take a 401's challenge into account. Returns true when a retry can succeed with new
   * authorization, false when there is nothing more to try.
   */
  async challenged(challenges: Challenge[], scopes: string[], alreadyTried: boolean): Promise<boolean> {
    const bearer = challenges.find((c) => c.scheme === 'bearer');
    if (bearer?.params['realm']) {
      const realm = bearer.params['realm'];
      const asked = bearer.params['scope']?.split(' ').filter(Boolean) ?? [];
      const known = this.scheme === 'bearer';
      this.scheme = 'bearer';
      this.bearer = { realm, service: bearer.params['service'] };
      if (alreadyTried && known) return false;
      // Fetch a fresh token for the union of what we asked and what the registry said it needs.
      await this.token([...new Set([...scopes, ...asked])], true);
      return true;
    }
    if (challenges.some((c) => c.scheme === 'basic')) {
      const wasBasic = this.scheme === 'basic';
      this.scheme = 'basic';
      if (wasBasic && alreadyTried) return false;
      return Boolean(await this.basicHeader());
    }
    return false;
  }

  private async basicHeader(): Promise<string | undefined> {
    const creds = await this.credentials();
    if (creds?.kind !== 'basic') return undefined;
    const value = Buffer.from(`${creds.username}:${creds.password}`).toString('base64');
    registerSecret(value);
    return `Basic ${value}`;
  }

  private async token(scopes: string[], fresh = false): Promise<string> {
    const key = [...scopes].sort().join(' ');
    if (!fresh) {
      // A token for `repo:pull,push` also serves `repo:pull`: reuse any live token that covers.
      for (const [held, cached] of this.tokens) {
        if (cached.expiresAt > Date.now() && covers(held.split(' '), scopes)) return cached.token;
      }
    }
    const token = await this.fetchToken(scopes);
    this.tokens.set(key, token);
    return token.token;
  }

  private async fetchToken(scopes: string[]): Promise<CachedToken> {
    const { realm, service } = this.bearer!;
    let url: URL;
    try {
      url = new URL(realm);
    } catch {
      throw new ExternalError('REGISTRY_AUTH_FAILED', `${this.host} sent a token realm that is not a URL`, {
        hint: 'the registry is misconfigured (auth.token.realm); ask its operator',
      });
    }
    const refusal = realmRefusal(url, this.host, this.insecure);
    if (refusal)
      throw new ExternalError(
        'REGISTRY_REALM_REFUSED',
        `${this.host} sends its token requests to ${printable(realm)}: ${refusal}`,
        {
          hint: 'the registry credentials are not sent there; fix the registry auth.token.realm, or list that host in insecureRegistries if it is yours',
        },
      );
    const creds = await this.credentials();
    const headers: Record<string, string> = {};
    let body: URLSearchParams | undefined;
    if (creds?.kind === 'identity-token') {
      // OAuth2 refresh-token grant: what docker does with an identity token.
      body = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: creds.token,
        client_id: 'service-release',
      });
      if (service) body.set('service', service);
      body.set('scope', scopes.join(' '));
    } else {
      if (service) url.searchParams.set('service', service);
      for (const scope of scopes) url.searchParams.append('scope', scope);
      const basic = await this.basicHeader();
      if (basic) headers['authorization'] = basic;
    }
    this.tokenRequests++;
    let response: Response;
    try {
      response = await fetch(url, {
        method: body ? 'POST' : 'GET',
        headers: body ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' } : headers,
        ...(body ? { body } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ExternalError(
        'REGISTRY_AUTH_FAILED',
        `could not reach the token service of ${this.host} at ${url.origin}`,
        {
          hint: 'check the network path to the token service, or the registry auth configuration',
          cause: error,
        },
      );
    }
    const text = await readAtMost(
      response.body as unknown as AsyncIterable<Uint8Array>,
      MAX_TOKEN_BYTES,
    ).then(
      (bytes) => bytes.toString('utf8'),
      (error: unknown) => {
        const why =
          error instanceof BodyTooLargeError
            ? `an answer over the ${MAX_TOKEN_BYTES}-byte limit (cut there)`
            : (error as Error)?.name === 'TimeoutError'
              ? `no complete answer within ${this.timeoutMs} ms (cut there)`
              : 'an answer that broke off';
        return new ExternalError(
          'REGISTRY_AUTH_FAILED',
          `the token service of ${this.host} at ${url.origin} sent ${why}`,
          {
            hint: 'the registry auth service is misbehaving; ask its operator',
            cause: error,
          },
        );
      },
    );
    if (typeof text !== 'string') throw text;
    if (!response.ok) {
      throw new ExternalError(
        'REGISTRY_AUTH_FAILED',
        `the token service of ${this.host} refused ${creds ? `the credentials from ${creds.source}` : 'anonymous access'} (HTTP ${response.status})`,
        {
          hint: `log in with \`docker login ${this.host}\`, or check the user's access to these repositories`,
        },
      );
    }
    const answer = tokenSchema.safeParse(parseJson(text));
    const parsed = answer.success ? answer.data : {};
    const token = parsed.token ?? parsed.access_token;
    if (!token)
      throw new ExternalError(
        'REGISTRY_AUTH_FAILED',
        `the token service of ${this.host} answered without a token`,
        {
          hint: 'the registry auth service is misbehaving; ask its operator',
        },
      );
    registerSecret(token);
    // Docker's default lifetime is 60 s; renew 10 s early so a token never expires mid-request.
    const lifetime = Math.max(10, parsed.expires_in ?? 60) - 10;
    return { token, expiresAt: Date.now() + lifetime * 1000 };
  }
}

/**
 * Why a token realm may not receive this registry's credentials, or undefined when it may. https
 * goes anywhere (the registry chose its auth service). Plain http only where the registry itself
 * is reached over plain http (a loopback host, or one listed in insecureRegistries), and then only
 * to its own host; or to a host the user listed as insecure. A registry reached over https that
 * names an http realm, even on its own host name at another port, would have the credentials cross
 * the network in the clear: refused.
 */
export function realmRefusal(realm: URL, registryHost: string, insecure: string[]): string | undefined {
  if (realm.protocol === 'https:') return undefined;
  if (realm.protocol !== 'http:') return `a ${realm.protocol} URL is not a token service`;
  const own = registryHost.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const name = realm.hostname.replace(/^\[|\]$/g, '');
  if (insecure.includes(realm.host) || insecure.includes(name)) return undefined;
  const plainRegistry = registryBaseUrl(registryHost, insecure).startsWith('http:');
  if (!plainRegistry)
    return `plain http for a registry reached over https (${registryHost}): the credentials would cross the network in the clear`;
  if (name === own) return undefined;
  return `plain http to another host than the registry (${own}), not listed in insecureRegistries`;
}

/** Whether held scopes (`repository:name:pull,push`) grant every wanted scope. */
function covers(held: string[], wanted: string[]): boolean {
  return wanted.every((scope) => {
    const [type, name, actions] = splitScope(scope);
    return held.some((h) => {
      const [hType, hName, hActions] = splitScope(h);
      return hType === type && hName === name && actions.every((a) => hActions.includes(a));
    });
  });
}

function splitScope(scope: string): [string, string, string[]] {
  // The name may contain ':' only in theory (a registry host with a port); split at the ends.
  const first = scope.indexOf(':');
  const last = scope.lastIndexOf(':');
  return [scope.slice(0, first), scope.slice(first + 1, last), scope.slice(last + 1).split(',')];
}
