// What the service's answers say, read without the HTTP client: the CLI's status and blocked-account code use these
// without loading undici (a tenth of a second at every start), which only the commands that talk to a service need.

export interface HttpResponse { status: number; body: unknown; headers: Record<string, string | string[] | undefined>; retryAfterMs: number | null; sentBytes: number }

const codeOf = (body: unknown) => (typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined);
const messageOf = (body: unknown) => {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { message?: unknown; detail?: unknown };
  return typeof b.message === 'string' ? b.message : typeof b.detail === 'string' ? b.detail : undefined;
};

export const isInvalidToken = (body: unknown) => codeOf(body) === 'invalid_token' || messageOf(body) === 'Invalid token';
export const isAccountNotFound = (body: unknown) => codeOf(body) === 'account_not_found' || messageOf(body) === 'Account not found';
export const errorMessage = (res: HttpResponse) => messageOf(res.body) ?? `HTTP ${res.status}`;
