export * from './common.ts';
export * from './parcels.ts';
export * from './accounts.ts';
export * from './farms.ts';
export * from './crops.ts';
export * from './plants.ts';
export * from './billing.ts';
