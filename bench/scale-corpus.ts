/**
 * A generated appointment-policy repository of about N passages for the scale benchmark: many
 * clinics (declared as entities in assistant.yaml), system-wide and clinic-tagged sources across
 * twenty appointment topics, some with several revisions (superseded, draft, future-effective,
 * retired), some staff-only. Deterministic for a given size (seeded PRNG), front matter per
 * CONTRACT.md section 1. One section of 160+ characters is one passage (see src/ingest/chunk.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** mulberry32: a small seeded PRNG, so every run generates the same repository. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLACES = [
  'Harbor', 'Eastside', 'Northgate', 'Riverside', 'Lakeview', 'Hillcrest', 'Westfield', 'Oakridge', 'Cedar Park', 'Maple Grove',
  'Pinecrest', 'Brookside', 'Fairview', 'Summit', 'Willow Creek', 'Stonebridge', 'Bayview', 'Meadowbrook', 'Ashford', 'Clearwater',
  'Redwood', 'Silver Lake', 'Greenfield', 'Kingsport', 'Elmwood', 'Foxhollow', 'Granite Falls', 'Hawthorne', 'Ivy Bend', 'Juniper',
  'Kestrel Point', 'Laurel Heights', 'Millbrook', 'Newport', 'Orchard Hill', 'Parkside', 'Quarry Bay', 'Rosewood', 'Sandpoint', 'Timberline',
  'Union Square', 'Valley Forge', 'Wharfside', 'Yarrow', 'Zephyr Hills', 'Aspen Ridge', 'Birchwood', 'Copper Canyon', 'Driftwood', 'Evergreen',
];
const UNITS = ['', 'Pediatrics', 'Family Medicine', "Women's Health", 'Internal Medicine', 'Orthopedics', 'Cardiology', 'Dermatology', 'Behavioral Health', 'Sports Medicine', 'Geriatrics', 'Endocrinology', 'Neurology', 'Oncology', 'Urology', 'Allergy', 'Sleep Medicine', 'Rheumatology'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MORNING = ['7 am', '7:30 am', '8 am', '8:30 am', '9 am'];
const EVENING = ['4 pm', '4:30 pm', '5 pm', '5:30 pm', '6 pm', '7 pm', '8 pm'];

interface Facts {
  readonly place: string;
  readonly unit: string;
  readonly open: string;
  readonly close: string;
  readonly day: string;
  readonly fee: number;
  readonly hours: number;
  readonly phone: string;
  readonly minutes: number;
}

type Section = (f: Facts) => readonly [heading: string, text: string];
interface Topic {
  readonly slug: string;
  readonly title: string;
  readonly sections: readonly Section[];
}

const at = (f: Facts): string => `${f.place}${f.unit === '' ? '' : ` ${f.unit}`}`;

const TOPICS: readonly Topic[] = [
  { slug: 'hours', title: 'hours and appointment hours', sections: [
    (f) => ['Regular hours', `${at(f)} is open Monday through Friday from ${f.open} to ${f.close}. On ${f.day} the front desk closes one hour early for staff training, and ${at(f)} is closed on Sunday and on public holidays.`],
    (f) => ['Appointment hours', `Scheduled appointments at ${at(f)} run from ${f.open} to ${f.close} on weekdays. The first appointment of the day starts at ${f.open}; the last appointment starts ${f.minutes} minutes before closing so that visits end on time.`],
    (f) => ['Evening appointments', `${at(f)} offers evening appointments on ${f.day} until 8 pm for established patients. Evening slots fill quickly, so patients usually book them one to two weeks ahead through the portal or by calling ${f.phone}.`],
  ] },
  { slug: 'walk-ins', title: 'walk-in visits', sections: [
    (f) => ['Walk-in hours', `${at(f)} accepts walk-in visits Monday through Friday from ${f.open} to ${f.close}. Walk-in patients are seen in order of arrival, except that urgent symptoms are seen first after triage by a nurse.`],
    (f) => ['What walk-ins are for', `Walk-in visits at ${at(f)} are for minor illnesses and injuries such as colds, sore throats, small cuts and sprains. Physicals, chronic-condition follow-ups and new-patient visits need a scheduled appointment.`],
    (f) => ['Wait times', `Typical walk-in waits at ${at(f)} are under ${f.minutes} minutes in the morning and longer after 3 pm. You can check the current wait on the clinic page of the patient portal before you leave home.`],
  ] },
  { slug: 'parking', title: 'parking and directions', sections: [
    (f) => ['Garage parking fees', `Parking in the ${f.place} garage is free for patients for the first ${f.hours} hours when the ticket is validated at the ${at(f)} front desk. After that the garage charges $${f.fee % 5 + 2} per hour, up to $${f.fee % 20 + 10} per day.`],
    (f) => ['Accessible parking', `The ${f.place} garage has accessible parking spaces on level 1 next to the elevator. Vans with a raised roof should use the surface lot on ${f.day} Street because the garage clearance is 6 feet 8 inches.`],
    (f) => ['Drop-off zone', `${at(f)} has a ${f.minutes % 15 + 5}-minute patient drop-off zone at the main entrance. Cars cannot be left unattended in the drop-off zone; a staff member can bring a wheelchair to the curb if you call ${f.phone}.`],
  ] },
  { slug: 'cancellation', title: 'cancellations and no-show fees', sections: [
    (f) => ['How to cancel', `Cancel an appointment at ${at(f)} in the patient portal under "Appointments" or by calling ${f.phone}. Cancelling at least ${f.hours * 12} hours before the appointment is free of charge.`],
    (f) => ['Late cancellations', `A cancellation at ${at(f)} made less than ${f.hours * 12} hours before the appointment is a late cancellation and is charged $${f.fee}. The fee is waived once per year on request.`],
    (f) => ['No-show fee', `A no-show is an appointment at ${at(f)} missed without cancelling. A $${f.fee + 10} no-show fee is charged for any missed appointment, including imaging and lab appointments; three no-shows in a year may end online booking.`],
  ] },
  { slug: 'rescheduling', title: 'rescheduling appointments', sections: [
    (f) => ['Rescheduling online', `Appointments at ${at(f)} can be rescheduled in the patient portal up to ${f.hours * 12} hours before the visit. Choose the appointment, select "Reschedule" and pick a new time; the old time is released at once.`],
    (f) => ['Rescheduling by phone', `To reschedule an appointment at ${at(f)} by phone, call ${f.phone} between ${f.open} and ${f.close} on weekdays. Procedures and imaging can only be rescheduled by phone.`],
    (f) => ['How often', `An appointment at ${at(f)} can be rescheduled twice. After the second change, please call ${f.phone} so the scheduling team can find a time that works and avoid a late-cancellation fee.`],
  ] },
  { slug: 'lab', title: 'lab and blood draws', sections: [
    (f) => ['Lab hours', `The ${at(f)} lab draws blood Monday through Friday from ${f.open} to ${f.close} and on ${f.day} mornings. Fasting tests are best done before 10 am.`],
    (f) => ['Walk-in blood draws', `The ${at(f)} lab accepts walk-ins for blood draws with a signed lab order. Expect a wait of up to ${f.minutes} minutes at busy times; booking a lab slot in the portal skips the line.`],
    (f) => ['Results', `Most lab results from ${at(f)} appear in the patient portal within ${f.hours} business days. Your care team will call you about any result that needs follow-up.`],
  ] },
  { slug: 'imaging', title: 'imaging appointments', sections: [
    (f) => ['Booking imaging', `MRI, CT and ultrasound at ${at(f)} need a referral and a scheduled appointment. Call ${f.phone} to book; X-rays are done on a walk-in basis from ${f.open} to ${f.close}.`],
    (f) => ['Preparing for an MRI', `Arrive ${f.minutes} minutes before an MRI at ${at(f)} to complete the safety screening. Remove metal objects and tell the technologist about implants, pacemakers or pregnancy.`],
    (f) => ['Imaging cancellations', `Imaging appointments at ${at(f)} cancelled less than ${f.hours * 12} hours ahead are charged $${f.fee + 25}, because the scanner time cannot be given to another patient.`],
  ] },
  { slug: 'referrals', title: 'referrals to specialists', sections: [
    (f) => ['When you need a referral', `Most insurance plans need a referral from your primary care provider before you see a specialist at ${at(f)}. Check your plan or ask the front desk at ${f.phone}.`],
    (f) => ['How long referrals take', `Referrals sent from ${at(f)} are usually processed within ${f.hours + 2} business days. The specialist's office will contact you to schedule; call ${f.phone} if you have not heard back in ${f.hours + 5} days.`],
  ] },
  { slug: 'interpreters', title: 'interpreter services', sections: [
    (f) => ['Free interpreters', `${at(f)} provides free medical interpreters in more than 200 languages, in person or by video. Ask for an interpreter when you book, or at least ${f.hours} days before the visit for sign language.`],
    (f) => ['Family members', `Family members may come to appointments at ${at(f)}, but a trained interpreter is offered for medical discussions. Children should not interpret for adult patients.`],
  ] },
  { slug: 'portal', title: 'patient portal help', sections: [
    (f) => ['Signing up', `Patients of ${at(f)} can sign up for the patient portal with the activation code on their visit summary, or by calling ${f.phone}. The portal shows appointments, messages and test results.`],
    (f) => ['Password reset', `To reset a portal password, choose "Forgot password" on the sign-in page. The link expires after ${f.minutes} minutes; after five failed attempts the account locks for one hour.`],
  ] },
  { slug: 'billing', title: 'billing and payments', sections: [
    (f) => ['Copays', `Copays are collected when you check in at ${at(f)}. We accept cards, cash and the portal; a payment plan is available for balances over $${f.fee * 10}.`],
    (f) => ['Billing questions', `Call the billing office for ${at(f)} at ${f.phone} from ${f.open} to ${f.close} on weekdays with questions about a statement, insurance claims or financial assistance.`],
  ] },
  { slug: 'vaccines', title: 'vaccines and flu shots', sections: [
    (f) => ['Flu shots', `Flu shots are available at ${at(f)} from September through March, by appointment or at walk-in clinics on ${f.day} from ${f.open} to ${f.close}. Bring your insurance card.`],
    (f) => ['Travel vaccines', `Travel vaccines at ${at(f)} need an appointment at least ${f.hours + 3} weeks before your trip. Some travel vaccines are not covered by insurance and cost up to $${f.fee * 6}.`],
  ] },
  { slug: 'video-visits', title: 'video visits', sections: [
    (f) => ['Joining a video visit', `Video visits with ${at(f)} use the patient portal app. Join ${f.minutes % 15 + 5} minutes early to test your camera; if the call drops, your provider will call you at the number on file.`],
    (f) => ['What video visits are for', `Video visits at ${at(f)} are for follow-ups, medication checks and minor concerns. Physical exams, vaccines and lab work need an in-person visit.`],
  ] },
  { slug: 'new-patients', title: 'new patient registration', sections: [
    (f) => ['Registering', `New patients can register with ${at(f)} online or by calling ${f.phone}. Registration takes about ${f.minutes} minutes; have your insurance card and a photo ID ready.`],
    (f) => ['First visit', `The first visit at ${at(f)} is a ${f.minutes + 30}-minute appointment with a primary care provider. Arrive ${f.minutes % 20 + 10} minutes early to complete forms.`],
  ] },
  { slug: 'minors', title: 'appointments for minors', sections: [
    (f) => ['Consent', `Patients under 18 at ${at(f)} need a parent or legal guardian to consent to care, except where state law lets minors consent on their own. A guardian should come to the first visit.`],
    (f) => ['Proxy portal access', `Parents can request proxy access to a child's portal account at ${at(f)}. Proxy access for teenagers aged 13 to 17 is limited and needs the teen's agreement.`],
  ] },
  { slug: 'accessibility', title: 'accessibility', sections: [
    (f) => ['Wheelchairs', `Wheelchairs are available at the main entrance of ${at(f)}. Call ${f.phone} a day ahead if you need help from the car or a lift-equipped exam room.`],
    (f) => ['Service animals', `Service animals are welcome everywhere in ${at(f)}. Emotional support animals that are not service animals cannot come into exam rooms.`],
  ] },
  { slug: 'holidays', title: 'holiday closures', sections: [
    (f) => ['Closed days', `${at(f)} is closed on New Year's Day, Memorial Day, Independence Day, Labor Day, Thanksgiving and Christmas Day. On the day before a holiday it closes at ${f.close}.`],
    (f) => ['During closures', `When ${at(f)} is closed, call ${f.phone} to reach the on-call nurse line, or use the patient portal to send a non-urgent message.`],
  ] },
  { slug: 'arrival', title: 'arrival and late policy', sections: [
    (f) => ['When to arrive', `Arrive ${f.minutes % 20 + 10} minutes before your appointment at ${at(f)} to check in. Arrive ${f.minutes % 20 + 25} minutes early for a first visit or a procedure.`],
    (f) => ['Late arrivals', `Patients who arrive more than ${f.minutes % 10 + 10} minutes late at ${at(f)} may be asked to reschedule. The front desk will offer the next open time on the same day when possible.`],
  ] },
  { slug: 'what-to-bring', title: 'what to bring', sections: [
    (f) => ['Documents', `Bring a photo ID, your insurance card and a list of current medications to every appointment at ${at(f)}. Bring referral papers when seeing a specialist.`],
    (f) => ['Forms', `Forms for ${at(f)} can be completed in the portal up to ${f.hours} days before the visit. Completing them ahead shortens check-in by about ${f.minutes % 10 + 5} minutes.`],
  ] },
  { slug: 'pharmacy', title: 'pharmacy and refills', sections: [
    (f) => ['Pharmacy hours', `The ${at(f)} pharmacy is open from ${f.open} to ${f.close} on weekdays and on ${f.day} mornings. Prescriptions sent before noon are usually ready the same day.`],
    (f) => ['Refill requests', `Request refills through the portal or by calling ${f.phone}. Refill requests for ${at(f)} take up to ${f.hours} business days; please ask before you run out.`],
  ] },
];

const STAFF_SECTIONS: readonly Section[] = [
  (f) => ['Double-booking override', `Scheduling staff at ${at(f)} may double-book an urgent visit with override code RS-${String(f.fee * 37).padStart(4, '0')}. Overrides are logged and reviewed by the practice manager every ${f.day}.`],
  (f) => ['Escalation line', `Staff at ${at(f)} escalate scheduling problems to the internal line 555-01${String(f.minutes).padStart(2, '0')} from ${f.open} to ${f.close}. Do not give this number to patients.`],
  (f) => ['Overbooking limits', `No provider at ${at(f)} may have more than ${f.hours} overbooked slots per session. Requests beyond that go to the clinic lead for approval.`],
];

export interface GeneratedCorpus {
  readonly files: number;
  readonly sources: number;
  readonly clinics: number;
  readonly staffOnlySources: number;
  readonly multiRevisionSources: number;
  /** Estimated passages: one per section. */
  readonly estimatedPassages: number;
  /** Clinic display names, for questions. */
  readonly clinicNames: readonly string[];
  readonly topicTitles: readonly string[];
}

