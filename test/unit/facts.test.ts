import { describe, expect, it } from 'vitest';
import { extractFacts, MAX_FACT_INPUT_CHARS, normaliseName, type Fact } from '../../server/text/facts.js';

type Triple = [subject: string, predicate: Fact['predicate'], object: string, confidence: number];

const triples = (text: string, speaker?: string) =>
  extractFacts(text, { speaker, defaultRegion: 'US' }).map((f): Triple => [f.subject, f.predicate, f.object, f.confidence]);

describe('extractFacts: plain statements', () => {
  // Each sentence states exactly these facts, with these confidences (the scale in fact-patterns.ts).
  const cases: [string, Triple[]][] = [
    [
      'Dana Whitfield works at Northwind as a staff engineer.',
      [
        ['Dana Whitfield', 'works_at', 'Northwind', 0.9],
        ['Dana Whitfield', 'job_title', 'staff engineer', 0.9],
      ],
    ],
    [
      'Dana is a product manager at Globex.',
      [
        ['Dana', 'works_at', 'Globex', 0.9],
        ['Dana', 'job_title', 'product manager', 0.9],
      ],
    ],
    [
      'Marco works as a data analyst for Tessera Bank.',
      [
        ['Marco', 'works_at', 'Tessera Bank', 0.9],
        ['Marco', 'job_title', 'data analyst', 0.9],
      ],
    ],
    ['Ines has been working for Bluefin Labs since 2019', [['Ines', 'works_at', 'Bluefin Labs', 0.9]]],
    ['Okafor is employed by Halvard Shipping.', [['Okafor', 'works_at', 'Halvard Shipping', 0.9]]],
    [
      'Lena Brandt is the VP of Engineering at Quillsoft.',
      [
        ['Lena Brandt', 'works_at', 'Quillsoft', 0.9],
        ['Lena Brandt', 'job_title', 'VP of Engineering', 0.9],
      ],
    ],
    [
      'Tomás is head of sales at Verdant Foods.',
      [
        ['Tomás', 'works_at', 'Verdant Foods', 0.9],
        ['Tomás', 'job_title', 'head of sales', 0.9],
      ],
    ],
    [
      'Yuki became CTO of Orbitly in 2020.',
      [
        ['Yuki', 'works_at', 'Orbitly', 0.9],
        ['Yuki', 'job_title', 'CTO', 0.9],
      ],
    ],
    [
      'Aisha is Kestrel Health’s CFO.',
      [
        ['Aisha', 'works_at', 'Kestrel Health', 0.85],
        ['Aisha', 'job_title', 'CFO', 0.85],
      ],
    ],
    [
      'Dana, CTO of Acme, opened the meeting.',
      [
        ['Dana', 'works_at', 'Acme', 0.85],
        ['Dana', 'job_title', 'CTO', 0.85],
      ],
    ],
    [
      'We met Priya Raman, a senior designer at Loomwork, over coffee.',
      [
        ['Priya Raman', 'works_at', 'Loomwork', 0.85],
        ['Priya Raman', 'job_title', 'senior designer', 0.85],
      ],
    ],
    [
      'Acme’s CTO, Bo Lindqvist, will present.',
      [
        ['Bo Lindqvist', 'works_at', 'Acme', 0.85],
        ['Bo Lindqvist', 'job_title', 'CTO', 0.85],
      ],
    ],
    [
      'Globex CEO Hank Scorpio spoke first.',
      [
        ['Hank Scorpio', 'works_at', 'Globex', 0.85],
        ['Hank Scorpio', 'job_title', 'CEO', 0.85],
      ],
    ],
    ['Dana joined Initech in 2021.', [['Dana', 'joined', 'Initech', 0.9]]],
    [
      'Yesterday Priya joined Stark Industries as a senior data scientist!',
      [
        ['Priya', 'joined', 'Stark Industries', 0.9],
        ['Priya', 'job_title', 'senior data scientist', 0.85],
      ],
    ],
    ['Raj got a job at Pinecrest Insurance.', [['Raj', 'joined', 'Pinecrest Insurance', 0.9]]],
    [
      'Noor was hired by Calloway Media as a copywriter',
      [
        ['Noor', 'joined', 'Calloway Media', 0.9],
        ['Noor', 'job_title', 'copywriter', 0.85],
      ],
    ],
    ['Acme is headquartered in Lyon.', [['Acme', 'headquartered_in', 'Lyon', 0.9]]],
    ['Acme’s HQ is in Lyon.', [['Acme', 'headquartered_in', 'Lyon', 0.9]]],
    ['Brightwave has its head office in Rio de Janeiro.', [['Brightwave', 'headquartered_in', 'Rio de Janeiro', 0.9]]],
    ['Acme, based in Lyon, builds drones.', [['Acme', 'based_in', 'Lyon', 0.85]]],
    ['Talvik, a fintech startup based in Tallinn, raised a seed round.', [['Talvik', 'based_in', 'Tallinn', 0.85]]],
    ['The Oslo-based studio Fjordlight won the pitch.', [['Fjordlight', 'based_in', 'Oslo', 0.8]]],
    ['Dana lives in Porto.', [['Dana', 'lives_in', 'Porto', 0.9]]],
    ['Dana moved to Porto last spring.', [['Dana', 'lives_in', 'Porto', 0.85]]],
    ['Kofi relocated from Accra to Toronto.', [['Kofi', 'lives_in', 'Toronto', 0.85]]],
    ['Dana, who lives in São Paulo, joined the call late.', [['Dana', 'lives_in', 'São Paulo', 0.85]]],
    ['Dana reports to Sam.', [['Dana', 'reports_to', 'Sam', 0.9]]],
    ['Dana’s manager is Sam Carter.', [['Dana', 'reports_to', 'Sam Carter', 0.9]]],
    ['Dana leads Project Falcon.', [['Dana', 'leads', 'Project Falcon', 0.9]]],
    ['Helga is the owner of Project Tundra.', [['Helga', 'owns', 'Project Tundra', 0.9]]],
    ['Project Tundra is on hold until the audit.', [['Project Tundra', 'status', 'paused', 0.85]]],
    ['The Falcon project shipped last week.', [['Falcon project', 'status', 'done', 0.85]]],
    ['Acme’s Project Falcon slipped again.', [['Project Falcon', 'belongs_to', 'Acme', 0.8]]],
    ['Acme’s website is acme.io', [['Acme', 'website', 'acme.io', 0.9]]],
    ['Check out Globex at https://www.globex.com/about.', [['Globex', 'website', 'https://www.globex.com/about', 0.85]]],
    ['You can email Dana at dana@northwind.io.', [['Dana', 'email', 'dana@northwind.io', 0.85]]],
    ['Dana’s number is +1 415 555 0132.', [['Dana', 'phone', '+14155550132', 0.9]]],
    ['Ravi Patel (ravi.patel@quillsoft.dev) sent the deck.', [['Ravi Patel', 'email', 'ravi.patel@quillsoft.dev', 0.85]]],
    // No words attribute the address: the one person the sentence names gets it, weakly; two names, nobody.
    [
      'Met Ingrid Solberg at the conference today; details: ingrid.s@fjordlab.no',
      [['Ingrid Solberg', 'email', 'ingrid.s@fjordlab.no', 0.6]],
    ],
    ['Notes from the call with Ingrid Solberg and Tomas Berg, ingrid.s@fjordlab.no', []],
  ];
  it.each(cases)('%s', (text, expected) => {
    expect(triples(text)).toEqual(expected);
  });
});

