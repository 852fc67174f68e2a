/**
 * Deterministic synthetic smoke-test dataset, in the public LoCoMo shape.
 *
 * Why: the spec says the harness falls back to synthetic data when the real dataset is unavailable
 * (offline machine, bad checksum), and the project's tests must not ship LoCoMo itself (CC BY-NC).
 * The data is made so that a working keyword or semantic search finds the evidence: every question
 * shares distinctive words with its evidence turns (a city, a pet's name, "half marathon", ...), and
 * small-talk filler never uses those words. A broken index scores near zero; a working one scores high.
 *
 * Determinism: all choices come from a seeded mulberry32 PRNG (never Math.random) and dates use UTC
 * arithmetic, so the same options give byte-identical JSON on any machine and time zone.
 */
import { parseDataset, type Dataset } from './dataset.js';

/** One entry of the raw LoCoMo JSON array, limited to the keys the generator writes. */
export interface RawLocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
}
export interface RawLocomoQa {
  question: string;
  answer?: string;
  adversarial_answer?: string;
  evidence: string[];
  category: number;
}
export interface RawLocomoEntry {
  sample_id: string;
  conversation: Record<string, string | RawLocomoTurn[]>;
  qa: RawLocomoQa[];
}

export interface SyntheticOptions {
  /** PRNG seed (any 32-bit integer). Default 20240601. */
  seed?: number;
  /** Number of conversations, 1–8. Default 3. */
  conversations?: number;
  /** Sessions per conversation, 2–10. Default 4. */
  sessions?: number;
}

/** Label used as `Dataset.source` and in the report's `dataset` key. */
export const SYNTHETIC_SOURCE = 'synthetic';

// ---------------------------------------------------------------------------------------------------
// Seeded PRNG.

/** mulberry32: tiny, fast, good enough for picking test data; fully determined by the seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }
  /** Fisher–Yates on a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
  /** n distinct items. */
  sample<T>(items: readonly T[], n: number): T[] {
    return this.shuffle(items).slice(0, n);
  }
}

// ---------------------------------------------------------------------------------------------------
// Vocabulary. Fact words are distinctive and never appear in filler, so retrieval has a fair signal.

