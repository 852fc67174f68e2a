/** The closing tables of a `bench:search-http` run: latency per run, targets, result-list comparisons, stage profiles. */
import { MODES } from './context.js';
import { compare, f1, fmtLa, type Comparison } from './figures.js';
import { K } from './load-generator.js';
import type { Run } from './measure.js';
import type { SearchHttpSettings } from './options.js';
import type { StageProfile } from './stage-profile.js';

/** Targets of the issue (hybrid p95, query embedding included). */
const TARGET_P95_MS: Record<string, number> = { '10000': 15, '100000': 40 };

export interface Summary {
  targets: Record<string, unknown>[];
  /** The same tenant and queries served by the N-process server: each process holds its own caches. */
  acrossProcesses: Record<string, Record<string, Comparison>>;
}

export function printSummary(
  s: SearchHttpSettings,
  runs: Run[],
  comparisons: Record<string, Record<string, Comparison & { note: string }>>,
  profiles: Record<string, Record<string, StageProfile>>,
): Summary {
  console.log(
    `\n== GET /memories/search over HTTP: ${s.concurrency} concurrent keep-alive clients, k=${K}, query embedding in every request ==`,
  );
  console.log(
    'tenant size | others                                 | mode          |   p50 ms |   p95 ms |   p99 ms |  req/s | cpu ms/req | errors | load avg after',
  );
  for (const r of runs) {
    for (const mode of MODES) {
      const m = r.modes[mode]!;
      console.log(
        `${r.size.toLocaleString('en').padStart(11)} | ${r.others.padEnd(38)} | ${mode.padEnd(13)} | ${f1(m.latency.p50).padStart(8)} | ${f1(m.latency.p95).padStart(8)} | ${f1(m.latency.p99).padStart(8)} | ${m.reqPerSecond.toFixed(1).padStart(6)} | ${f1(m.cpuMsPerRequest).padStart(10)} | ${String(m.errors).padStart(6)} | ${fmtLa(m.loadavgAfter)}`,
      );
    }
  }
  const targets: Record<string, unknown>[] = [];
  for (const r of runs) {
    const target = TARGET_P95_MS[String(r.size)];
    if (target === undefined) continue;
    const p95 = r.modes.hybrid!.latency.p95;
    targets.push({ run: r.label, size: r.size, hybridP95Ms: p95, targetMs: target, met: p95 <= target });
  }
  console.log('\ntargets (hybrid p95, embedding included):');
  for (const t of targets)
    console.log(`  ${String(t.run).padEnd(40)} ${f1(t.hybridP95Ms as number)} ms vs ≤ ${t.targetMs} ms: ${t.met ? 'met' : 'MISSED'}`);

  console.log('\nresults alone vs beside the other tenants (same query set, k=10):');
  for (const [size, byMode] of Object.entries(comparisons)) {
    for (const [mode, c] of Object.entries(byMode)) {
      console.log(
        `  ${Number(size).toLocaleString('en').padStart(7)} ${mode.padEnd(13)} identical lists ${c.identicalLists}/${c.queries}, mean overlap ${c.meanOverlap.toFixed(4)}`,
      );
    }
  }

  // The same tenant and queries served by the N-process server: each process holds its own caches.
  const acrossProcesses: Record<string, Record<string, Comparison>> = {};
  if (s.processes > 1) {
    console.log(`\nresults in-process vs ${s.processes} processes (same database, same queries):`);
    for (const r of runs) {
      const base = runs.find((x) => x.tenant === r.tenant && `${x.others} · ${s.processes} processes` === r.others);
      if (!base) continue;
      acrossProcesses[r.label] = {};
      for (const mode of MODES) {
        const c = compare(base.lists[mode]!, r.lists[mode]!);
        acrossProcesses[r.label]![mode] = c;
        console.log(`  ${r.label.padEnd(44)} ${mode.padEnd(13)} identical lists ${c.identicalLists}/${c.queries}`);
      }
    }
  }

  console.log(`\nwhere the time goes: 1 client, sequential requests (${s.profileRequests - 5} per row), mean ms per request`);
  console.log(
    'run                        | mode          | client p50 | client mean | cpu ms/req |  auth | usage | embedding |  index | resolve hits | HTTP+framework+rest | load avg',
  );
  for (const [label, byMode] of Object.entries(profiles)) {
    for (const [mode, p] of Object.entries(byMode)) {
      const m = p.meanMs;
      console.log(
        `${label.padEnd(26)} | ${mode.padEnd(13)} | ${f1(p.clientLatency.p50).padStart(10)} | ${f1(m.total).padStart(11)} | ${f1(p.cpuMsPerRequest).padStart(10)} | ${f1(m.auth).padStart(5)} | ${f1(m.usage).padStart(5)} | ${f1(m.embedding).padStart(9)} | ${f1(m.index).padStart(6)} | ${f1(m.resolveHits).padStart(12)} | ${f1(m.httpAndRest).padStart(19)} | ${fmtLa(p.loadavg)}`,
      );
    }
  }
  return { targets, acrossProcesses };
}
