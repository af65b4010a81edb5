// Types of scripts/build.mjs (plain JavaScript: the launchers run it before anything is compiled), so that the
// TypeScript importing it needs no cast of its own.

/** Builds dist/ (the bundles, the preload, the assets), and records which sources they were built from. */
export function buildCli(): Promise<void>;
/** The file URL of dist/<entry>.mjs (the CLI by default), built first if a source changed since the last build. */
export function ensureBuilt(entry?: string): Promise<string>;
