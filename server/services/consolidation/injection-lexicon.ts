/**
 * Non-English forms of the two most common injection orders — "ignore the previous instructions" and
 * "reveal your system prompt" — built from one small lexicon per language rather than one pattern
 * per sample. Texts arrive normalised (NFKC, lower case, single spaces); accents are matched both
 * with and without them, as attackers drop them. Every quantifier is bounded: no pattern can
 * backtrack catastrophically.
 */

/** Word edges for any script (`\b` only knows ASCII); `compactRule` strips them. */
export const WB = '(?<![\\p{L}\\p{N}])';
export const WE = '(?![\\p{L}\\p{N}])';

interface Lexicon {
  /** Imperatives of ignore/forget/disregard (a subject pronoun before them means a statement, not an order). */
  verbs: string;
  /** Pronouns that make the verb a statement ("il ignore …"). */
  subjects?: string;
  /** Articles and demonstratives. */
  articles: string;
  /** "all", "your": enough on their own to aim the order at the reader's instructions. */
  strong: string;
  /** previous, above, original, of the system … */
  qualifiers: string;
  nouns: string;
  /** Verbs in the infinitive after the noun (German word order: "alle vorherigen Anweisungen ignorieren"). */
  trailingVerbs?: string;
  /** Reveal/show/print imperatives. */
  revealVerbs: string;
  /** What a system prompt is called ("prompt système", "systemprompt"). */
  secretNouns: string;
  /** "your" + a bare noun is enough ("dime tus instrucciones"). */
  possessives: string;
  possessedNouns: string;
}

