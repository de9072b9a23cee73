export const REGIONS = ['au', 'us'] as const;
export type Region = (typeof REGIONS)[number];

export function isRegion(value: string): value is Region {
  return value === 'au' || value === 'us';
}

/** The generic brand of each region (service.md 2.2): fixed ids, always present. */
export const GENERIC_BRAND_NAME = 'Average All Brands';
export const GENERIC_BRAND_IDS: Readonly<Record<Region, string>> = {
  us: '72e34d90-9563-4433-8ec4-c51801d06330',
  au: '4a497106-5e8c-4729-9451-667c2b57514b',
};

/** Whether a brand id is a region's generic brand. */
export function isGenericBrand(id: string): boolean {
  return id === GENERIC_BRAND_IDS.us || id === GENERIC_BRAND_IDS.au;
}
