import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/slugify.js';

test('joins words with single dashes', () => {
  assert.equal(slugify('Hello, World'), 'hello-world');
});

test('drops leading and trailing punctuation', () => {
  assert.equal(slugify('  --Ship it!--  '), 'ship-it');
});
