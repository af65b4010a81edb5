import { randomUUID } from 'node:crypto';

export const now = (): string => new Date().toISOString();
export const uuid = (): string => randomUUID();