describe('extractFacts: negation, past and hedges', () => {
  const cases: [string, Triple[]][] = [
    // Negative facts about employment are kept as `left`; elsewhere a negation states nothing.
    ['Dana no longer works at Hooli.', [['Dana', 'left', 'Hooli', 0.9]]],
    ['Dana doesn’t work at Initech anymore.', [['Dana', 'left', 'Initech', 0.9]]],
    ['Dana left Hooli in March.', [['Dana', 'left', 'Hooli', 0.9]]],
    [
      'Dana quit Hooli to join Pied Piper.',
      [
        ['Dana', 'left', 'Hooli', 0.9],
        ['Dana', 'joined', 'Pied Piper', 0.85],
      ],
    ],
    [
      'Dana left Initech for Globex last year.',
      [
        ['Dana', 'left', 'Initech', 0.9],
        ['Dana', 'joined', 'Globex', 0.85],
      ],
    ],
    ['Mei was laid off from Corvid Systems.', [['Mei', 'left', 'Corvid Systems', 0.9]]],
    ['Dana stepped down as CEO of Acme.', [['Dana', 'left', 'Acme', 0.9]]],
    [
      'Dana used to work at Initech, but now she works at Hooli.',
      [
        ['Dana', 'left', 'Initech', 0.9],
        ['Dana', 'works_at', 'Hooli', 0.81],
      ],
    ],
    ['Dana worked at Initech.', [['Dana', 'worked_at', 'Initech', 0.9]]],
    ['Dana was a teacher before all this.', [['Dana', 'job_title', 'teacher', 0.48]]],
    ['Dana lived in Berlin for years.', []],
    ['Dana does not live in Porto.', []],
    ['Sam is not Dana’s manager.', []],
    ['I think Dana works at Pied Piper.', [['Dana', 'works_at', 'Pied Piper', 0.68]]],
    ['Apparently Acme is headquartered in Lyon.', [['Acme', 'headquartered_in', 'Lyon', 0.68]]],
    ['Dana will join Acme next month.', [['Dana', 'joined', 'Acme', 0.63]]],
    ['Dana is joining Globex in May.', [['Dana', 'joined', 'Globex', 0.63]]],
    ['If Dana joins Acme we should celebrate.', [['Dana', 'joined', 'Acme', 0.45]]],
    ['Does Dana work at Acme?', []],
    ['Dana is happy with the designer.', []],
    ['Dana is a brilliant engineer.', [['Dana', 'job_title', 'engineer', 0.8]]],
    // "Moved to" a name compromise does not know as a place may be a new job: less sure.
    ['Update: Dana moved to Globex last week.', [['Dana', 'lives_in', 'Globex', 0.6]]],
    ['Dana works for Sam Carter.', [['Dana', 'reports_to', 'Sam Carter', 0.7]]],
    [
      'Dana’s a nurse at Mercy General.',
      [
        ['Dana', 'works_at', 'Mercy General', 0.9],
        ['Dana', 'job_title', 'nurse', 0.9],
      ],
    ],
  ];
  it.each(cases)('%s', (text, expected) => {
    expect(triples(text)).toEqual(expected);
  });
});

