/**
 * Pure domain logic of the memory consolidation pipeline: injection screening, sensitivity
 * classification, duplicate detection, contradiction detection and quality scoring. No I/O, no
 * database, no global state (the LLM contradiction detector is an adapter, `adapters/llm/`).
 */
export {
  INJECTION_FLAG_THRESHOLD,
  INJECTION_RULES,
  combineWeights,
  deobfuscate,
  normalizeForScreening,
  screenForInjection,
  type InjectionCategory,
  type InjectionPattern,
  type InjectionPatternId,
  type InjectionScreenResult,
} from './injection-screen.js';
export { screenMemoryForInjection, type MemoryInjectionPattern, type MemoryScreenResult, type ScreenableMemory } from './memory-screen.js';
export {
  SENSITIVITY_LEVELS,
  classifySensitivity,
  detectSensitiveData,
  isIban,
  isPaymentCard,
  isValidNino,
  isValidSsn,
  levelOfReason,
  luhnValid,
  maxSensitivity,
  shannonEntropy,
  type SensitivityLevel,
  type SensitivityOptions,
  type SensitivityReason,
  type SensitivityResult,
} from './sensitivity.js';
export {
  contentFingerprint,
  cosineSimilarity,
  jaccardSimilarity,
  normalizeText,
  shingles,
  similarityTokens,
  textSimilarity,
  tokenize,
} from './similarity.js';
export {
  NEAR_DUPLICATE_THRESHOLD,
  duplicateSimilarity,
  findDuplicate,
  type DedupeCandidate,
  type DedupeExisting,
  type DuplicateMatch,
  type FindDuplicateOptions,
} from './dedupe.js';
export {
  ATTRIBUTE_RULES,
  OfflineContradictionDetector,
  canonicalSubject,
  compareFacts,
  detectContradiction,
  extractFacts,
  type ContradictionDetector,
  type ContradictionInput,
  type ContradictionResult,
  type Fact,
  type AttributeRule,
  type Tense,
  type TenseMode,
  type ValueKind,
} from './contradiction.js';
export { qualityBreakdown, qualityScore, type QualityBreakdown, type QualityInput } from './quality.js';
