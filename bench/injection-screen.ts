/**
 * Quality and speed of the injection screen on the project's own labelled corpus.
 *
 *   npm run bench:injection-screen -- [--seed 20] [--per-class 200] [--repeat 5] [--json FILE] [--show-errors]
 *
 * Prints, per attack class and overall, precision, recall and F1 of `screenMemoryForInjection` over
 * the corpus of `bench/support/injection-corpus.ts` (attacks and benign look-alikes placed in a
 * memory's content, title, a tag or a metadata value), and apart on its held-out samples (phrasings
 * the rules were not written for: the first table says the rules do what they claim, the second how
 * far they generalise); then the screen's time per text and per
 * memory (p50/p95/p99, µs), and its time on adversarial inputs shaped to make regular expressions
 * backtrack (the worst of them must stay linear in the input's size).
 */
import { parseArgs } from 'node:util';
import { screenForInjection } from '../server/services/consolidation/injection-screen.js';
import { screenMemoryForInjection } from '../server/services/consolidation/memory-screen.js';
import { INJECTION_CLASSES, injectionCorpus, type CorpusSample } from './support/injection-corpus.js';
import { formatTable, noteIfLoaded, writeJsonResult } from './support/report.js';
import { summariseNsAsUs, type MicrosRow } from './support/stats.js';

const USAGE = `Usage: npm run bench:injection-screen -- [options]

Precision, recall and F1 of the injection screen per attack class on the project's own labelled
corpus, and the screen's time per text (p50/p95/p99 µs), including adversarial inputs.

Options:
  --seed N          corpus seed (default 20)
  --per-class N     attacks (and at most as many look-alikes) per class (default 200)
  --repeat N        timing passes over the corpus (default 5)
  --json FILE       also write the results as JSON
  --show-errors     list every misclassified sample
  --help            this text
`;

