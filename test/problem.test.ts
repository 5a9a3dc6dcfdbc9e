import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { problem } from '../src/http/problem.js';

describe('problem details', () => {
  it('gives an over-size body (413) a real title', () => {
    expect(problem(413, 'request body is over the limit of 65536 bytes')).toMatchObject({ status: 413, title: 'Content too large' });
  });

  it('never titles a named 4xx or 5xx status "Error"', () => {
    const named = Object.keys(STATUS_CODES).map(Number).filter((s) => s >= 400);
    expect(named.filter((s) => problem(s, 'x').title === 'Error')).toEqual([]);
    expect(problem(405, 'x').title).toBe('Method Not Allowed');
  });
});
