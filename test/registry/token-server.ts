import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TokenServer {
  realm: string;
  service: string;
  issuer: string;
  /** PEM certificate the registry trusts (`auth.token.rootcertbundle`). */
  certFile: string;
  /** Every token request: the scopes asked and whether it carried valid basic credentials. */
  requests: { scopes: string[]; user: string | null }[];
  stop(): Promise<void>;
}

/**
 * A small token service of the test's own, in front of a real `docker-registry` configured with
 * `auth.token`: it checks basic credentials and issues ES256 JWTs whose header carries the signing
 * certificate (`x5c`), which distribution verifies against its root bundle. The certificate is
 * made with openssl, since Node has no API to create X.509 certificates.
 */
export async function startTokenServer(user: {
  user: string;
  password: string;
  /** Also accept this OAuth2 refresh token (docker's identity token) on POST. */
  identityToken?: string;
}): Promise<TokenServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sr-token-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=sr-test-token-signer',
    ],
    { stdio: 'ignore' },
  );
  const key = createPrivateKey(readFileSync(keyFile));
  const der = readFileSync(certFile, 'utf8').replace(/-----[^-]+-----|\s/g, '');
  const service = 'sr-test-registry';
  const issuer = 'sr-test-issuer';
  const requests: TokenServer['requests'] = [];

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let scopes = url.searchParams.getAll('scope');
    const auth = req.headers.authorization ?? '';
    const decoded = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString() : '';
    let ok = decoded === `${user.user}:${user.password}`;
    if (req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
      ok =
        form.get('grant_type') === 'refresh_token' &&
        !!user.identityToken &&
        form.get('refresh_token') === user.identityToken;
    }
    requests.push({ scopes, user: ok ? user.user : null });
    if (!ok || url.pathname !== '/token') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"bad credentials"}');
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const access = scopes.map((scope) => {
      const [type, name, actions] = [
        scope.slice(0, scope.indexOf(':')),
        scope.slice(scope.indexOf(':') + 1, scope.lastIndexOf(':')),
        scope.slice(scope.lastIndexOf(':') + 1),
      ];
      return { type, name, actions: actions.split(',') };
    });
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${b64({ typ: 'JWT', alg: 'ES256', x5c: [der] })}.${b64({
      iss: issuer,
      sub: user.user,
      aud: service,
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: randomBytes(8).toString('hex'),
      access,
    })}`;
    const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString(
      'base64url',
    );
    const token = `${input}.${signature}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ token, access_token: token, expires_in: 300, issued_at: new Date().toISOString() }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    certFile,
    requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
