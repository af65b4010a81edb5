// Lint enforces the boundaries the README's Layout describes: core/ is pure, platform/node/ sits on core/ only, the
// service shares only core/ and platform/node/ and keeps SQLite inside service/store/sqlite/ (behind its Store),
// electron/ only core/, sync/ leaves the mirror's SQL to db/, and the browser code of the service's web pages
// reaches the service only over HTTP. test/docs.test.ts checks that every
// `files` pattern here matches a file of the repository.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'crypto', 'child_process', 'http', 'https', 'net', 'url', 'worker_threads', 'stream', 'zlib', 'events', 'util', 'process', 'buffer'];
const ioPackages = ['better-sqlite3', 'fastify', 'fastify/*', '@fastify/*', 'undici', 'jose', 'electron'];
const serviceStandsAlone = { group: ['**/db/**', '**/sync/**'], message: 'The service stands alone: it shares only core/ and platform/node/.' };
const noSqlInSync = "sync/ runs no SQL of its own: the mirror's SQL lives in db/. Add (or reuse) a function there named for what it means.";

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'bench/results/**', 'bench/tmp/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodeBuiltins, message: 'core/ is pure domain code: no I/O, no Node built-ins.' },
          { group: ioPackages, message: 'core/ is pure domain code: no I/O packages.' },
          { group: ['**/service/**', '**/db/**', '**/sync/**', '**/backend/**', '**/cli/**', '**/platform/**', '**/app/**', '**/renderer/**'], message: 'core/ depends on nothing else in the repository.' },
        ],
      }],
    },
  },
  {
    // The service's web pages run in the browser: they reach the service only over HTTP.
    files: ['service/web/*/client/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodeBuiltins, message: 'Browser code: no Node built-ins.' },
          { group: ioPackages, message: 'Browser code talks to the service over HTTP only.' },
          { group: ['**/store/**', '**/routes/**', '**/db/**', '**/sync/**'], message: 'Browser code talks to the service over HTTP only.' },
        ],
      }],
    },
  },
  {
    // The service stands alone, and reaches its data only through the Store interface (service/store/store.ts):
    // SQLite (better-sqlite3, its Db, platform/node's SQLite helpers) belongs to service/store/sqlite/, which
    // service/store/open.ts alone opens, so a second store can be chosen there without touching anything else.
    files: ['service/**/*.ts'],
    ignores: ['service/web/*/client/**/*.ts', 'service/store/sqlite/**', 'service/store/postgres/**', 'service/store/open.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          serviceStandsAlone,
          {
            group: ['better-sqlite3', '**/store/sqlite/**', '**/platform/node/sqlite.ts', '**/platform/node/statements.ts', '**/platform/node/migrations.ts'],
            message: 'Outside service/store/sqlite/ the service uses the Store interface (service/store/store.ts), never SQLite: add a Store method if one is missing.',
          },
        ],
      }],
    },
  },
  {
    files: ['service/store/sqlite/**/*.ts', 'service/store/open.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [serviceStandsAlone] }],
    },
  },
  {
    // The PostgreSQL store shares the SQLite store's refusal of a schema from the future (FutureSchemaError) and
    // nothing else of it. Its tests compare it with the SQLite store (conformance), so they may open both.
    files: ['service/store/postgres/**/*.ts'],
    ignores: ['service/store/postgres/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          serviceStandsAlone,
          {
            group: ['better-sqlite3', '**/store/sqlite/**', '**/platform/node/sqlite.ts', '**/platform/node/statements.ts'],
            message: 'The PostgreSQL store shares nothing with SQLite: the Store interface (service/store/store.ts) is their contract.',
          },
        ],
      }],
    },
  },
  {
    files: ['service/store/postgres/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [serviceStandsAlone] }],
    },
  },
  {
    // The mirror and the sync engine sit below the app's backend: they never reach up into it.
    files: ['db/**/*.ts', 'sync/**/*.ts'],
    // Tests build their world from the real service's parts.
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/backend/**', '**/cli/**', '**/service/**', '**/app/**', '**/renderer/**'], message: 'db/ and sync/ sit below the app backend and the CLI and never import the service.' }],
      }],
    },
  },
  {
    // The mirror's SQL lives in db/, its only write path (docs/sync.md): the sync engine calls named transitions and
    // queries there (db/op-transitions.ts, db/outbox.ts, db/conflicts.ts, db/remote-deletes.ts, db/sync-state.ts, db/pull.ts, db/rows.ts) and runs no SQL of its
    // own. Nor do the app's backend and the CLI above it. Their tests may set up states with raw SQL.
    // An MBTiles file (an area kept offline, a user's tiles) is no mirror: its reading and writing are SQL of their own.
    files: ['sync/**/*.ts', 'backend/**/*.ts', 'cli/**/*.ts', 'app/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test-helpers.ts', 'backend/mbtiles-writer.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        {
          // A regular expression literal's exec is not SQL.
          selector: 'CallExpression[callee.property.name=/^(prepare|exec|pragma)$/]:not([callee.object.regex])',
          message: noSqlInSync,
        },
        {
          selector: "ImportSpecifier[imported.name='cachedStatement']",
          message: noSqlInSync,
        },
      ],
    },
  },
  {
    // The app's backend (the mirror host) and the CLI, its in-process client: core/ and the layers below them, never
    // the service; the backend never the CLI above it.
    files: ['backend/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/service/**', 'electron', 'fastify', 'fastify/*'], message: 'The app backend talks to the service over HTTP only (sync/).' },
          { group: ['**/app/**', '**/renderer/**', '**/cli/**'], message: 'The backend sits below the app, its renderer and the CLI: it never imports them.' },
        ],
      }],
    },
  },
  {
    files: ['cli/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/service/**', 'electron', 'fastify', 'fastify/*'], message: 'The CLI talks to the service over HTTP only (sync/, through backend/).' },
          { group: ['**/app/**', '**/renderer/**'], message: 'The CLI calls the backend in process: it never imports the app or its renderer.' },
        ],
      }],
    },
  },
  {
    // The app's renderer runs in a browser page (or a sandboxed Electron window): it reaches the backend only through
    // core/api.ts's client over its port (renderer/ws-port.ts), and shares only core/'s pure domain code.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodeBuiltins, message: 'Renderer code runs in the page: no Node built-ins.' },
          { group: [...ioPackages, 'ws'], message: 'The renderer talks to the backend through core/api.ts only.' },
          { group: ['**/service/**', '**/db/**', '**/sync/**', '**/backend/**', '**/platform/**', '**/app/**', '**/electron/**', '**/cli/**'], message: 'The renderer imports only core/ (and the API client): the backend is behind core/api.ts.' },
        ],
      }],
    },
  },
  {
    // The launcher (npm start) composes the service, the host and the built renderer; nothing imports it, and it
    // never imports the renderer's code (it serves the bundle).
    files: ['app/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/renderer/**', '**/electron/**'], message: 'app/ starts the app: the renderer is served built, never imported.' }] }],
    },
  },
  {
    // The Electron glue stays tiny: Electron, Node and core/'s pure code only. The packaged app starts the built host
    // by its path (dist/host.mjs), never by importing the backend; the renderer is loaded by URL, never imported.
    files: ['electron/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['better-sqlite3', 'fastify', 'fastify/*', '@fastify/*', 'undici', 'jose', 'ws'], message: 'electron/ opens a window on the host: it does no I/O of the app itself.' },
          { group: ['**/service/**', '**/db/**', '**/sync/**', '**/backend/**', '**/platform/**', '**/app/**', '**/renderer/**', '**/cli/**', '**/bench/**', '**/test/**'], message: 'electron/ imports only core/ (the host runs as dist/host.mjs, the renderer is served).' },
        ],
      }],
    },
  },
  {
    // Node code both the service and the mirror need (opening SQLite, migrations, statement cache, worker threads): it may use
    // core/ and Node, never the parts that use it.
    files: ['platform/node/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/service/**', '**/db/**', '**/sync/**', '**/backend/**', '**/cli/**', '**/app/**', '**/bench/**', '**/test/**'], message: 'platform/node/ imports only core/: nothing above it.' }],
      }],
    },
  },
);
