import { describe, expect, it } from 'vitest';
import { cacheUnsupported } from './builder-cache.ts';

describe('cacheUnsupported', () => {
  it.each([
    ['an image as cache source', { from: ['registry.local/app:cache'] }, []],
    ['no cache', undefined, []],
    [
      'a local source',
      { from: ['type=local,src=/tmp/c'] },
      [/^cache\.from "type=local,src=\/tmp\/c": .*needs buildx$/],
    ],
    [
      'a registry source in the type= form',
      { from: ['type=registry,ref=r/app:cache'] },
      [/^cache\.from "type=registry/],
    ],
    ['a gha source', { from: ['type=gha'] }, [/^cache\.from "type=gha"/]],
    ['a comma in an image list', { from: ['r/a:1,r/b:1'] }, [/^cache\.from "r\/a:1,r\/b:1"/]],
    ['a cache export', { to: ['type=local,dest=/tmp/c,mode=max'] }, [/^cache\.to: .*no --cache-to/]],
    ['both', { from: ['type=local,src=/c'], to: ['type=inline'] }, [/^cache\.from /, /^cache\.to: /]],
  ])("the CLI's own BuildKit: %s", (_, cache, expected) => {
    const found = cacheUnsupported('buildkit', cache);
    expect(found).toHaveLength(expected.length);
    for (const [i, re] of expected.entries()) expect(found[i]).toMatch(re);
  });

  it('buildx takes every form', () => {
    expect(cacheUnsupported('buildx', { from: ['type=local,src=/c'], to: ['type=local,dest=/c'] })).toEqual(
      [],
    );
  });
});
