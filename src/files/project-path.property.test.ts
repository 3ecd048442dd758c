import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insideProject, projectPath } from './project-path.ts';

// A project with links inside it, links out of it (absolute, relative, through `..`, dangling,
// a loop) and a folder outside; paths made of these names, `..` and `.`, relative and absolute.
// The oracle resolves a path as the kernel does, one component at a time with readlink: a path
// is accepted exactly when the file written there would be inside the project.
let root: string;
let project: string;
const NAMES = ['a', 'b', 'new', 'in', 'out', 'up', 'dangle', 'loop', 'deep', 'outside', '..', '.'];

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'sr-project-path-')));
  project = join(root, 'project');
  mkdirSync(join(project, 'a/b'), { recursive: true });
  mkdirSync(join(root, 'outside/b'), { recursive: true });
  symlinkSync('a', join(project, 'in')); // inside, relative
  symlinkSync(join(root, 'outside'), join(project, 'out')); // outside, absolute
  symlinkSync('..', join(project, 'a/up')); // back to the project, through ..
  symlinkSync('../..', join(project, 'up')); // above the project
  symlinkSync(join(root, 'outside/missing'), join(project, 'a/dangle')); // outside, dangling
  symlinkSync('loop', join(project, 'loop'));
  symlinkSync('../../outside', join(project, 'a/deep')); // outside, relative
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Where a write at `path` lands: each existing component resolved as the kernel does. */
function lands(path: string, hops = 0): string | undefined {
  if (hops > 40) return undefined; // ELOOP
  const parts = path.split(sep).filter(Boolean);
  let at: string = sep;
  for (let i = 0; i < parts.length; i++) {
    const next = join(at, parts[i]!);
    let info: ReturnType<typeof lstatSync> | undefined;
    try {
      info = lstatSync(next);
    } catch {
      info = undefined;
    }
    if (info?.isSymbolicLink()) {
      const target = readlinkSync(next);
      const rest = parts.slice(i + 1).join(sep);
      return lands(resolve(isAbsolute(target) ? target : at, target, rest), hops + 1);
    }
    at = next;
  }
  return at;
}

const inside = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

describe('insideProject', () => {
  it('accepts exactly the paths whose write lands inside the project (fast-check, 1,000 seeded runs)', () => {
    const segments = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(segments, fc.boolean(), fc.constantFrom('', 'a', 'a/b'), (parts, absolute, base) => {
        const path = absolute ? join(project, ...parts) : parts.join('/');
        const from = join(project, base);
        const got = insideProject(project, path, from);
        const target = lands(resolve(from, path));
        const expected = target !== undefined && inside(project, target) && !dangling(resolve(from, path));
        expect(got !== undefined, `${path} from ${base || '.'} lands at ${target}`).toBe(expected);
        if (got !== undefined) expect(got).toBe(resolve(from, path));
      }),
      { numRuns: 1_000, seed: 53 },
    );
  });

  it('names the setting or flag in the refusal, exit 2', () => {
    expect(() => projectPath(project, 'out/x.yaml', { setting: 'deploy.manifests[0]' })).toThrow(
      expect.objectContaining({
        exitCode: 2,
        code: 'PATH_OUTSIDE_PROJECT',
        message: expect.stringContaining('deploy.manifests[0]: "out/x.yaml" is outside the project'),
      }),
    );
    expect(projectPath(project, 'in/b', { setting: '--manifests' })).toBe(join(project, 'in/b'));
  });

  it('a project reached through a link is its real folder', () => {
    const alias = join(root, 'alias');
    symlinkSync(project, alias);
    expect(insideProject(alias, 'a/b')).toBe(join(alias, 'a/b'));
    expect(insideProject(alias, 'out/b')).toBeUndefined();
    expect(insideProject(alias, '../outside')).toBeUndefined();
  });
});

/** A link on the way whose target does not exist: where it leads is not the project's to know. */
function dangling(path: string): boolean {
  let at = path;
  for (;;) {
    try {
      if (lstatSync(at).isSymbolicLink()) {
        try {
          realpathSync(at);
        } catch {
          return true;
        }
      }
    } catch {
      // not there: its parent decides
    }
    const parent = dirname(at);
    if (parent === at) return false;
    at = parent;
  }
}