describe('extractFacts: first person, pronouns and inverse facts', () => {
  const cases: [string, string | undefined, Triple[]][] = [
    ['I work at Umbrella Corp.', 'Priya', [['Priya', 'works_at', 'Umbrella Corp', 0.9]]],
    ['I work at Umbrella Corp.', undefined, []],
    [
      'I’m a nurse at Saint Mary Hospital.',
      'Priya',
      [
        ['Priya', 'works_at', 'Saint Mary Hospital', 0.9],
        ['Priya', 'job_title', 'nurse', 0.9],
      ],
    ],
    ['My manager is Sam Carter.', 'Priya', [['Priya', 'reports_to', 'Sam Carter', 0.9]]],
    ['Sam is my boss.', 'Priya', [['Sam', 'manager_of', 'Priya', 0.9]]],
    ['My email is priya@example.org.', 'Priya', [['Priya', 'email', 'priya@example.org', 0.9]]],
    ['Call me on +44 7911 123456.', 'Priya', [['Priya', 'phone', '+447911123456', 0.85]]],
    ['Sam is Dana’s manager.', undefined, [['Sam', 'manager_of', 'Dana', 0.9]]],
    ['Sam manages Dana.', undefined, [['Sam', 'manager_of', 'Dana', 0.9]]],
    ['Project Falcon is owned by Dana.', undefined, [['Dana', 'owns', 'Project Falcon', 0.85]]],
    ['The Falcon project is led by Dana.', undefined, [['Dana', 'leads', 'Falcon project', 0.85]]],
    ['Dana Whitfield is great. She works at Acme.', undefined, [['Dana Whitfield', 'works_at', 'Acme', 0.81]]],
    [
      'Had lunch with Dana, she just started at Globex as a PM.',
      undefined,
      [
        ['Dana', 'joined', 'Globex', 0.81],
        ['Dana', 'job_title', 'PM', 0.77],
      ],
    ],
    [
      'Dana Whitfield joined Acme in May. She leads Project Falcon and reports to Sam Carter.',
      undefined,
      [
        ['Dana Whitfield', 'joined', 'Acme', 0.9],
        ['Dana Whitfield', 'leads', 'Project Falcon', 0.81],
        ['Dana Whitfield', 'reports_to', 'Sam Carter', 0.81],
      ],
    ],
    [
      'Dana and Sam work at Acme.',
      undefined,
      [
        ['Dana', 'works_at', 'Acme', 0.9],
        ['Sam', 'works_at', 'Acme', 0.9],
      ],
    ],
    ['We are based in Berlin.', undefined, []],
    // Two people before "she": nobody can tell who is meant, so nothing is said.
    ['Dana met Sam. She works at Acme.', undefined, []],
  ];
  it.each(cases)('%s (speaker %s)', (text, speaker, expected) => {
    expect(triples(text, speaker)).toEqual(expected);
  });
});

