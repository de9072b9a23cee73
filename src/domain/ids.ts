import { v5 as uuidv5, validate as uuidValidate } from 'uuid';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for any RFC 4122-shaped uuid (any version); ids compare case-insensitively. */
export function isUuid(value: string): boolean {
  return UUID_SHAPE.test(value) && uuidValidate(value.toLowerCase());
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
