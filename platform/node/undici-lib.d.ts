// Declarations for the undici modules platform/node/undici.ts loads directly (undici publishes types only for its
// index): each typed as unknown, and cast there to the index's types of the same objects.
declare module 'undici/lib/dispatcher/agent.js' { const m: unknown; export default m; }
declare module 'undici/lib/dispatcher/pool.js' { const m: unknown; export default m; }
declare module 'undici/lib/dispatcher/dispatcher.js' { const m: unknown; export default m; }
declare module 'undici/lib/api/index.js' { const m: object; export default m; }
declare module 'undici/lib/core/connect.js' { const m: unknown; export default m; }
