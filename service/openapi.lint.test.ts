// The OpenAPI document linted by an independent tool: Redocly's recommended rules (redocly.yaml at the repository
// root says which are off and why). Any error or warning fails `npm test`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startService, type TestService } from '../test/helpers/service.ts';
import { ROOT } from '../test/helpers/process.ts';

const run = promisify(execFile);

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

let svc: TestService;
let dir: string;
beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'furrow-openapi-'));
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Lints a document with the repository's redocly.yaml; the report, whatever the exit status. */
async function lint(doc: unknown): Promise<LintReport> {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const args = ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const out = await run(join(ROOT, 'node_modules/.bin/redocly'), args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 })
    .catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as LintReport;
}

describe('redocly lint of GET /api/openapi.json', () => {
  it('reports no error and no warning', async () => {
    const doc = (await svc.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Record<string, unknown>;
    const report = await lint(doc);
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it('the lint really runs: a document with a broken operation fails it', async () => {
    const doc = (await svc.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const op = doc.paths['/api/farms/']!['get']!;
    delete op['operationId'];
    delete op['security'];
    op['responses'] = { 200: { description: 'ok' } };
    const report = await lint(doc);
    expect(report.problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['operation-operationId', 'security-defined', 'operation-4xx-response']));
    expect(report.totals.errors + report.totals.warnings).toBeGreaterThanOrEqual(3);
  });
});