const slugOf = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/gu, '-').replace(/^-|-$/gu, '');
const isoDate = (y: number, m: number, d: number): string => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

function frontMatter(fields: Record<string, string | undefined>): string {
  const lines = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join('\n')}\n---\n`;
}

/** Write a policy repository of about `passages` passages into `dir`. */
export async function generateScaleCorpus(options: { readonly dir: string; readonly passages: number; readonly seed?: number }): Promise<GeneratedCorpus> {
  const rand = prng(options.seed ?? 42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const clinicCount = Math.min(PLACES.length, Math.max(6, Math.round(options.passages / 2000)));
  const clinics = PLACES.slice(0, clinicCount);
  await mkdir(options.dir, { recursive: true });
  const entityLines = clinics.map((c) => `    ${slugOf(c)}: ["${c} Clinic", "${c}"]`).join('\n');
  await writeFile(
    path.join(options.dir, 'assistant.yaml'),
    `organization: Generated Valley Health\nappointment_channel: "call the scheduling line at 555-0100 or use the patient portal"\nentities:\n  clinic:\n${entityLines}\n`,
  );

  const facts = (place: string, unit: string): Facts => ({
    place,
    unit,
    open: pick(MORNING),
    close: pick(EVENING),
    day: pick(DAYS),
    fee: 10 + Math.floor(rand() * 8) * 5,
    hours: 1 + Math.floor(rand() * 4),
    phone: `555-${String(Math.floor(rand() * 10000)).padStart(4, '0')}`,
    minutes: 10 + Math.floor(rand() * 6) * 5,
  });

  let passages = 0;
  let files = 0;
  let sources = 0;
  let staffOnly = 0;
  let multi = 0;
  const serials = new Map<string, number>();
  for (let i = 0; passages < options.passages; i += 1) {
    const topic = TOPICS[i % TOPICS.length] as Topic;
    const round = Math.floor(i / TOPICS.length);
    // Every fifth source is system-wide (no clinic tag); the others belong to one clinic and unit.
    const systemWide = round % 5 === 0;
    const place = systemWide ? 'Generated Valley Health' : (clinics[round % clinics.length] as string);
    const unit = systemWide ? (UNITS[Math.floor(round / 5) % UNITS.length] as string) : (UNITS[Math.floor(round / clinics.length) % UNITS.length] as string);
    const key = `${place}|${unit}|${topic.slug}`;
    const serial = serials.get(key) ?? 0;
    serials.set(key, serial + 1);
    const sourceId = `${slugOf(place)}${unit === '' ? '' : `-${slugOf(unit)}`}-${topic.slug}${serial === 0 ? '' : `-${serial}`}`;
    const title = `${place}${place.endsWith('Health') ? '' : ' Clinic'}${unit === '' ? '' : ` ${unit}`} ${topic.title}${serial === 0 ? '' : ` (${serial + 1})`}`;
    const staff = rand() < 0.08;
    const sections = staff ? [...topic.sections, ...STAFF_SECTIONS] : topic.sections;
    // History: 65% one revision, 20% a superseded one kept in archive/, 8% plus a draft, 4% plus a
    // future-effective one, 3% a retired page.
    const r = rand();
    const kinds: ('current' | 'superseded' | 'draft' | 'future' | 'retired')[] =
      r < 0.65 ? ['current'] : r < 0.85 ? ['current', 'superseded'] : r < 0.93 ? ['current', 'superseded', 'draft'] : r < 0.97 ? ['current', 'future'] : ['retired'];
    if (kinds.length > 1) multi += 1;
    sources += 1;
    if (staff) staffOnly += 1;
    const folder = path.join(options.dir, systemWide ? 'system' : slugOf(place), topic.slug);
    await mkdir(folder, { recursive: true });
    for (const kind of kinds) {
      const year = kind === 'superseded' ? 2025 : kind === 'future' ? 2027 : 2026;
      const effective = isoDate(year, 1 + Math.floor(rand() * 10), 1 + Math.floor(rand() * 28));
      const f = facts(systemWide ? 'Generated Valley Health' : `${place} Clinic`, unit);
      const body = sections
        .map((s) => {
          const [heading, text] = s(f);
          return `## ${heading}\n${text}`;
        })
        .join('\n\n');
      const intro = `${title} policy for patients and staff of Generated Valley Health. Questions about this page go to ${f.phone}.`;
      const fm = frontMatter({
        source_id: sourceId,
        title,
        status: kind === 'draft' ? 'draft' : kind === 'retired' ? 'retired' : 'approved',
        effective_date: effective,
        version: kind === 'draft' ? `${effective}-draft` : effective,
        review_by: isoDate(year + 1, 1 + Math.floor(rand() * 12), 1 + Math.floor(rand() * 28)),
        owner: `${slugOf(place)}-${topic.slug}-owners`,
        audience: staff ? '[staff]' : '[patient, staff]',
        clinic: systemWide ? undefined : slugOf(place),
      });
      const name = kind === 'current' ? `${sourceId}.md` : `${sourceId}--${kind}.md`;
      await writeFile(path.join(folder, name), `${fm}${intro}\n\n${body}\n`);
      files += 1;
      passages += sections.length + 1; // the intro paragraph is a passage of its own
    }
  }
  return {
    files,
    sources,
    clinics: clinics.length,
    staffOnlySources: staffOnly,
    multiRevisionSources: multi,
    estimatedPassages: passages,
    clinicNames: clinics,
    topicTitles: TOPICS.map((t) => t.title),
  };
}

