// Why the sync engine stopped for an account — it cannot go on for it without the user — as a stable code, declared
// once for the engine (sync/blocked.ts gives them), the mirror (accounts.blocked_code), the app's contract
// (core/api-schemas.ts BlockedAccount) and the words that say what to do about each: the CLI's, with its commands
// (cli/way-out.ts), and the app's, with its screens and buttons (renderer/blocked-words.ts).

/** Every code a block can have. */
export const BLOCKED_CODES = [
  /** The organization's API key is unknown or revoked (rotated). */
  'invalid_api_key',
  /** The account is unknown to the service, deactivated, deleted, or of another organization. */
  'account_not_found',
  /** The token is refused (expired, revoked) and no fresh one can be had. */
  'invalid_token',
  /** The token is refused because clocks disagree: its issuer's, the service's or this computer's (the reason says by how much). */
  'clock_skew',
  /** The token command failed or printed nothing. */
  'token_command_failed',
  /** The token provider address gave no token for the account (sync/token-url.ts). */
  'token_provider_failed',
  /** No credentials for the account on this computer, or its key is read from FURROW_API_KEY and that is not set. */
  'no_credentials',
  /** Another refusal of the credentials (401/403 of another kind). */
  'refused',
] as const;

export type BlockedCode = (typeof BLOCKED_CODES)[number];

export const isBlockedCode = (x: unknown): x is BlockedCode => (BLOCKED_CODES as readonly unknown[]).includes(x);

/** The code a block was stored with; one this build does not know (or none) is any other refusal, `refused`. */
export const blockedCodeOf = (stored: string | null): BlockedCode => (isBlockedCode(stored) ? stored : 'refused');
