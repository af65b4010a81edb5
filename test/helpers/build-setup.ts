// vitest globalSetup: dist/ built from the sources as they are (scripts/build.mjs), once before any test file runs.
// The tests start the service, the sync CLI and the mirror host from it, as users do; building here, not in each
// file, keeps several workers from each building the same bundle at once.
export default async function setup(): Promise<void> {
  const { ensureBuilt } = await import('../../scripts/build.mjs');
  await ensureBuilt('service');
}
