import { describe, expect, it } from 'vitest';
import type { LayerNode } from '../oci-image/read-layer.ts';
import { parentFolders } from './parent-folders.ts';

const dir = (path: string, uid: number, mode = 0o755, mtime = 100): LayerNode => ({
  type: 'dir',
  path,
  mode,
  uid,
  gid: uid,
  mtime,
});
const file = (path: string): LayerNode => ({
  type: 'file',
  path,
  mode: 0o644,
  uid: 0,
  gid: 0,
  content: Buffer.alloc(0),
});
const entry = (path: string, uid: number, mode = 0o755, mtime = 100) => ({
  type: 'dir',
  path,
  mode,
  uid,
  gid: uid,
  mtime,
});

describe('parentFolders', () => {
  it.each<[string, LayerNode[][], string[], ReturnType<typeof entry>[]]>([
    [
      'nested folders, each with its own owner and mode',
      [
        [
          dir('/srv', 0),
          dir('/srv/web', 1000, 0o750, 7),
          dir('/srv/web/assets', 1000, 0o2775),
          file('/srv/web/assets/a.js'),
        ],
      ],
      ['/srv/web/assets/a.js'],
      [entry('/srv', 0), entry('/srv/web', 1000, 0o750, 7), entry('/srv/web/assets', 1000, 0o2775)],
    ],
    [
      'a folder only in a lower layer keeps that entry',
      [[dir('/srv', 0), dir('/srv/web', 1000, 0o750)], [file('/srv/web/a.js')]],
      ['/srv/web/a.js'],
      [entry('/srv', 0), entry('/srv/web', 1000, 0o750)],
    ],
    [
      'the last layer with the entry wins (a chown in a later layer)',
      [[dir('/srv/web', 0)], [dir('/srv/web', 1000, 0o700, 9)]],
      ['/srv/web/a.js'],
      [entry('/srv/web', 1000, 0o700, 9)],
    ],
    [
      'a whiteout removes the lower entry; the folder made again later has its new owner',
      [[dir('/srv/web', 0)], [{ type: 'whiteout', path: '/srv/web' }, dir('/srv/web', 33, 0o755, 5)]],
      ['/srv/web/a.js'],
      [entry('/srv/web', 33, 0o755, 5)],
    ],
    [
      'a whiteout of a parent removes the entries under it; a folder no layer names has none',
      [
        [dir('/srv', 0), dir('/srv/web', 1000)],
        [{ type: 'whiteout', path: '/srv' }, file('/srv/web/a.js')],
      ],
      ['/srv/web/a.js'],
      [],
    ],
    [
      'an opaque folder keeps itself and hides the entries under it',
      [
        [dir('/srv', 1000), dir('/srv/old', 1000)],
        [{ type: 'opaque', path: '/srv' }, dir('/srv', 1000, 0o770)],
      ],
      ['/srv/old/a.js'],
      [entry('/srv', 1000, 0o770)],
    ],
    [
      'a file where a folder was replaces it',
      [[dir('/srv/web', 1000)], [file('/srv/web')], [dir('/srv', 0)]],
      ['/srv/web/a.js'],
      [entry('/srv', 0)],
    ],
    [
      'shared parents once, sorted; a file at / has none',
      [[dir('/b', 1), dir('/a', 2), dir('/a/x', 3)]],
      ['/b/f', '/a/x/f', '/a/g', '/top.txt'],
      [entry('/a', 2), entry('/a/x', 3), entry('/b', 1)],
    ],
  ])('%s', (_name, layers, files, expected) => {
    expect(parentFolders(layers, files)).toEqual(expected);
  });
});
