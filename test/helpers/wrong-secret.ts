// A secret that differs from the real one in its last character only. Replacing the last character with a fixed
// one ('x') is the same secret whenever the real one already ends in 'x' (1 run in ~60), which made tests of
// "a wrong key is refused" fail at random; this always changes it.
export function wrongLastChar(secret: string): string {
  return `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
}
