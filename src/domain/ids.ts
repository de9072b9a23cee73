import { v5 as uuidv5 } from 'uuid';

/**
 * `uuid`'s validate pattern (versions 1–8 with the RFC 4122 variant, nil and max), written out
 * so that one match does what a shape test, a lower-casing and `validate` did: this runs for
 * every id of every imported record. A unit test holds it to `validate`.
 */
const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/i;

/** True for an RFC 4122 uuid of versions 1–8, or nil or max; ids compare case-insensitively. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Ids are written in lower case everywhere (contract C3). */
export function normaliseId(value: string): string {
  return value.toLowerCase();
}

/**
 * Namespaces for derived ids. They are fixed forever: changing one would change every
 * derived id and so every revision in every deployed catalogue.
 */
export const ID_NAMESPACES = {
  revision: '0b8f7f5e-3c1d-5a55-9d0e-7b1f2f6f3a10',
  usdaFood: 'c7d3b1a2-5e4f-5b6a-8c9d-0e1f2a3b4c5d',
  usdaBrand: 'a1b2c3d4-e5f6-5a7b-8c9d-0e1f2a3b4c6e',
  usdaCategory: 'b2c3d4e5-f6a7-5b8c-9d0e-1f2a3b4c5d7f',
  usdaTag: 'c3d4e5f6-a7b8-5c9d-8e1f-2a3b4c5d6e80',
  /** FSANZ (AUSNUT and AFCD): foods and the shared classification tree. */
  fsanz: '4cce478e-d41d-451a-8264-bab6c579e6b1',
} as const;

export function deriveId(namespace: string, name: string): string {
  return uuidv5(name, namespace);
}
