export { CHANNELS, type Channel, channelOf, channelRefusal } from './channel-of.ts';
export { channelTags, commitTag, FLOATING_TAGS, namesVersion, type TagKind, tagKind } from './tags.ts';
