/**
 * `npm run lint:openapi`: builds the OpenAPI document exactly as the service serves it at
 * /openapi.json (same builder, same routers) and lints it with Redocly's recommended rules
 * (redocly.yaml). Any problem fails the run, warnings included (the linter itself fails on errors
 * only), so `npm test` fails on a finding. Problems are named by JSON pointer into the document.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from '../adapters/rest/openapi-document.js';
import { appRouter } from '../routers/_app.js';
import { version } from '../server/version.js';

const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
const file = path.join(dir, 'openapi.json');
// '/' is the server URL the service announces when PUBLIC_URL is unset.
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(appRouter, '/', version), null, 2)}\n`);
const redocly = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const result = spawnSync(process.execPath, [redocly, 'lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'json'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
});
rmSync(dir, { recursive: true, force: true });

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}
let report: LintReport;
try {
  report = JSON.parse(result.stdout) as LintReport;
} catch {
  process.stderr.write(`redocly lint did not report (status ${result.status}):\n${result.stdout}${result.stderr}\n`);
  process.exit(1);
}
for (const p of report.problems)
  console.log(`${p.severity.padEnd(7)} ${p.ruleId.padEnd(28)} ${p.location[0]?.pointer ?? ''}  ${p.message}`);
const { errors, warnings } = report.totals;
console.log(
  errors + warnings === 0
    ? 'OpenAPI document: no problems (Redocly recommended rules).'
    : `OpenAPI document: ${errors} errors, ${warnings} warnings.`,
);
process.exit(errors + warnings === 0 ? 0 : 1);
