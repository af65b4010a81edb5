// Waiting for a state without waiting for a length of time, for tests that move a fake clock (vi.useFakeTimers
// with setTimeout faked): setImmediate stays real, so a turn of the event loop still happens.

/** One turn of the event loop: every promise continuation and I/O callback ready so far has run. */
export const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Turns the event loop until `check` holds; throws, naming `what`, if it never does. */
export async function until(check: () => boolean | Promise<boolean>, what: string, turns = 2_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return;
    await turn();
  }
  throw new Error(`never reached: ${what}`);
}
