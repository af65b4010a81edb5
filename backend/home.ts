// Where the app keeps its data — the mirror, the credentials, the import previews: FURROW_HOME, else the platform's
// folder for an application's data. The mirror host (backend/host.ts), the launcher (app/start.ts) and the CLI
// (cli/main.ts) find it here; the layers below are given the folder, never look for it.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** FURROW_HOME, else ~/Library/Application Support/Furrow (macOS), %APPDATA%\Furrow (Windows), $XDG_DATA_HOME/furrow or ~/.local/share/furrow. */
export function furrowHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FURROW_HOME) return env.FURROW_HOME;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Furrow');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Furrow');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'furrow');
}