const LEXICONS: Readonly<Record<string, Lexicon>> = {
  fr: {
    verbs:
      'ignore|ignorez|ignorer|oublie|oubliez|oublier|n[ée]glige|n[ée]gligez|[ée]carte|[ée]cartez|passe outre|passez outre|ne (?:tiens|tenez) (?:pas|plus) compte|fais abstraction|faites abstraction|ne (?:suis|suivez) (?:pas|plus)',
    subjects: "il|elle|on|je|j'|qui|[çc]a|cela|tu",
    articles: "les|la|le|l'|des|de|du|d'|ces|cette|ce|aux|toute",
    strong: "toutes|tous|tout|tes|vos|ton|ta|votre|l'ensemble des",
    qualifiers:
      "pr[ée]c[ée]dentes?|pr[ée]c[ée]dents|ant[ée]rieures?|ant[ée]rieurs|ci-dessus|plus haut|d'origine|initiales?|initiaux|originales?|originaux|du syst[èe]me|syst[èe]me|de s[ée]curit[ée]|pr[ée]alables?|re[çc]ues?|donn[ée]es",
    nouns:
      'instructions?|consignes?|r[èe]gles?|directives?|ordres?|prompts?|messages?|commandes?|indications?|contraintes?|restrictions?|filtres?',
    revealVerbs:
      'r[ée]v[èée]le|r[ée]v[ée]lez|affiche|affichez|montre|montrez|montre-moi|montrez-moi|donne-moi|donnez-moi|imprime|imprimez|r[ée]p[èe]te|r[ée]p[ée]tez|divulgue|divulguez|d[ée]voile|d[ée]voilez|[ée]cris|[ée]crivez|partage|partagez|recopie|recopiez',
    secretNouns:
      "prompt (?:syst[èe]me|initial|d'origine|cach[ée])|invite syst[èe]me|instructions (?:syst[èe]me|du syst[èe]me|initiales|d'origine|cach[ée]es|secr[èe]tes)|message syst[èe]me|consignes (?:syst[èe]me|initiales|cach[ée]es|secr[èe]tes)",
    possessives: 'ton|ta|tes|votre|vos',
    possessedNouns: 'prompt|instructions|consignes',
  },
  es: {
    verbs:
      'ignora|ignore|ignoren|ignorad|ignorar|olvida|olvide|olviden|olvidad|olv[íi]date de|olv[íi]dense de|descarta|descarte|descartad|omite|omita|omitid|no sigas|no siga|no sigan|haz caso omiso (?:a|de)|hagan caso omiso (?:a|de)|pasa por alto|deja de lado|salta(?:te)?',
    subjects: '[ée]l|ella|yo|usted|que|quien|t[úu]',
    articles: 'las|los|la|el|lo|esas|estas|esos|estos|a|de',
    strong: 'todas|todos|todo|tus|sus|vuestras|vuestros|cualquier',
    qualifiers:
      'anteriores|previas|previos|precedentes|de arriba|de antes|originales|iniciales|del sistema|de sistema|de seguridad|pasadas|mencionadas|recibidas|dadas',
    nouns:
      'instrucciones|instrucci[óo]n|reglas|normas|indicaciones|directrices|directivas|[óo]rdenes|prompts?|mensajes|restricciones|comandos|pautas',
    revealVerbs:
      'revela|revele|revelad|muestra|muestre|mu[ée]strame|mu[ée]streme|imprime|imprima|dime|d[ií]game|dame|d[ée]me|repite|repita|escribe|escriba|comparte|comparta|filtra',
    secretNouns:
      'prompt (?:del sistema|de sistema|inicial|original|oculto)|instrucciones (?:del sistema|de sistema|iniciales|originales|ocultas|secretas)|mensaje (?:del|de) sistema',
    possessives: 'tu|tus|su|sus|vuestro|vuestras',
    possessedNouns: 'prompt|instrucciones',
  },
  pt: {
    verbs:
      'ignore|ignora|ignorem|ignorar|esque[çc]a|esquece|esque[çc]am|desconsidere|desconsidera|desconsiderem|descarte|descarta|n[ãa]o siga|n[ãa]o sigas|deixe de lado|pule',
    subjects: 'ele|ela|eu|voc[êe]|que|quem|tu',
    articles: 'as|os|a|o|essas|estas|esses|estes|de|das|dos',
    strong: 'todas|todos|tudo|suas|seus|tuas|teus|quaisquer',
    qualifiers:
      'anteriores|pr[ée]vias|pr[ée]vios|precedentes|acima|originais|iniciais|do sistema|de sistema|de seguran[çc]a|passadas|mencionadas|recebidas|dadas',
    nouns:
      'instru[çc][õo]es|instru[çc][ãa]o|regras|orienta[çc][õo]es|diretrizes|diretivas|ordens|prompts?|mensagens|restri[çc][õo]es|comandos',
    revealVerbs: 'revele|revela|mostre|mostra|mostre-me|imprima|imprime|diga-me|me diga|repita|repete|escreva|escreve|compartilhe|exiba',
    secretNouns:
      'prompt (?:do sistema|de sistema|inicial|original|oculto)|instru[çc][õo]es (?:do sistema|de sistema|iniciais|originais|ocultas|secretas)|mensagem do sistema',
    possessives: 'seu|seus|sua|suas|teu|teus|tuas',
    possessedNouns: 'prompt|instru[çc][õo]es',
  },
  it: {
    verbs:
      'ignora|ignorate|ignori|ignorare|dimentica|dimenticate|dimentichi|dimenticare|trascura|trascurate|tralascia|tralasciate|scarta|scartate|non seguire|non seguite|non tenere conto (?:di|delle|dei|degli)|non tenete conto (?:di|delle|dei|degli)',
    subjects: 'lui|lei|io|che|chi|tu',
    articles: "le|la|il|lo|gli|i|l'|queste|quelle|di|delle|dei",
    strong: 'tutte|tutti|tutto|tue|tuoi|vostre|vostri|sue|qualsiasi|ogni',
    qualifiers: 'precedenti|sopra|sopraindicate|originali|iniziali|del sistema|di sistema|di sicurezza|anteriori|passate|ricevute|date',
    nouns: 'istruzioni|istruzione|regole|indicazioni|direttive|ordini|prompts?|messaggi|restrizioni|comandi|linee guida',
    revealVerbs:
      'rivela|rivelami|rivelate|mostra|mostrami|mostrate|stampa|stampate|dimmi|ditemi|ripeti|ripetete|scrivi|scrivete|condividi|svela|svelami',
    secretNouns:
      'prompt (?:di sistema|del sistema|iniziale|originale|nascosto)|istruzioni (?:di sistema|del sistema|iniziali|originali|nascoste|segrete)|messaggio (?:di|del) sistema',
    possessives: 'tuo|tuoi|tua|tue|vostro|vostre|il tuo|i tuoi|le tue',
    possessedNouns: 'prompt|istruzioni',
  },
  de: {
    verbs:
      'ignoriere|ignorier|ignorieren sie|ignoriert|vergiss|vergesst|vergessen sie|missachte|missachtet|missachten sie|verwirf|verwerft|verwerfen sie|[üu]bergehe|[üu]berspringe|befolge nicht|befolgen sie nicht|beachte nicht|beachten sie nicht',
    articles: 'die|den|der|das|diese|jene',
    strong: 'alle|s[äa]mtliche|deine|ihre|jegliche|eure',
    qualifiers:
      'vorherigen|vorigen|bisherigen|obigen|fr[üu]heren|vorangegangenen|vorangehenden|urspr[üu]nglichen|anf[äa]nglichen|system|systemseitigen|oben genannten|gegebenen|erhaltenen|alten',
    nouns:
      'anweisungen|anweisung|instruktionen|regeln|befehle|vorgaben|richtlinien|anordnungen|systemprompts?|prompts?|nachrichten|einschr[äa]nkungen|beschr[äa]nkungen|direktiven|auftr[äa]ge',
    trailingVerbs: 'ignorieren|vergessen|missachten|verwerfen|[üu]bergehen',
    revealVerbs:
      'zeige|zeig|gib|nenne|verrate|wiederhole|drucke|schreibe|offenbare|enth[üu]lle|gib mir|zeig mir|zeige mir|nenne mir|verrate mir|gebt mir|zeigen sie mir|geben sie mir',
    secretNouns:
      'system-?prompt|systemanweisungen|systemnachricht|urspr[üu]nglichen anweisungen|anf[äa]nglichen anweisungen|versteckten anweisungen|geheimen anweisungen',
    possessives: 'deinen|deine|dein|ihren|ihre|euren|eure',
    possessedNouns: 'prompt|anweisungen|instruktionen',
  },
};

