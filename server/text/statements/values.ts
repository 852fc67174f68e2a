/** Values of facts: cut out of a clause, normalised, and compared (containment, place granularity, exclusive groups). */
import type { Fact, ValueKind } from './facts.js';
import { stripMarks, withoutLegalSuffix } from '../names.js';
import type { Tagger } from '../pos-tagger.js';

const VALUE_STOP =
  /[,;:()!?"]|\.(?:\s|$)|\s(?:with|since|for|because|until|after|before|when|whenever|while|as of|from|in|on|at|during|last|next|this|these|now|today|yesterday|tomorrow|recently|again|anymore|any more|though|although|where|who|whom|which|that|and|but|or|by|ago|so|then|every|each|full[- ]time|part[- ]time|as|to|about|around|near)\b/i;

export function cutValue(raw: string): string {
  const m = VALUE_STOP.exec(` ${raw}`);
  const cut = m ? ` ${raw}`.slice(0, m.index) : ` ${raw}`;
  return cut.replace(/^\s*(?:the|a|an|my|his|her|their|our|its)\s+/i, '').trim();
}

const SPELLING: Readonly<Record<string, string>> = {
  colour: 'color',
  colours: 'colors',
  favourite: 'favorite',
  flavour: 'flavor',
  grey: 'gray',
  theatre: 'theater',
  centre: 'center',
};

export function normalizeValue(value: string, kind: ValueKind): string {
  let v = stripMarks(value.toLowerCase())
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => SPELLING[w] ?? w)
    .join(' ');
  if (kind === 'org') v = withoutLegalSuffix(v);
  return v;
}

function placeLevel(value: string, tag: Tagger): 'city' | 'wide' | null {
  const tags = tag(value).flatMap((t) => t.tags);
  if (tags.includes('Country') || tags.includes('Region')) return 'wide';
  if (tags.includes('City')) return 'city';
  return null;
}

/** Diet values and the pairs that are compatible (a vegan is a vegetarian). */
export const EXCLUSIVE_GROUPS: Readonly<
  Record<string, { values: readonly string[]; compatible: ReadonlyArray<readonly [string, string]> }>
> = {
  diet: {
    values: ['vegan', 'vegetarian', 'pescatarian', 'pescetarian', 'omnivore', 'omnivorous', 'carnivore', 'carnivorous', 'flexitarian'],
    compatible: [
      ['vegan', 'vegetarian'],
      ['pescatarian', 'pescetarian'],
      ['omnivore', 'omnivorous'],
      ['carnivore', 'carnivorous'],
      ['omnivore', 'flexitarian'],
      ['omnivorous', 'flexitarian'],
    ],
  },
  'marital-status': {
    values: ['single', 'married', 'divorced', 'widowed', 'separated', 'unmarried'],
    compatible: [
      ['single', 'unmarried'],
      ['single', 'divorced'],
      ['single', 'widowed'],
      ['unmarried', 'divorced'],
      ['unmarried', 'widowed'],
    ],
  },
};

export function compatibleValues(a: Fact, b: Fact, tag: Tagger): boolean {
  if (a.value === b.value) return true;
  const group = EXCLUSIVE_GROUPS[a.attribute];
  if (group) return group.compatible.some(([x, y]) => (x === a.value && y === b.value) || (x === b.value && y === a.value));
  if (a.kind === 'number' || b.kind === 'number') return false;
  const ta = a.value.split(' ');
  const tb = b.value.split(' ');
  if (ta.every((w) => tb.includes(w)) || tb.every((w) => ta.includes(w))) return true;
  if (a.kind === 'place') {
    const la = placeLevel(a.value, tag);
    const lb = placeLevel(b.value, tag);
    if (la !== null && lb !== null && la !== lb) return true;
  }
  return false;
}
