// Shared set-up of the authentication tests (auth.*.test.ts): a fresh service for every test, and the checks of the
// spec's exact 'Invalid token' and 'Account not found' answers.
import { afterEach, beforeEach, expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { startService, body, type TestService, type Org, type Account } from '../test/helpers/service.ts';

// Exported as a live binding and assigned by the hooks of useServicePerTest(), so a test reads `svc` as a plain
// name, the same in every file, instead of through a context object.
export let svc: TestService;

/** A fresh service for each test of the calling file: counts and isolation checks start from an empty store. */
export function useServicePerTest(): void {
  beforeEach(async () => {
    svc = await startService();
  });
  afterEach(async () => {
    await svc.close();
  });
}

export const get = (url: string, headers: Record<string, string> = {}) => svc.app.inject({ method: 'GET', url, headers });

export function expectInvalidToken(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(401);
  const b = body(res);
  expect(b.message).toBe('Invalid token');
  expect(b.detail).toBe('Invalid token');
  expect(b.code).toBe('invalid_token');
}
export function expectAccountNotFound(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(403);
  const b = body(res);
  expect(b.message).toBe('Account not found');
  expect(b.detail).toBe('Account not found');
  expect(b.code).toBe('account_not_found');
}

export const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
export const nowS = () => Math.floor(Date.now() / 1000);
/** The claims of a valid token for the account (epoch 0: a new account that was never deactivated). */
export const accountPayload = (acc: Account, org: Org): Record<string, unknown> =>
  ({ org: org.organization_id, typ: 'account_access', sub: acc.id, ep: 0, iat: nowS(), exp: nowS() + 3600 });

/** Signs any payload and header with an organization's real current signing key (its kid unless overridden). */
export async function signAs(organizationId: string, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const key = await svc.store.signingKeys.current(organizationId);
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid, ...header }).sign(key.secret);
}
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const farmNames = (res: LightMyRequestResponse) => (res.json() as { name: string }[]).map((f) => f.name).sort();