const MAX_GAP_WORDS = 3;

function overrideRules(l: Lexicon): RegExp[] {
  const subject = l.subjects ? `(?<!${WB}(?:${l.subjects})\\s)` : '';
  const fill = `(?:(?:${l.articles}|${l.strong})\\s+){0,${MAX_GAP_WORDS}}`;
  const rules = [
    // verb (all|your …) noun: "ignora todas las instrucciones", "vergiss alle Regeln"
    `${subject}${WB}(?:${l.verbs})\\s+(?:(?:${l.articles})\\s+)?(?:${l.strong})\\s+${fill}(?:(?:${l.qualifiers})\\s+)?(?:${l.nouns})${WE}`,
    // verb … qualifier noun, or verb … noun qualifier: "ignore les instructions précédentes"
    `${subject}${WB}(?:${l.verbs})\\s+${fill}(?:(?:${l.qualifiers})\\s+(?:${l.nouns})|(?:${l.nouns})\\s+(?:(?:${l.articles})\\s+)?(?:${l.qualifiers}))${WE}`,
  ];
  if (l.trailingVerbs) {
    rules.push(`${WB}(?:${l.strong}|${l.articles})\\s+(?:(?:${l.qualifiers})\\s+)?(?:${l.nouns})\\s+(?:${l.trailingVerbs})${WE}`);
  }
  return rules.map((r) => new RegExp(r, 'u'));
}

function revealRules(l: Lexicon): RegExp[] {
  const fill = `(?:(?:${l.articles}|${l.strong}|me|mir|moi)\\s+){0,${MAX_GAP_WORDS}}`;
  return [
    `${WB}(?:${l.revealVerbs})\\s+${fill}(?:${l.secretNouns})${WE}`,
    `${WB}(?:${l.revealVerbs})\\s+${fill}(?:${l.possessives})\\s+(?:${l.possessedNouns})${WE}`,
  ].map((r) => new RegExp(r, 'u'));
}

/** Chinese and Russian: scripts of their own, written out directly. */
const CJK_OVERRIDE =
  /(?<![我你他她它们們])(?:忽略|无视|無視|忽視|忘记|忘記|忘掉|不要理会|不要理會|不要遵守|不再遵守|跳过|跳過|放弃|放棄)(?!了)[^。！？\n]{0,6}?(?:之前|以前|先前|上面|上述|前面|所有|全部|系统|系統|原来|原來|原有|一切|早先)[^。！？\n]{0,6}?(?:指令|指示|说明|說明|规则|規則|提示词|提示詞|提示|命令|设定|設定|要求|限制)/u;
const CJK_REVEAL =
  /(?:显示|顯示|输出|輸出|告诉我|告訴我|泄露|洩露|打印|透露|说出|說出|重复|重複|展示|给我看|給我看)[^。！？\n]{0,6}?(?:系统提示|系統提示|提示词|提示詞|系统指令|系統指令|初始指令|原始指令|隐藏指令|隱藏指令|系统消息|系統消息)/u;