/** Questions a patient would ask of the generated repository, naming its clinics. */
export function scaleQuestions(corpus: Pick<GeneratedCorpus, 'clinicNames'>): string[] {
  const c = (i: number): string => corpus.clinicNames[i % corpus.clinicNames.length] ?? 'Harbor';
  return [
    `Until what time can I get blood drawn at the ${c(0)} lab?`,
    `Does the ${c(1)} lab take walk-ins for blood draws?`,
    `How much is the no-show fee at ${c(2)} Clinic?`,
    'How late can I cancel an appointment without paying a fee?',
    'Can I reschedule my appointment in the patient portal?',
    `How do I reschedule an appointment at ${c(3)} by phone?`,
    `Is parking free at ${c(4)} Clinic?`,
    `Where can I park a van with a raised roof at ${c(5)}?`,
    `What are the walk-in hours at ${c(0)} Clinic?`,
    `What time does ${c(1)} Clinic open on weekdays?`,
    'Do you offer evening appointments?',
    'How early should I arrive for an MRI?',
    'Do I need a referral to see a cardiologist?',
    'How long does a referral take to process?',
    'Can I get a free interpreter for my visit?',
    'How do I reset my portal password?',
    `When are flu shots available at ${c(2)}?`,
    'How far ahead do I need to book travel vaccines?',
    'What is a video visit good for?',
    'What should I bring to my first visit?',
    'How do I register as a new patient?',
    'Can parents get proxy access to a teenager’s portal account?',
    'Are service animals allowed in the clinic?',
    `Is ${c(3)} Clinic open on Thanksgiving?`,
    'What happens if I arrive 20 minutes late?',
    `What time does the ${c(4)} pharmacy open?`,
    'How long does a prescription refill take?',
    'What is the double-booking override code?',
    'Do you offer valet parking for helicopters?',
    'I have crushing chest pain, what should I do?',
  ];
}
