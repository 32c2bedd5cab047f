/**
 * Which keys of a list's items NULLS-SAME-FIELDS compares when the OpenAPI document says what they
 * are (issue 37 item 2, src/battery/field-schema.ts): a map's keys and the properties only some
 * branches of a union declare are not fields an item can omit; everything else still is.
 */
import { describe, expect, it } from 'vitest';
import { comparedField } from '../src/battery/field-schema.js';

const document = {
  components: {
    schemas: {
      Item: {
        allOf: [{ $ref: '#/components/schemas/Base' }],
        properties: {
          roles: { type: 'object', additionalProperties: { type: 'string' } },
          labels: { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
          source: { oneOf: [{ $ref: '#/components/schemas/User' }, { $ref: '#/components/schemas/File' }] },
          owner: { anyOf: [{ $ref: '#/components/schemas/User' }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          plain: { type: 'object', properties: { a: { type: 'string' } } },
          // HERE's geofence: every shape has its own `definition`, with its own keys.
          geofence: {
            oneOf: [
              {
                type: 'object',
                properties: {
                  definition: {
                    type: 'object',
                    properties: { center: { type: 'object' }, radius: { type: 'number' } },
                  },
                },
              },
              {
                type: 'object',
                properties: {
                  definition: { type: 'object', properties: { points: { type: 'array' }, radius: { type: 'number' } } },
                },
              },
            ],
          },
          // Mist's `ips`: a property named as a placeholder stands for keys that are data.
          ips: { type: 'object', properties: { '{vlan}': { type: 'string' } } },
        },
      },
      Base: { type: 'object', properties: { id: { type: 'string' } } },
      User: { type: 'object', properties: { type: { type: 'string' }, login: { type: 'string' } } },
      File: { type: 'object', properties: { type: { type: 'string' }, sha1: { type: 'string' } } },
    },
  },
};
const compared = (...path: (string | 0)[]): boolean => comparedField(document, '#/components/schemas/Item', path);

describe('NULLS-SAME-FIELDS: the fields of an item, as its schema says', () => {
  it('are compared where declared, through allOf, a $ref, an "X or null" and array elements', () => {
    expect(compared('id')).toBe(true);
    expect(compared('roles')).toBe(true);
    expect(compared('owner', 'login')).toBe(true);
    expect(compared('tags', 0, 'name')).toBe(true);
    expect(compared('plain', 'a')).toBe(true);
  });

  it("a map's keys (additionalProperties, patternProperties) are data, not fields, nor anything below them", () => {
    expect(compared('roles', 'Administrators')).toBe(false);
    expect(compared('labels', 'x-team')).toBe(false);
    expect(compared('roles', 'Administrators', 'deep')).toBe(false);
  });

  it("one branch's properties are not another's omissions; what every branch declares is compared", () => {
    expect(compared('source', 'login')).toBe(false);
    expect(compared('source', 'sha1')).toBe(false);
    expect(compared('source', 'type')).toBe(true);
  });

  it('a key the schema does not declare in a plain object is still compared', () => {
    expect(compared('plain', 'undeclared')).toBe(true);
    expect(compared('extra')).toBe(true);
  });

  it("below a property every branch declares, the branches stay apart: one branch's keys there are not the other's omissions (issue 37: HERE's geofences)", () => {
    expect(compared('geofence', 'definition')).toBe(true);
    expect(compared('geofence', 'definition', 'radius')).toBe(true);
    expect(compared('geofence', 'definition', 'points')).toBe(false);
    expect(compared('geofence', 'definition', 'center')).toBe(false);
  });

  it("a property named as a placeholder (`{vlan}`) makes a map: its keys are data (issue 37: Mist's device stats)", () => {
    expect(compared('ips', 'vlan1')).toBe(false);
    expect(compared('ips', '{vlan}')).toBe(false);
    expect(compared('ips')).toBe(true);
  });
});
