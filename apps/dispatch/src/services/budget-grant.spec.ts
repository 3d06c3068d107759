import { describe, expect, it } from '@jest/globals';
import { parseBudgetGrant } from './budget-grant.js';

describe('reading a budget grant from a reply', () => {
  it.each([
    ['continue with $5 more', 5],
    ['<@U0CARAVEL> continue with $5 more', 5],
    ['@caravel continue with $5 more', 5],
    ['$5', 5],
    ['$ 5', 5],
    ['5$', 5],
    ['5 usd', 5],
    ['5 USD more please', 5],
    ['USD 7.25', 7.25],
    ['5.50', 5.5],
    ['continue with 5.50 more', 5.5],
    ['5,50 dollars', 5.5],
    ['Yes, add another $2.25, please.', 2.25],
    ['go on, $1,000.50 more', 1000.5],
    ['sure, continue with $5 more but focus on the parser', 5],
    ['Continue with 10 dollars more', 10],
  ])('%j grants %d', (text, usd) => {
    expect(parseBudgetGrant(text)).toBe(usd);
  });

  it.each([
    ['continue'],
    ['continue with 2 more tests'],
    ['fix the 3 failing tests'],
    ['it costs $5 more than expected'],
    ['continue with $5 or $10 more'],
    ['$0'],
    ['continue with $0.00 more'],
    ['version 1.2.3 is out'],
    [''],
  ])('%j grants nothing', (text) => {
    expect(parseBudgetGrant(text)).toBeNull();
  });
});
