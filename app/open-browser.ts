// Opening the app in the user's browser without putting this launch's token on a command line: `xdg-open URL`
// would leave it in /proc/<pid>/cmdline of xdg-open and of the browser, readable by every local user, who would
// then hold the page's powers. As Jupyter does, the browser is given a local file instead: readable by the user
// only (0600, in FURROW_HOME, 0700), it sends the browser on to the address with the token in its fragment (which
// the browser never sends to any server). The terminal still prints the address, for the user to click.
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The redirecting page: no script (a file: page's own policy is the browser's), a link if the refresh is blocked. */
export function launchPage(url: string): string {
  const href = escapeHtml(url);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0;url=${href}">
<meta name="referrer" content="no-referrer">
<title>Opening Furrow…</title></head>
<body><p>Opening Furrow… If nothing happens, <a href="${href}" rel="noreferrer">open Furrow</a>.</p></body></html>
`;
}

/** Writes the launch page for `url` into `dir` (the user's private FURROW_HOME); returns its path. */
export function writeLaunchPage(dir: string, url: string, port: number): string {
  const file = join(dir, `open-${port}.html`);
  rmSync(file, { force: true }); // a file left by another launch may carry a wider mode: written anew, 0600
  writeFileSync(file, launchPage(url), { mode: 0o600, flag: 'wx' });
  return file;
}

/** The system's way to open a document, with its arguments. */
export function openCommand(target: string, platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [target]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '', target]];
  return ['xdg-open', [target]];
}

/**
 * Opens the app's address through a launch page in `dir`; returns the function that removes the page (the app
 * stopping: the token it carries is worthless by then, but the file is the launch's, not the user's to clean).
 */
export function openInBrowser(url: string, dir: string, port: number): () => void {
  const file = writeLaunchPage(dir, url, port);
  const [cmd, args] = openCommand(pathToFileURL(file).href);
  spawn(cmd, args, { stdio: 'ignore', detached: true }).on('error', () => {}).unref();
  return () => rmSync(file, { force: true });
}
