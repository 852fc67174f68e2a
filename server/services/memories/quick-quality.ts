/**
 * A fast estimate of `qualityScore` (server/services/consolidation/quality.ts) for the consolidation
 * hot path: the same formula, weights and penalties, with the two parts that need a part-of-speech
 * tagger approximated by surface cues. Pure, and a small fraction of the cost of a compromise parse, which
 * alone would cap consolidation throughput (figures: docs/performance.md#fast-quality-estimate).
 *
 *  - specificity: anchors are distinct capitalised words that are not sentence-initial function words
 *    (names, places, organisations), numbers and date words; "nouns" are distinct other content words
 *    of 3+ letters that are neither function words, auxiliaries nor -ly adverbs (an over-count, as
 *    adjectives pass too; the component saturates at 3 anyway).
 *  - structure: a verb is assumed when the text has an auxiliary or modal, a word ending in -ed/-ing,
 *    a common verb, or a third-person "-s" verb after a name or pronoun.
 *
 * `bench/consolidation.ts --quality-compare` reports how closely it tracks the NLP score.
 */

import {
  combineQuality,
  penaltyOf,
  readQualityText,
  specificityOf,
  structureOf,
  type QualityInput,
} from '../consolidation/quality-formula.js';

export type QuickQualityInput = QualityInput;

const FUNCTION = new Set(
  (
    'a an the this that these those there here it its is are was were be been being am do does did done has have had having will would ' +
    'can could should shall may might must not no nor never and or but if then so as at by for from in into of on to with without ' +
    'about after before during since until while when where why how what which who whom whose i me my mine we us our ours you your ' +
    'yours he him his she her hers they them their theirs also just very really quite some any all each every both either neither ' +
    'more most less least much many few other another such only own same than too again further once please ok okay yes'
  ).split(' '),
);
const AUX = /\b(?:is|are|was|were|be|been|being|am|do|does|did|has|have|had|will|would|can|could|should|shall|may|might|must)\b|n['’]t\b/i;
const COMMON_VERBS =
  /\b(?:like|likes|liked|love|loves|loved|want|wants|wanted|need|needs|needed|prefer|prefers|preferred|live|lives|lived|work|works|worked|use|uses|used|go|goes|went|get|gets|got|make|makes|made|know|knows|knew|think|thinks|thought|say|says|said|see|sees|saw|take|takes|took|come|comes|came|give|gives|gave|find|finds|found|tell|tells|told|call|calls|called|try|tries|tried|keep|keeps|kept|buy|buys|bought|pay|pays|paid|meet|meets|met|plan|plans|planned|start|starts|started|move|moves|moved|join|joins|joined|own|owns|owned|eat|eats|ate|drink|drinks|drank|run|runs|ran|read|reads|write|writes|wrote|enjoy|enjoys|enjoyed|visit|visits|visited|present|presents|presented|follow|follows|followed)\b/i;
const THIRD_PERSON = /\b(?:he|she|it|they|\p{Lu}[\p{L}'’-]*)\s+(?:also\s+|often\s+|usually\s+)?\p{Ll}{2,}s\b/u;
const DATE_WORD =
  /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|yesterday|tonight)$/i;

/** Quality in [0, 1], rounded to 3 decimals (see module comment). */
export function quickQualityScore(memory: QuickQualityInput): number {
  const text = readQualityText(memory.content);
  if (!text) return 0;
  const { content } = text;

  const anchors = new Set<string>();
  const nouns = new Set<string>();
  let sentenceStart = true;
  for (const m of content.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[.!?;:\n]+/gu)) {
    const token = m[0];
    if (/^[.!?;:\n]+$/.test(token)) {
      sentenceStart = /[.!?\n]/.test(token);
      continue;
    }
    const key = token.toLowerCase().replace(/['’]s$/, '');
    const initial = sentenceStart;
    sentenceStart = false;
    if (/\d/.test(token) || DATE_WORD.test(key)) anchors.add(key);
    else if (/^\p{Lu}/u.test(token) && !(initial && FUNCTION.has(key)) && !FUNCTION.has(key)) anchors.add(key);
    else if (key.length >= 3 && !FUNCTION.has(key) && !key.endsWith('ly')) nouns.add(key);
  }

  const hasVerb = AUX.test(content) || COMMON_VERBS.test(content) || /\b\p{L}{3,}(?:ed|ing)\b/u.test(content) || THIRD_PERSON.test(content);
  const parts = {
    length: text.length,
    diversity: text.diversity,
    specificity: specificityOf(anchors.size, nouns.size),
    structure: structureOf(hasVerb, memory),
  };
  return combineQuality(parts, penaltyOf(text));
}
