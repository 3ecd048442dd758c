import * as z from 'zod';
import { ENV_NAME } from './artifacts-schema.ts';
import { CLIENT_VERSION_VARIABLE, SERVER_VERSION_VARIABLE } from './version-variables.ts';

// Names a build or a container must not have replaced by a version string: setting one would
// change which programs run or how, not what version they report.
const RESERVED =
  /^(?:PATH|HOME|SHELL|USER|PWD|TMPDIR|NODE_OPTIONS|NODE_PATH|LD_.*|DYLD_.*|DOCKER_.*|BUILDKIT_.*)$/;

const names = (standard: string) =>
  z
    .array(
      z
        .string()
        .regex(ENV_NAME, 'expected an environment variable name like "ACME_VERSION"')
        .max(128, 'expected a name of at most 128 characters')
        .refine((name) => name !== standard, `${standard} is always set; list only the names beside it`)
        .refine((name) => !RESERVED.test(name), 'expected a name of your own, not one the system reads'),
    )
    .max(32, 'expected at most 32 names')
    .refine((list) => new Set(list).size === list.length, 'expected each name once')
    .default([]);

/**
 * `versionVariables`: the names the service reads its version from, beside the standard ones
 * (src/config/version-variables.ts says where each is set).
 */
export const versionVariablesSchema = z
  .strictObject({
    /** The server version (API, worker, every image's build args, build commands): `ACME_VERSION`. */
    server: names(SERVER_VERSION_VARIABLE),
    /** The web client's version (its build command, the web image): `VITE_ACME_VERSION`. */
    client: names(CLIENT_VERSION_VARIABLE),
  })
  .refine(
    (v) => !v.server.some((name) => v.client.includes(name) || name === CLIENT_VERSION_VARIABLE),
    'a name is either a server or a client version variable, not both',
  )
  .refine(
    (v) => !v.client.includes(SERVER_VERSION_VARIABLE),
    'a name is either a server or a client version variable, not both',
  )
  .default({ server: [], client: [] });
