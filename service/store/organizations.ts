// Organizations and their API keys as every store has them: the key format and its hash, which are not SQL.
import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';

export interface Organization { id: string; name: string; created: string }
export interface ApiKeyInfo { prefix: string; label: string; created: string; revoked: string | null }
/** An active key as authentication sees it: its row id (bound into account tokens) and organization. */
export interface ActiveApiKey { id: number; organization_id: string }

// API keys are high-entropy random strings, so a plain SHA-256 is the right hash: it must be fast to
// check on every request, and brute force is hopeless against 192 random bits.
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** `fk_<8 hex>_<32 chars>`: the first 11 characters are the prefix that lists and revokes it; only the hash is kept. */
export function newApiKey(): { api_key: string; prefix: string; hash: string } {
  const prefix = `fk_${randomBytes(4).toString('hex')}`;
  const apiKey = `${prefix}_${randomBytes(24).toString('base64url')}`;
  return { api_key: apiKey, prefix, hash: hashApiKey(apiKey) };
}

export function organizationName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ApiError(ErrorCode.validationFailed, 'The organization needs a name');
  return trimmed;
}

export const organizationNotFound = (): ApiError => new ApiError(ErrorCode.notFound, 'Organization not found');
export const noActiveKey = (prefix: string): ApiError => new ApiError(ErrorCode.notFound, `No active API key with prefix ${prefix}`);