describe('extractFacts: spans and bounds', () => {
  it('gives each fact the span of the words that state it', () => {
    const text = 'Notes from Monday. Acme is headquartered in Lyon. Dana lives in Porto.';
    const facts = extractFacts(text);
    expect(facts.map((f) => text.slice(...f.span))).toEqual(['Acme is headquartered in Lyon', 'Dana lives in Porto']);
  });

  it('keeps the strongest reading when two phrasings state the same fact', () => {
    const facts = extractFacts('I think Dana works at Acme. Dana works at Acme.');
    expect(facts).toHaveLength(1);
    expect(facts[0]!.confidence).toBe(0.9);
  });

  it('caps the facts per text and reads only the first MAX_FACT_INPUT_CHARS characters', () => {
    const many = Array.from({ length: 30 }, (_, i) => `Person${String.fromCharCode(65 + (i % 26))}x${i} lives in Porto.`).join(' ');
    expect(extractFacts(many, { maxFacts: 5 })).toHaveLength(5);
    const late = ' '.repeat(MAX_FACT_INPUT_CHARS) + 'Dana lives in Porto.';
    expect(extractFacts(late)).toEqual([]);
  });

  it('drops contact details nobody is named for', () => {
    expect(extractFacts('Send it to billing@acme.io or call +1 415 555 0132.')).toEqual([]);
  });

  it('ignores file names and addresses that only look like domains', () => {
    expect(extractFacts('Acme’s website is main.py')).toEqual([]);
    expect(extractFacts('Acme’s website is 10.0.0.7')).toEqual([]);
  });
});

describe('normaliseName', () => {
  it.each([
    ['Dana Whitfield', 'dana whitfield'],
    ['  DANA   whitfield ', 'dana whitfield'],
    ['Dana’s', 'dana'],
    ['Renée Dupont', 'renee dupont'],
    ['Dr. Dana Whitfield', 'dana whitfield'],
    ['Acme, Inc.', 'acme'],
    ['The Acme Corporation', 'acme'],
    ['Procter & Gamble', 'procter and gamble'],
    ['Inc', 'inc'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseName(input)).toBe(expected);
  });
});