const NAMES = [
  'Alice',
  'Bruno',
  'Chiara',
  'Dmitri',
  'Esther',
  'Farid',
  'Greta',
  'Hiroshi',
  'Ines',
  'Jonas',
  'Kavya',
  'Lionel',
  'Marisol',
  'Nikolai',
  'Olufemi',
  'Priya',
];
const CITIES = ['Lisbon', 'Montreal', 'Osaka', 'Edinburgh', 'Valparaiso', 'Tallinn', 'Ljubljana', 'Hobart', 'Cusco', 'Bergen'];
const JOBS: readonly { title: string; employer: string }[] = [
  { title: 'marine biologist', employer: 'the aquarium research lab' },
  { title: 'pastry chef', employer: 'a French bakery' },
  { title: 'air traffic controller', employer: 'the regional airport' },
  { title: 'landscape architect', employer: 'a botanical garden' },
  { title: 'violin teacher', employer: 'the community music school' },
  { title: 'data journalist', employer: 'a local newspaper' },
  { title: 'firefighter', employer: 'the downtown fire station' },
  { title: 'veterinary nurse', employer: 'an animal hospital' },
];
const PETS: readonly { animal: string; names: readonly string[] }[] = [
  { animal: 'beagle', names: ['Biscuit', 'Pepper', 'Waffles'] },
  { animal: 'tabby cat', names: ['Marmalade', 'Ziggy', 'Clementine'] },
  { animal: 'parrot', names: ['Captain', 'Kiwi', 'Mango'] },
  { animal: 'tortoise', names: ['Sheldon', 'Boulder', 'Tortellini'] },
  { animal: 'rabbit', names: ['Thumper', 'Clover', 'Nutmeg'] },
];
/** A hobby, and an open-domain (category 3) question that needs it: the answer is an inference. */
const HOBBIES: readonly { activity: string; statement: string; question: string; answer: string }[] = [
  {
    activity: 'rock climbing',
    statement: "I've taken up rock climbing, I go to the bouldering wall every Thursday evening.",
    question: 'Would {name} enjoy a rock climbing trip to the mountains?',
    answer: 'Likely yes; {name} goes rock climbing every week.',
  },
  {
    activity: 'pottery',
    statement: "I've started a pottery class, I spend Sunday mornings at the wheel making clay bowls.",
    question: 'Would {name} appreciate a gift of pottery tools and clay?',
    answer: 'Likely yes; {name} takes a pottery class.',
  },
  {
    activity: 'birdwatching',
    statement: "I've gotten really into birdwatching, I bought binoculars and log every bird I spot.",
    question: 'Would {name} like a birdwatching guidebook with binoculars?',
    answer: 'Likely yes; {name} is into birdwatching.',
  },
  {
    activity: 'salsa dancing',
    statement: 'I joined a salsa dancing class, we practise the dance steps every Tuesday night.',
    question: 'Would {name} enjoy going to a salsa dancing night?',
    answer: 'Likely yes; {name} takes salsa dancing classes.',
  },
  {
    activity: 'chess',
    statement: 'I joined a chess club, I play chess tournaments at the library on Saturdays.',
    question: 'Would {name} be interested in a chess tournament?',
    answer: 'Likely yes; {name} plays in a chess club.',
  },
];
/** A dated event for temporal (category 2) questions. It always happened "yesterday" in its session. */
const EVENTS: readonly { statement: string; question: string }[] = [
  { statement: 'Guess what, yesterday I ran my first half marathon and finished it!', question: 'When did {name} run a half marathon?' },
  { statement: 'Yesterday I finally passed my driving test on the second attempt.', question: 'When did {name} pass the driving test?' },
  {
    statement: 'Yesterday I went to a jazz concert at the old opera house, the saxophone solo was amazing.',
    question: 'When did {name} go to the jazz concert?',
  },
  {
    statement: 'Yesterday I volunteered at the food bank, we packed hundreds of grocery boxes.',
    question: 'When did {name} volunteer at the food bank?',
  },
  {
    statement: 'Yesterday I planted tomatoes and basil in my new vegetable garden.',
    question: 'When did {name} plant the vegetable garden?',
  },
];
const REACTIONS = [
  'Wow, that is great news, {name}! Tell me more.',
  "That's wonderful, {name}, I'm really happy for you.",
  'No way, {name}! That sounds exciting.',
  'Good for you, {name}. How does it feel?',
];
const FILLER = [
  "It's been a busy week, honestly I mostly slept on the weekend.",
  'The weather has been so strange lately, sunny one minute and grey the next.',
  'I watched a documentary last night, it was fine but a bit long.',
  'Work has been hectic, lots of meetings and emails.',
  "I'm trying to drink more water and go to bed earlier.",
  'My neighbour keeps borrowing my ladder, it is a running joke now.',
  'I reorganised my bookshelf, it took the whole afternoon.',
  'Did you see the news? Everyone is talking about the election.',
  'I finally fixed the squeaky door hinge, small victories.',
  'My phone screen cracked again, I need a better case.',
  'I tried a new recipe for lentil soup, it was decent.',
  'Traffic this morning was terrible, I was almost late.',
  'I have been listening to a podcast about ancient history.',
  'We had a power cut on Tuesday, candles everywhere.',
  'I caught a cold last week but I am feeling better now.',
  'My sister called, she says hello by the way.',
];
const GREETINGS = [
  'Hey {other}! Long time no talk, how are you?',
  'Hi {other}, good to hear from you!',
  'Hello {other}! How has your week been?',
];
const GREETING_REPLIES = ["Hi {other}! I'm good, thanks. Lots to tell you.", 'Hey {other}! Doing well, a lot has happened.'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => vars[key] ?? `{${key}}`);
}

