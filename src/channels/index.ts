export { CHANNELS, type Channel, channelOf, channelRefusal } from './channel-of.ts';
export {
  buildTag,
  channelTags,
  commitTag,
  FLOATING_TAGS,
  namesVersion,
  type TagKind,
  tagKind,
} from './tags.ts';
