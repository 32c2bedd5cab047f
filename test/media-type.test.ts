// Unit tests for Content-Type helpers (RFC 9110 §8.3.1, RFC 6839 §3.1); used by check T7.
import { describe, expect, it } from 'vitest';
import { isJsonMediaType, mediaTypeEssence } from '../src/http/media-type.js';

describe('mediaTypeEssence', () => {
  const cases: readonly (readonly [string | undefined, string | undefined])[] = [
    ['application/json', 'application/json'],
    ['Application/JSON ; charset="utf-8"', 'application/json'],
    ['application/json;charset=UTF-8', 'application/json'],
    ['  text/html \t', 'text/html'],
    ['\ttext/plain;', 'text/plain'],
    ['application/vnd.api+json; ext="https://x.test/ext"', 'application/vnd.api+json'],
    ['application/problem+json', 'application/problem+json'],
    ["application/x-www-form-urlencoded; charset='x'", 'application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary="a;b,c"', 'multipart/form-data'],
    [undefined, undefined],
    ['', undefined],
    ['   ', undefined],
    ['json', undefined],
    ['application/', undefined],
    ['/json', undefined],
    ['application /json', undefined],
    ['application/ json', undefined],
    ['application/json/extra', undefined],
    ['application/json garbage', undefined],
    ['application/json, text/html', undefined], // two Content-Type lines joined by fetch
    ['"application/json"', undefined],
    ['applicatión/json', undefined],
    ['*/*', '*/*'], // "*" is a tchar; the essence is grammatical even though it is a range, not a type
  ];

  it.each(cases)('%j → %j', (value, expected) => {
    expect(mediaTypeEssence(value)).toBe(expected);
  });
});

describe('isJsonMediaType', () => {
  const json = [
    'application/json',
    'APPLICATION/JSON',
    'Application/JSON ; charset="utf-8"',
    'application/json;charset=utf-8',
    ' application/json ',
    'application/problem+json',
    'application/Problem+JSON; charset=utf-8',
    'application/vnd.api+json',
    'application/merge-patch+json',
    'application/hal+json; profile="https://x.test/p"',
    'model/gltf+json',
  ];
  const notJson = [
    undefined,
    '',
    'text/json',
    'text/plain',
    'text/html; charset=utf-8',
    'application/jsonp',
    'application/json-seq',
    'application/x-json',
    'application/json5',
    'application/+json',
    'application/jsonl',
    'application/problem+xml',
    'application/json+xml',
    'application/json garbage',
    'application/json, text/html',
    'json',
  ];

  it.each(json)('%j is JSON', (value) => {
    expect(isJsonMediaType(value)).toBe(true);
  });

  it.each(notJson)('%j is not JSON', (value) => {
    expect(isJsonMediaType(value)).toBe(false);
  });
});
