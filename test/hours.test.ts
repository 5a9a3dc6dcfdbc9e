import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asksPlaceHours, channelOfHours } from '../src/policy/index.js';

describe('whose hours (candidate HC)', () => {
  it('reads a question about when a place is open, not one about a line, the portal or what one calls for', () => {
    for (const q of ['what time do you close tonight', 'what are your hours', 'are yall open the day after christmas?', 'what time does harbor open on monday mornings?', 'is the lab closed on saturdays']) {
      expect(asksPlaceHours(q), q).toBe(true);
    }
    for (const q of [
      'what are the scheduling line hours',
      'what time can i call to book',
      'is the portal open on sundays',
      'when can i reschedule by phone',
      'do i need to cancel 24 hours before',
      'can i walk in without an appointment',
      'what time does the front desk open',
    ]) {
      expect(asksPlaceHours(q), q).toBe(false);
    }
  });

  it("finds a remote channel's hours in a unit, and no place's", () => {
    expect(channelOfHours('The scheduling line at 555-0117 is answered Monday through Friday from 7 am to 6 pm.')).toBe('scheduling line');
    expect(channelOfHours('The Wrenhallow after-hours nurse line, 555-0190, is answered by registered nurses 24 hours a day.')).toBe('nurse line');
    expect(channelOfHours('The scheduling line (555-0117) is closed on December 25 and January 1.')).toBe('scheduling line');
    expect(channelOfHours('Nurse advice line hours: 24 hours a day, every day.')).toBe('advice line');
    expect(channelOfHours('The call center is staffed from 7 am to 7 pm.')).toBe('call center');
    for (const text of [
      'Harbor Clinic is open Monday through Friday from 8 am to 5 pm.',
      'The walk-in line is open from 8 am until the day is full.',
      'Date: Saturday, December 26, 2026; Booking Desk: Closed; Brackwick: 9 am – 5 pm',
      'Call the scheduling line at 555-0117 to book.',
      'The lab is closed on Sundays.',
      // A desk or office in a building is a place.
      'The main office is open from 8 am to 5 pm.',
      'The information desk in the lobby is staffed from 7 am.',
    ]) {
      expect(channelOfHours(text), text).toBeNull();
    }
  });

  it('a question naming a line, the portal or a call is never read as asking about a place (property)', () => {
    const ask = fc.constantFrom('what are the {w} hours', 'is the {w} open on saturday', 'when does the {w} close', 'what time does the {w} open tomorrow');
    const word = fc.constantFrom('scheduling line', 'nurse line', 'portal', 'app', 'phone', 'billing office', 'call center', 'booking desk');
    fc.assert(fc.property(ask, word, (a, w) => !asksPlaceHours(a.replace('{w}', w))));
  });
});
