/**
 * The question frame of a query ("When did", "How many times has", "Would") says what kind of answer is wanted,
 * not what it is about. Memories are statements, so the frame only pulls the query's embedding towards other
 * questions; embedding the rest ("Caroline go to the support group") matches the statement that answers it.
 */
const LEADING_PREPOSITIONS = new Set(['in', 'on', 'at', 'for', 'to', 'from', 'with', 'by', 'about', 'and', 'so', 'but']);
const WH_WORDS = new Set(['what', 'when', 'where', 'who', 'whom', 'whose', 'which', 'why', 'how']);
/** Words that complete a "how" frame: how long, how many, how often. */
const HOW_COMPLEMENTS = new Set(['long', 'many', 'much', 'often', 'far', 'old', 'soon', 'come']);
/** "what kind of", "which type of". */
const KIND_WORDS = new Set(['kind', 'kinds', 'sort', 'sorts', 'type', 'types']);
const AUXILIARIES = new Set([
  'do', 'does', 'did', 'is', 'are', 'was', 'were', 'am', 'has', 'have', 'had', 'will', 'would', 'can', 'could',
  'should', 'shall', 'might', 'may', 'must',
]);
/** After "how many" the counted noun stays, but "times" (how many times) and "ago" (how long ago) are frame. */
const FRAME_TAILS = new Set(['times', 'ago']);

/** The query without its leading question frame and final punctuation; the query itself if nothing would remain. */
export function stripQuestionFrame(query: string): string {
  const tokens = query.trim().split(/\s+/);
  let i = 0;
  const lower = (j: number): string => (tokens[j] ?? '').toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');
  if (LEADING_PREPOSITIONS.has(lower(i)) && WH_WORDS.has(lower(i + 1))) i++;
  if (WH_WORDS.has(lower(i))) {
    const wh = lower(i);
    i++;
    if (wh === 'how' && HOW_COMPLEMENTS.has(lower(i))) {
      i++;
      if (FRAME_TAILS.has(lower(i))) i++;
    }
    if ((wh === 'what' || wh === 'which') && KIND_WORDS.has(lower(i)) && lower(i + 1) === 'of') i += 2;
  }
  while (AUXILIARIES.has(lower(i))) i++;
  const rest = tokens.slice(i).join(' ').replace(/[?!.\s]+$/u, '');
  return rest.length > 0 ? rest : query;
}

/**
 * The frame of a request to the assistant ("help me plan ...", "any ideas for ...", "can you suggest ..."). Like a
 * question's frame it asks nothing of the memory: its words are missing from every right memory, and they pull the
 * request's vector towards other requests.
 */
const REQUEST_FRAME =
  /^(?:(?:hey|hi|ok|okay|so|right)[\s,]+)?(?:please\s+)?(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:help me(?: to)?(?:\s+(?:plan|organi[sz]e|sort out|figure out|work out|put together|come up with|think of|choose|pick|find|make|write|get ready for))?|(?:give me|i need|i want|got|any|some)\s+(?:ideas|suggestions|tips|recommendations)(?:\s+(?:for|on|about))?|(?:suggest|recommend)(?:\s+(?:me|us))?|find\s+(?:me|us)|plan|organi[sz]e|ideas\s+(?:for|on))\s+/iu;

/** A request without its frame ("help me plan a birthday party for my boy" -> "a birthday party for my boy"). */
export function stripRequestFrame(query: string): string {
  const frame = REQUEST_FRAME.exec(query);
  if (frame === null) return query;
  const rest = query.slice(frame[0].length).replace(/[?!.\s]+$/u, '');
  return rest.length > 0 ? rest : query;
}

/** Words that ask about the present state of things ("Where does Lena live now?", "her current job"). */
const PRESENT_CUES = /\b(now|nowadays|currently|current|these days|at the moment|at present|still|anymore|any more|latest|most recent(ly)?|today)\b/iu;

/** The query asks how things stand now, so of two memories that state the same thing the newer one answers it. */
export function asksAboutNow(query: string): boolean {
  return PRESENT_CUES.test(query);
}