/** LoCoMo's session date style: `2:17 pm on 9 May, 2023`. */
function formatSessionDate(d: Date): string {
  const h24 = d.getUTCHours();
  const h12 = h24 % 12 === 0 ? 12 : h24 % 12;
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${h12}:${mm} ${h24 < 12 ? 'am' : 'pm'} on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`;
}

/** LoCoMo's answer date style: `7 May 2023`. */
function formatDay(d: Date): string {
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------------
// Generation.

type FactKind = 'city' | 'job' | 'pet' | 'hobby' | 'event';

interface Persona {
  name: string;
  city: string;
  job: { title: string; employer: string };
  pet: { animal: string; name: string };
  hobby: (typeof HOBBIES)[number];
  event: (typeof EVENTS)[number];
  /** dia_id of the turn stating each fact, filled while writing sessions. */
  factTurn: Partial<Record<FactKind, string>>;
  /** Session date of the event turn, for the temporal answer. */
  eventDay?: Date;
}

function factStatement(p: Persona, kind: FactKind): string {
  switch (kind) {
    case 'city':
      return `Big news: I moved to ${p.city} last month, the city is lovely and my apartment there is full of light.`;
    case 'job':
      return `I started a new job as a ${p.job.title} at ${p.job.employer}.`;
    case 'pet':
      return `We adopted a ${p.pet.animal} named ${p.pet.name} from the shelter, ${p.pet.name} already rules the house.`;
    case 'hobby':
      return p.hobby.statement;
    case 'event':
      return p.event.statement;
  }
}

function validateCount(label: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`synthetic ${label} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/**
 * Generate the raw LoCoMo-shaped array. Per conversation and per speaker: five facts spread over the
 * sessions, and six questions whose `evidence` names the stating turns — three single-hop (category 4:
 * city, job, pet), one temporal (2: a dated event), one open-domain inference (3: hobby), one multi-hop
 * (1: city and job, two turns) — plus one adversarial question (5) per conversation, which the loader
 * excludes, so that path is exercised too.
 */
export function generateSyntheticLocomo(options: SyntheticOptions = {}): RawLocomoEntry[] {
  const seed = options.seed ?? 20240601;
  const nConversations = validateCount('conversations', options.conversations ?? 3, 1, 8);
  const nSessions = validateCount('sessions', options.sessions ?? 4, 2, 10);
  if (!Number.isInteger(seed)) throw new RangeError(`synthetic seed must be an integer, got ${seed}`);
  const rng = new Rng(seed);

  // Names are drawn without replacement across the whole dataset so no two speakers share a name.
  const names = rng.sample(NAMES, nConversations * 2);
  const entries: RawLocomoEntry[] = [];

  for (let c = 0; c < nConversations; c++) {
    // Facts are drawn without replacement within a conversation so the two speakers never share one.
    const cities = rng.sample(CITIES, 2);
    const jobs = rng.sample(JOBS, 2);
    const pets = rng.sample(PETS, 2);
    const hobbies = rng.sample(HOBBIES, 2);
    const events = rng.sample(EVENTS, 2);
    const personas: [Persona, Persona] = [0, 1].map((i) => {
      const pet = pets[i] as (typeof PETS)[number];
      return {
        name: names[c * 2 + i] as string,
        city: cities[i] as string,
        job: jobs[i] as Persona['job'],
        pet: { animal: pet.animal, name: rng.pick(pet.names) },
        hobby: hobbies[i] as Persona['hobby'],
        event: events[i] as Persona['event'],
        factTurn: {},
      };
    }) as [Persona, Persona];

    // Spread the ten statements (5 facts × 2 speakers) over the sessions, round-robin after a shuffle.
    const statements = rng.shuffle(
      personas.flatMap((_, who) => (['city', 'job', 'pet', 'hobby', 'event'] as const).map((kind) => ({ who, kind }))),
    );
    const perSession: { who: number; kind: FactKind }[][] = Array.from({ length: nSessions }, () => []);
    statements.forEach((s, i) => perSession[i % nSessions]?.push(s));

    const conversation: Record<string, string | RawLocomoTurn[]> = {
      speaker_a: personas[0].name,
      speaker_b: personas[1].name,
    };
    // Sessions start on a seeded day in 2023 and are 3–20 days apart, at a seeded time of day.
    let day = Date.UTC(2023, 0, 1) + rng.int(0, 180) * DAY_MS;
    // Filler lines are dealt from a shuffled deck so no line repeats within a conversation: a server
    // that merges identical memories must not be able to blur which turn is which.
    let deck: string[] = [];
    const filler = (): string => {
      if (deck.length === 0) deck = rng.shuffle(FILLER);
      return deck.pop() as string;
    };
    for (let s = 1; s <= nSessions; s++) {
      if (s > 1) day += rng.int(3, 20) * DAY_MS;
      const when = new Date(day + rng.int(8, 21) * 3_600_000 + rng.int(0, 59) * 60_000);
      const turns: RawLocomoTurn[] = [];
      const say = (who: number, text: string): string => {
        const dia_id = `D${s}:${turns.length + 1}`;
        turns.push({ speaker: personas[who]?.name as string, dia_id, text });
        return dia_id;
      };
      const opener = rng.int(0, 1);
      say(opener, fill(rng.pick(GREETINGS), { other: personas[1 - opener]?.name as string }));
      say(1 - opener, fill(rng.pick(GREETING_REPLIES), { other: personas[opener]?.name as string }));
      for (const { who, kind } of perSession[s - 1] ?? []) {
        const p = personas[who] as Persona;
        p.factTurn[kind] = say(who, factStatement(p, kind));
        if (kind === 'event') p.eventDay = new Date(day - DAY_MS);
        say(1 - who, fill(rng.pick(REACTIONS), { name: p.name }));
        if (rng.int(0, 1) === 1) say(rng.int(0, 1), filler());
      }
      say(rng.int(0, 1), filler());
      conversation[`session_${s}_date_time`] = formatSessionDate(when);
      conversation[`session_${s}`] = turns;
    }

    const qa: RawLocomoQa[] = [];
    for (const p of personas) {
      const ev = (kind: FactKind): string => p.factTurn[kind] as string;
      qa.push({ question: `Which city has ${p.name} moved to?`, answer: p.city, evidence: [ev('city')], category: 4 });
      qa.push({
        question: `What new job has ${p.name} started?`,
        answer: `${p.job.title} at ${p.job.employer}`,
        evidence: [ev('job')],
        category: 4,
      });
      qa.push({ question: `What is the name of ${p.name}'s ${p.pet.animal}?`, answer: p.pet.name, evidence: [ev('pet')], category: 4 });
      qa.push({
        question: fill(p.event.question, { name: p.name }),
        answer: formatDay(p.eventDay as Date),
        evidence: [ev('event')],
        category: 2,
      });
      qa.push({
        question: fill(p.hobby.question, { name: p.name }),
        answer: fill(p.hobby.answer, { name: p.name }),
        evidence: [ev('hobby')],
        category: 3,
      });
      // Multi-hop: two turns, written as one evidence entry with `;` the way the public file sometimes does.
      qa.push({
        question: `Which city has ${p.name} moved to, and what new job has ${p.name} started?`,
        answer: `${p.city}; ${p.job.title}`,
        evidence: [`${ev('city')}; ${ev('job')}`],
        category: 1,
      });
    }
    qa.push({
      question: `What is the name of ${personas[0].name}'s pet dragon?`,
      adversarial_answer: 'Not mentioned in the conversation',
      evidence: [],
      category: 5,
    });

    entries.push({ sample_id: `synthetic-${c + 1}`, conversation, qa });
  }
  return entries;
}

/** The raw dataset as JSON text; same options → byte-identical string. */
export function syntheticLocomoJson(options: SyntheticOptions = {}): string {
  return `${JSON.stringify(generateSyntheticLocomo(options), null, 2)}\n`;
}

/** The synthetic dataset, normalised through the same loader as a real file (source `synthetic`). */
export function generateSyntheticDataset(options: SyntheticOptions = {}): Dataset {
  return parseDataset(generateSyntheticLocomo(options), SYNTHETIC_SOURCE);
}
