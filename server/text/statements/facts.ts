/** What the statement extractor finds in a text (read by the contradiction detector and, mapped to its predicates, the knowledge extractor). */

export type Tense = 'present' | 'past';

/** One extracted statement. */
export interface Fact {
  /** Canonical subject: lower-case name ("alice"), "user" for first person, or a head noun. */
  subject: string;
  /** Attribute name, e.g. residence, employer, role, spouse, age, diet, favorite-color, state, or a verb. */
  attribute: string;
  /** Normalised value (lower case). */
  value: string;
  negated: boolean;
  tense: Tense;
  /** A single-valued attribute: two different affirmative values conflict. */
  single: boolean;
  /** How values are compared. */
  kind: ValueKind;
}

export type ValueKind = 'place' | 'org' | 'person' | 'number' | 'text';