function options() {
  try {
    return parseArgs({
      options: {
        seed: { type: 'string', default: '20' },
        'per-class': { type: 'string', default: '200' },
        repeat: { type: 'string', default: '5' },
        json: { type: 'string' },
        'show-errors': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--${name} must be a positive integer\n\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

interface QualityRow {
  class: string;
  attacks: number;
  lookalikes: number;
  tp: number;
  fn: number;
  fp: number;
  precision: number;
  recall: number;
  f1: number;
}

function quality(name: string, samples: readonly CorpusSample[], flagged: ReadonlyMap<CorpusSample, boolean>): QualityRow {
  const tp = samples.filter((s) => s.attack && flagged.get(s)).length;
  const fn = samples.filter((s) => s.attack && !flagged.get(s)).length;
  const fp = samples.filter((s) => !s.attack && flagged.get(s)).length;
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { class: name, attacks: tp + fn, lookalikes: samples.filter((s) => !s.attack).length, tp, fn, fp, precision, recall, f1 };
}

function time(fn: () => unknown): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0);
}

/** Inputs shaped to make a backtracking matcher blow up, at two sizes each (the time should grow ~linearly). */
function adversarial(size: number): [string, string][] {
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return [
    ['spaces', fill(' ')],
    ['single letters', fill('a ')],
    ['dotted letters', fill('a.')],
    ['open comments', fill('<!--')],
    ['role keys', fill('"role": "system", ')],
    ['override verbs', fill('ignore all the ')],
    ['base64-ish', fill('QUJD')],
    ['tags <a', fill('<a hidden ')],
    ['cjk verbs', fill('忽略之前的')],
    ['spanish verbs', fill('ignora todas las ')],
    ['ai addresses', fill('note to the ai ')],
    ['assistant lines', fill('\nassistant: ')],
    ['spaced words', fill('a  b ')],
  ];
}

function main(): void {
  const args = options();
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  const seed = positiveInt('seed', args.seed);
  const perClass = positiveInt('per-class', args['per-class']);
  const repeat = positiveInt('repeat', args.repeat);

  const all = injectionCorpus({ seed, perClass, hard: true });
  const corpus = all.filter((s) => !s.hard);
  const flagged = new Map(all.map((s) => [s, screenMemoryForInjection(s.memory).flagged] as const));
  const table = (title: string, samples: readonly CorpusSample[]): QualityRow[] => {
    const rows = [
      ...INJECTION_CLASSES.map((c) =>
        quality(
          c,
          samples.filter((s) => s.class === c),
          flagged,
        ),
      ),
      quality('overall', samples, flagged),
    ];
    const pct = (x: number) => x.toFixed(3);
    console.log(`\n${title} (seed ${seed}, ${samples.length} samples)\n`);
    console.log(
      formatTable(
        ['class', 'attacks', 'look-alikes', 'TP', 'FN', 'FP', 'precision', 'recall', 'F1'],
        rows.map((r) => [
          r.class,
          `${r.attacks}`,
          `${r.lookalikes}`,
          `${r.tp}`,
          `${r.fn}`,
          `${r.fp}`,
          pct(r.precision),
          pct(r.recall),
          pct(r.f1),
        ]),
      ),
    );
    const errors = samples.filter((s) => flagged.get(s) !== s.attack);
    if (args['show-errors'] || errors.length <= 12) {
      for (const s of errors)
        console.log(`  ${s.attack ? 'missed' : 'false alarm'} [${s.class}, ${s.placement}] ${JSON.stringify(s.text)}`);
    }
    return rows;
  };
  const rows = table('injection screen on the classes it targets', corpus);
  const heldOut = table(
    "held out: paraphrases the rules were not written for, and look-alikes sharing a rule's phrase",
    all.filter((s) => s.hard),
  );

  // Timing: warm up once, then `repeat` passes.
  const texts = corpus.map((s) => s.text);
  for (const t of texts) screenForInjection(t);
  const perText: number[] = [];
  const perMemory: number[] = [];
  // CPU time of the whole pass as well: on a loaded machine wall-clock samples include waiting for a core.
  const cpu = { text: 0, memory: 0 };
  for (let r = 0; r < repeat; r++) {
    let c0 = process.cpuUsage();
    for (const t of texts) perText.push(time(() => screenForInjection(t)));
    let d = process.cpuUsage(c0);
    cpu.text += d.user + d.system;
    c0 = process.cpuUsage();
    for (const s of corpus) perMemory.push(time(() => screenMemoryForInjection(s.memory)));
    d = process.cpuUsage(c0);
    cpu.memory += d.user + d.system;
  }
  const cpuMean = { text: cpu.text / perText.length, memory: cpu.memory / perMemory.length };
  const long = `${texts.slice(0, 40).join('\n')}\n`.repeat(20);
  const timing: MicrosRow[] = [summariseNsAsUs('per text (corpus)', perText), summariseNsAsUs('per memory (all fields)', perMemory)];
  timing.push(
    summariseNsAsUs(
      `one ${Math.round(long.length / 1024)} KB text`,
      Array.from({ length: 20 }, () => time(() => screenForInjection(long))),
    ),
  );
  const hostile: MicrosRow[] = [];
  for (const size of [16_384, 65_536]) {
    for (const [name, text] of adversarial(size)) {
      hostile.push(
        summariseNsAsUs(
          `${name} ${size / 1024} KB`,
          Array.from({ length: 5 }, () => time(() => screenForInjection(text))),
        ),
      );
    }
  }
  console.log('');
  noteIfLoaded();
  const timingRow = (r: MicrosRow) => [r.case, `${r.n}`, r.p50_us.toFixed(1), r.p95_us.toFixed(1), r.p99_us.toFixed(1)];
  console.log(formatTable(['screen time', 'n', 'p50 µs', 'p95 µs', 'p99 µs'], timing.map(timingRow)));
  console.log(`CPU time per call (mean): ${cpuMean.text.toFixed(1)} µs per text, ${cpuMean.memory.toFixed(1)} µs per memory`);
  console.log('');
  console.log(formatTable(['adversarial input', 'n', 'p50 µs', 'p95 µs', 'p99 µs'], hostile.map(timingRow)));
  if (args.json)
    writeJsonResult(
      args.json,
      { seed, perClass, quality: rows, heldOut, timing, cpuMeanUs: cpuMean, adversarial: hostile },
      { trailingNewline: true },
    );
}

main();
