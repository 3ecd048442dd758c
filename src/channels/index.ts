export { CHANNELS, type Channel, channelOf, channelRefusal } from './channel-of.ts';
export { channelTags } from './references.ts';
