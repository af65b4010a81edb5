// Hot paths (bulk create, listings) prepare the same SQL thousands of times a second: the statement cache per
// handle of platform/node/sqlite.ts, under the name the store's modules use.
export { cachedStatement as prep } from '../../platform/node/sqlite.ts';
