/**
 * Appointment concepts and the phrasings patients and policy pages use for them. A phrase is
 * replaced by its concept before content words are counted, on both sides: "swing by without
 * booking" and "accepts walk-ins" then share @walkin, while a question about a detail no
 * sentence states (who may act on someone's behalf) still finds nothing to match.
 */
const CONCEPTS: readonly (readonly [string, RegExp])[] = [
  ['@walkin', /\bwalk[- ]?ins?\b|\bwalk (?:her|him|them|me|my \w+) in\b|\b(?:drop|swing|stop|pop) (?:in|by)\b|\bjust (?:show up|come in)\b|\bwithout (?:an? |any )?(?:appointment|booking(?: anything)?|booking ahead)\b|\bno appointment (?:is )?(?:needed|necessary|required)\b|\bwithout booking\b/gu],
  ['@reschedule', /\breschedul\w*\b|\brebook\w*\b|\bpush (?:my|the|it|our|her|his) (?:\w+ )?back\b|\b(?:move|change|switch) (?:my|the|our|her|his) (?:\w+ )?(?:appointment|visit|appt|time|date)\b/gu],
  ['@cancel', /\bcancel\w*\b|\bcall off\b/gu],
  ['@noshow', /\bno-?shows?\b|\bmiss(?:ed|ing|es)? (?:my |an |the |a |several |\w+ )?(?:appointments?|visits?)\b|\bdon'?t show up\b/gu],
  ['@late', /\b(?:arriv\w*|show up|get there|running|be|am|i'?m) (?:\d+ min(?:ute)?s? |too |a (?:bit|little) )?late\b|\b\d+ min(?:ute)?s? late\b|\blate arrivals?\b/gu],
  ['@register', /\bsign up\b|\bregist\w*\b|\bnew patients?\b|\bbecome a patient\b|\bjust joined\b/gu],
  ['@video', /\bvideo (?:visits?|appointments?|calls?)\b|\btelehealth\b|\btelemedicine\b|\bvirtual (?:visits?|appointments?|care)\b|\bvid visits?\b/gu],
  ['@interpreter', /\binterpret\w*\b|\btranslat\w*\b|\blanguage services?\b/gu],
  ['@child', /\bkids?\b|\bchild(?:ren)?\b|\bsons?\b|\bdaughters?\b|\bbab(?:y|ies)\b|\btoddlers?\b|\bteen\w*\b|\bminors?\b|\bpediatric\w*\b|\b\d+-?(?:year|yr)-?olds?\b/gu],
  ['@checkup', /\bcheck-?ups?\b|\bwell-child(?: visits?)?\b|\bphysicals?(?: exams?)?\b|\bannual (?:visits?|exams?)\b|\byearly (?:visits?|physicals?|exams?)\b/gu],
  ['@proxy', /\bproxy\b|\bon (?:someone|somebody|another person)(?:'s| else'?s)? behalf\b|\bon behalf of\b|\bfor someone else\b/gu],
  ['@refill', /\brefills?\b|\brenew(?:al)? (?:my |of )?prescriptions?\b|\bprescription renewals?\b|\brunning out of\b|\balmost out of\b/gu],
  ['@lab', /\blab(?:oratory)?\b|\bblood ?(?:draws?|work|tests?|drawn|taken)\b|\bdraw(?:s|n|ing)? (?:my |your |the )?blood\b/gu],
  ['@imaging', /\bx-?rays?\b|\bmri\b|\bct(?: scans?)?\b|\bimaging\b|\bmammograms?\b|\bultrasounds?\b/gu],
  ['@waitlist', /\bwait ?list\w*\b|\b(?:earlier )?(?:spot|slot|appointment|time)s? (?:frees?|opens?) up\b|\bearlier (?:spot|slot|appointment|time|opening)s?\b|\bheads-?up\b|\bcancellation list\b/gu],
  ['@valid', /\bvalid\w*\b|\bexpir\w*\b|\bgood for\b/gu],
  ['@referral', /\breferr\w*\b|\brefer\b|\bspecialist approval\b/gu],
  ['@paymentplan', /\bpayment plans?\b|\bspread (?:it |the (?:balance|bill|cost) )?out\b|\bpay (?:it )?over time\b|\binstall?ments?\b|\bmonthly payments?\b/gu],
  ['@animal', /\bservice (?:animals?|dogs?)\b|\b(?:emotional )?support (?:dogs?|animals?)\b|\bemotional support\b|\bpets?\b|\btherapy (?:animals?|dogs?)\b/gu],
  ['@inperson', /\bin[- ]person\b|\bface[- ]to[- ]face\b|\bon[- ]?site\b/gu],
  ['@weekend', /\bweekends?\b|\bsaturdays?\b|\bsundays?\b/gu],
  ['@sameday', /\bsame[- ]day\b|\btoday\b|\bthis (?:morning|afternoon)\b/gu],
  ['@illness', /\bsick\b|\bill(?:ness(?:es)?)?\b|\bunder the weather\b|\bfevers?\b|\bcolds?\b|\bcough\w*\b|\bsore throats?\b|\bearaches?\b|\bminor injur\w*\b/gu],
  ['@forms', /\b(?:school|camp|sports?|work|disability) (?:forms?|paperwork)\b|\bpaperwork\b|\bforms?\b/gu],
  ['@caregiver', /\badults? who (?:is|are) not (?:the |a )?(?:child's |patient's )?parents?(?: or legal guardians?)?\b|\bgrand(?:ma|pa|mother|father|parents?)\b|\baunts?\b|\buncles?\b|\bbabysitters?\b|\bnann(?:y|ies)\b|\brelatives?\b|\b(?:another|other) adults?\b|\bfamily members?\b|\bcaregivers?\b/gu],
];

export interface Conceptualized {
  /** The text with every concept phrase removed. */
  readonly rest: string;
  readonly concepts: readonly string[];
}

export function conceptualize(text: string): Conceptualized {
  let rest = text.toLowerCase();
  const concepts: string[] = [];
  for (const [concept, pattern] of CONCEPTS) {
    rest = rest.replace(pattern, () => {
      if (!concepts.includes(concept)) concepts.push(concept);
      return ' ';
    });
  }
  return { rest, concepts };
}
