import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.ts';
import { checkedUrl } from './deployment-targets.ts';
import { webUrlsOfDeployment, webUrlsOfFlags } from './web-urls.ts';

// `--web-url` against the config's web clients: none declared, one (called `web` or `app`), two.
const of = (values: string[], webs: string[], command: 'verify' | 'watch' = 'verify') =>
  webUrlsOfFlags(values, webs, checkedUrl, command);
const refusal = (values: string[], webs: string[], command: 'verify' | 'watch' = 'verify') => {
  try {
    of(values, webs, command);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    return {
      code: (error as UsageError).code,
      message: (error as Error).message,
      hint: (error as UsageError).hint,
    };
  }
  throw new Error(`expected ${values.join(' ')} to be refused`);
};

describe('--web-url', () => {
  it.each<[string, string[], string[], object]>([
    ['nothing given', [], ['app', 'admin'], {}],
    ['a bare URL, no web declared (read anyway)', ['http://w/'], [], { webUrl: 'http://w' }],
    ['a bare URL, one web', ['http://w'], ['web'], { webUrl: 'http://w' }],
    ['the one web by name', ['app=http://w/'], ['app'], { webUrl: 'http://w' }],
    ['a URL whose query holds =', ['http://w/?a=b'], ['web'], { webUrl: 'http://w/?a=b' }],
    [
      'each of two by name',
      ['app=http://a', 'admin=https://admin.example.com/'],
      ['app', 'admin'],
      { webUrls: { app: 'http://a', admin: 'https://admin.example.com' } },
    ],
    [
      'one of two by name (the other not read)',
      ['admin=http://b'],
      ['app', 'admin'],
      { webUrls: { admin: 'http://b' } },
    ],
  ])('%s', (_, values, webs, expected) => {
    expect(of(values, webs)).toEqual(expected);
  });

  it.each<[string, string[], string[], string, RegExp]>([
    [
      'a bare URL with two webs',
      ['http://a'],
      ['app', 'admin'],
      'WEB_URL_AMBIGUOUS',
      /2 web clients \(app, admin\)/,
    ],
    [
      'a name that is no web',
      ['docs=http://d'],
      ['app', 'admin'],
      'UNKNOWN_WEB',
      /no web client called "docs"/,
    ],
    ['a name with no web declared', ['app=http://a'], [], 'UNKNOWN_WEB', /no web client called "app"/],
    [
      'one name twice',
      ['app=http://a', 'app=http://b'],
      ['app', 'admin'],
      'WEB_URL_TWICE',
      /app=… is given twice/,
    ],
    ['two bare URLs for one web', ['http://a', 'http://b'], ['web'], 'WEB_URL_TWICE', /given twice/],
    [
      'a bare URL and the name of the one web',
      ['http://a', 'web=http://b'],
      ['web'],
      'WEB_URL_TWICE',
      /given twice/,
    ],
    [
      'a named URL that is no URL',
      ['admin=admin.local'],
      ['app', 'admin'],
      'BAD_URL',
      /--web-url admin= "admin\.local" is not a URL/,
    ],
  ])('refuses %s (exit 2)', (_, values, webs, code, message) => {
    const { code: got, message: said } = refusal(values, webs);
    expect(got).toBe(code === 'BAD_URL' ? 'VERIFY_BAD_URL' : `VERIFY_${code}`);
    expect(said).toMatch(message);
  });

  it('names the choices in its hint, in the words of the command asking', () => {
    const ambiguous = refusal(['http://a'], ['app', 'admin'], 'watch');
    expect(ambiguous.code).toBe('WATCH_WEB_URL_AMBIGUOUS');
    expect(ambiguous.hint).toBe('name one of app, admin: --web-url app=<url> --web-url admin=<url>');
    expect(refusal(['app=http://a'], [], 'watch').hint).toMatch(
      /declares no web artifact: pass a bare --web-url/,
    );
  });
});

describe('deployments[].webUrl / webUrls', () => {
  it.each<[string, { webUrl?: string; webUrls?: Record<string, string> }, string[], object]>([
    ['neither', {}, ['app', 'admin'], {}],
    ['webUrl', { webUrl: 'http://w/' }, ['web'], { webUrl: 'http://w' }],
    ['webUrls of one web', { webUrls: { app: 'http://a/' } }, ['app'], { webUrl: 'http://a' }],
    [
      'webUrls of two',
      { webUrls: { app: 'http://a', admin: 'http://b/' } },
      ['app', 'admin'],
      { webUrls: { app: 'http://a', admin: 'http://b' } },
    ],
  ])('%s', (_, deployment, webs, expected) => {
    expect(webUrlsOfDeployment(deployment, webs)).toEqual(expected);
  });
});