const RU_OVERRIDE = new RegExp(
  `${WB}(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?|не обращай(?:те)? внимания на|отбрось(?:те)?|пропусти(?:те)?|не следуй(?:те)?|не выполняй(?:те)?)\\s+(?:(?:все|всё|любые|свои|твои|ваши|эти|данные)\\s+){0,2}(?:(?:предыдущие|прежние|предшествующие|вышеуказанные|вышеприведённые|вышеприведенные|системные|изначальные|исходные|прошлые|старые|полученные)\\s+)?(?:инструкции|указания|правила|команды|промпты?|директивы|ограничения|установки)${WE}`,
  'u',
);
const RU_REVEAL = new RegExp(
  `${WB}(?:покажи|выведи|раскрой|напечатай|повтори|сообщи|открой|назови|перечисли)(?:те)?\\s+(?:мне\\s+)?(?:(?:свой|свои|твой|твои|ваш|ваши|весь|полный|полностью)\\s+){0,2}(?:системный промпт|системные инструкции|системное сообщение|исходные инструкции|скрытые инструкции|изначальные инструкции|промпт)${WE}`,
  'u',
);

const CJK_NOUNS = '指令|指示|说明|說明|规则|規則|提示|命令|设定|設定|要求|限制|系统|系統';
const RU_NOUNS = 'инструкци|указани|правил|команд|промпт|директив|ограничени|установк|системн';

/**
 * Every rule here needs one of these nouns: texts without any skip the rules (most memories), which
 * keeps the cost of seven languages off ordinary writes.
 */
export const FOREIGN_GATE = new RegExp(
  [...Object.values(LEXICONS).flatMap((l) => [l.nouns, l.secretNouns, l.possessedNouns]), CJK_NOUNS, RU_NOUNS].join('|'),
  'u',
);

const AI_WORD =
  'ia|i\\.a\\.|ki|llm|ai|gpt|chatgpt|chatbot|intelligence artificielle|inteligencia artificial|intelig[êe]ncia artificial|intelligenza artificiale|sprachmodell|mod[eè]le de langage|modelo de lenguaje|modelo de linguagem|modello linguistico|assistente ia|assistant ia|asistente de ia|ki-assistent';

/**
 * "If you are an AI, …" / "Note to the AI reading this" in the same languages: text addressed to the
 * model that will read the memory. A comma or colon must follow, as in English ("si eres una IA
 * generativa, lee el manual" is a sentence, not an address, and does not match).
 */
export const FOREIGN_AI_ADDRESS_RULES: readonly RegExp[] = [
  `${WB}(?:si (?:tu es|vous [êe]tes) (?:une?|l')\\s?(?:${AI_WORD})|si (?:eres|usted es) (?:una?|el|la) (?:${AI_WORD})|se (?:voc[êe] [ée]|tu [ée]s) (?:uma?|o|a) (?:${AI_WORD})|se (?:sei|tu sei) (?:una?|un'|l')\\s?(?:${AI_WORD})|wenn (?:du|sie) (?:eine?|ein) (?:${AI_WORD}) (?:bist|sind)|если (?:ты|вы) (?:—\\s)?(?:ии|ai|llm|нейросеть|языковая модель|чат-бот|бот|искусственный интеллект))${WE}\\s*[,:;]`,
  `${WB}(?:note|message|remarque) (?:à|a|pour) (?:l'|la |le )?(?:${AI_WORD})(?: qui (?:lit|lira|traite) (?:ceci|ce texte|ce document))?\\s*:`,
  `${WB}(?:nota|mensaje|mensagem) (?:para|a) (?:la |el |a |o )?(?:${AI_WORD})(?: que (?:lea|lee|leia|l[êe]) (?:esto|isto|este texto))?\\s*:`,
  `${WB}(?:hinweis|nachricht|notiz) (?:an|f[üu]r) (?:die |das |den )?(?:${AI_WORD})(?:,? (?:die|das|der) (?:dies|diesen text) liest)?\\s*:`,
  `${WB}(?:nota|messaggio) (?:per|all'|alla) ?(?:l'|la )?(?:${AI_WORD})(?: che (?:legge|sta leggendo) (?:questo|questo testo))?\\s*:`,
  '如果你是(?:ai|人工智能|语言模型|大模型|大语言模型|聊天机器人|助手)[，,：:]',
  '(?:给|致)(?:正在)?(?:阅读|读取|处理)(?:这|此)(?:段|篇)?(?:文字|内容|文本|文档)?的(?:ai|人工智能|语言模型|大模型)[：:，,]',
].map((r) => new RegExp(r, 'u'));

/** Overrides in French, Spanish, Portuguese, Italian, German, Chinese and Russian. */
export const FOREIGN_OVERRIDE_RULES: readonly RegExp[] = [...Object.values(LEXICONS).flatMap(overrideRules), CJK_OVERRIDE, RU_OVERRIDE];
/** Requests for the system prompt in the same languages. */
export const FOREIGN_REVEAL_RULES: readonly RegExp[] = [...Object.values(LEXICONS).flatMap(revealRules), CJK_REVEAL, RU_REVEAL];
