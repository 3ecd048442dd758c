import type { Command } from 'commander';
import { defineBaseImage } from './base-image.ts';
import { defineBuild } from './build.ts';
import { defineKeygen } from './keygen.ts';
import { definePromote } from './promote.ts';
import { defineRehearse } from './rehearse.ts';
import { defineSign } from './sign.ts';
import { defineStamp } from './stamp.ts';
import { defineVerify } from './verify.ts';

/**
 * Every `release` command, in help order. Each definition only declares flags; the work is
 * imported when the command runs, so `release --help` and a typo cost nothing.
 */
export const commandDefinitions: ((program: Command) => void)[] = [
  defineStamp, // resolve and stamp the version
  defineBuild, // build the CLI archive and the images with the version baked in
  defineBaseImage, // make the minimal node base image the builds start from
  definePromote, // tag the built images into dev, rc or release (manifest copy, all or nothing)
  defineVerify, // prove a live deployment (or a fleet) is in step
  defineKeygen, // create the key pair that signs release candidates
  defineSign, // sign images by digest (release candidates)
  defineRehearse, // the whole release, rehearsed on this machine with the embedded store
];
