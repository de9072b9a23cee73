import { NUTRIENT_KEYS } from '../../domain/nutrients.js';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every body the service sends. Records list
 * every member they may have (`additionalProperties: false`), so a member the service starts
 * sending without documenting it fails the integration tests, which validate every response
 * against this document (test/helpers/openapi.ts). Members are `required` as in a whole
 * record; a `fields` selector returns only what it selects.
 */
type Schema = Record<string, unknown>;

const uuid: Schema = { type: 'string', format: 'uuid' };
const region: Schema = { type: 'string', enum: ['au', 'us'], description: 'Region of the record.' };
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const NUTRIENT_UNITS: Readonly<Record<string, string>> = {
  energy: 'kJ', fat: 'g', satFat: 'g', transFat: 'g', cholesterol: 'mg', sodium: 'mg', totalCarbs: 'g', fiber: 'g', sugar: 'g',
  protein: 'g', vitaminA: 'IU', vitaminC: 'mg', calcium: 'mg', iron: 'mg', polyUnsatFat: 'g', monoUnsatFat: 'g', omega3Fat: 'mg',
  netCarbs: 'g', sugarAlcohol: 'g', alcohol: 'g', potassium: 'mg', caffeine: 'mg',
};

const serving: Schema = {
  type: 'object',
  description: 'A serving size of the food.',
  additionalProperties: false,
  required: ['name', 'scale', 'type', 'isDefault'],
  properties: {
    name: { type: 'string', description: 'Name of the serving, e.g. "1 cup, diced".' },
    scale: { type: 'number', exclusiveMinimum: 0, description: "Size relative to the food's own information (mass, volume, nutrients): nutrients × scale are the serving's." },
    type: { type: 'string', enum: ['mass', 'volume', 'serving'], description: '`serving` when neither mass nor volume is known.' },
    isDefault: { type: 'boolean', description: "True on the food's default serving (exactly one): the first unless the data names another." },
  },
};

export const SCHEMAS: Readonly<Record<string, Schema>> = {
  Error: {
    type: 'object',
    description: 'Every error of the JSON interface. `details` is absent only for 401.',
    additionalProperties: false,
    required: ['code', 'message'],
    properties: {
      code: { type: 'integer', description: 'The HTTP status.' },
      message: { type: 'string', description: "Short text, e.g. `Invalid parameter`, `Unknown path in 'fields'`, `Not Authorized`, `Food not found`." },
      details: { type: 'string', description: "What exactly: `Parameter 'limit': must be one of 1, 5, 10, 20, 30, 50, 100`, `Path: 'servings/colour'`, `id: <id>`, `Request id: <id>` (500)." },
    },
  },
  Metadata: {
    type: 'object',
    description: 'Paging of a collection, always in full.',
    additionalProperties: false,
    required: ['total', 'limit', 'offset'],
    properties: {
      total: { type: 'integer', minimum: 0, description: 'Count of all matching results (after `grouping-limit` for grouped foods).' },
      limit: { type: 'integer', enum: [1, 5, 10, 20, 30, 50, 100] },
      offset: { type: 'integer', minimum: 0 },
      corrections: {
        type: 'array',
        description: 'Present only when query words were corrected (typos): each word as typed and the words it matched instead.',
        items: {
          type: 'object', additionalProperties: false, required: ['word', 'as'],
          properties: { word: { type: 'string' }, as: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
  },
  Brand: {
    type: 'object',
    description: "A food's brand. Each region has one generic brand, 'Average All Brands' (us: 72e34d90-9563-4433-8ec4-c51801d06330, au: 4a497106-5e8c-4729-9451-667c2b57514b).",
    additionalProperties: false,
    required: ['id', 'name', 'region'],
    properties: { id: uuid, name: { type: 'string' }, region },
  },
  Category: {
    type: 'object',
    description: 'A node of the category tree. A category holds either categories or foods; one that holds foods is a leaf.',
    additionalProperties: false,
    required: ['id', 'region', 'name', 'hierarchy', 'isLeaf'],
    properties: {
      id: uuid,
      region,
      name: { type: 'string' },
      parent: { ...uuid, description: 'The containing category; absent on top-level categories.' },
      hierarchy: {
        type: 'array', minItems: 1, description: 'Path from the top-level category down to this one, inclusive.',
        items: { type: 'object', additionalProperties: false, required: ['id', 'name'], properties: { id: uuid, name: { type: 'string' } } },
      },
      isLeaf: { type: 'boolean', description: 'True when the category has no child categories (it holds foods).' },
    },
  },
  Tag: {
    type: 'object', description: 'Extra information on foods (e.g. Raw, Organic).', additionalProperties: false,
    required: ['id', 'name'], properties: { id: uuid, name: { type: 'string' } },
  },
  Serving: serving,
  Nutrients: {
    type: 'object',
    description: `Nutrient values of the food (per its mass or volume; a serving's are these × its scale). Only the nutrients known for the food appear. Units: ${Object.entries(NUTRIENT_UNITS).map(([k, u]) => `${k} ${u}`).join(', ')}.`,
    additionalProperties: false,
    properties: Object.fromEntries(NUTRIENT_KEYS.map((key) => [key, { type: 'number', minimum: 0, description: NUTRIENT_UNITS[key] }])),
  },
  Food: {
    type: 'object',
    description: 'A food in all its packaging or consumption sizes. Optional members are omitted when unknown, never null. New members may be added; clients ignore those they do not know.',
    additionalProperties: false,
    required: ['foodId', 'revisionId', 'region', 'brand', 'category', 'tags', 'name', 'classification', 'servings', 'defaultServing', 'upcs', 'nutrients'],
    properties: {
      foodId: { ...uuid, description: 'Identifies the food; never changes.' },
      revisionId: { ...uuid, description: 'Changes whenever the food changes; while it is unchanged, nutrients and servings are too.' },
      region,
      brand: ref('Brand'),
      category: ref('Category'),
      tags: { type: 'array', items: ref('Tag'), description: 'In name order; `[]` when none.' },
      name: { type: 'string' },
      otherNames: { type: 'array', items: { type: 'string' } },
      description: { type: 'string' },
      note: { type: 'string' },
      classification: { type: 'string' },
      mass: { type: 'number', description: 'Grams the nutrient values refer to, when known.' },
      volume: { type: 'number', description: 'Millilitres the nutrient values refer to, when known.' },
      servings: { type: 'array', minItems: 1, items: ref('Serving') },
      defaultServing: { ...serving, description: "The serving marked isDefault (the food's first serving unless the data names another)." },
      upcs: {
        type: 'object',
        description: 'Barcodes as the data gives them. Each value: the serving the barcode is for (index into servings) and how many of it.',
        additionalProperties: {
          type: 'object', additionalProperties: false, required: ['servingIndex', 'quantity'],
          properties: { servingIndex: { type: 'integer', minimum: 0 }, quantity: { type: 'number' } },
        },
      },
      nutrients: ref('Nutrients'),
      grouping: {
        type: 'object', additionalProperties: false, required: ['name'],
        description: 'Only with `grouping`: the group the food is in (brand name and id, or classification).',
        properties: { name: { type: 'string' }, id: uuid },
      },
    },
  },
  FoodList: list('foods', 'Food'),
  BrandList: list('brands', 'Brand'),
  CategoryList: list('categories', 'Category'),
  TagList: list('tags', 'Tag'),
  FoodRecord: single('food', 'Food'),
  BrandRecord: single('brand', 'Brand'),
  CategoryRecord: single('category', 'Category'),
  TagRecord: single('tag', 'Tag'),
  Status: {
    type: 'object', additionalProperties: false, required: ['status', 'store'],
    properties: {
      status: { type: 'string', enum: ['ok'] },
      store: { type: 'string', enum: ['ok', 'unavailable'], description: 'Whether the catalogue store answered within 1 s (a PostgreSQL store may be away while the process runs).' },
    },
  },
  Readiness: {
    type: 'object', additionalProperties: false, required: ['status', 'catalog'],
    properties: {
      status: { type: 'string', enum: ['ready'] },
      catalog: {
        type: 'object', additionalProperties: false, required: ['version', 'foods'],
        properties: {
          version: { type: 'integer' },
          foods: { type: 'integer', minimum: 0 },
          localRows: {
            type: 'string', enum: ['copying', 'ready', 'failed'],
            description: "A PostgreSQL replica started with --row-copy-dir: where the copy of this version's food rows on its own disk stands. "
              + 'Until it is ready, pages are read from PostgreSQL; so they are after a failure: a failed copy is made again 30 s later, '
              + 'and after a failed read of the copy, pages come from PostgreSQL until the next catalogue version. Absent without a copy folder.',
          },
          filePages: {
            type: 'string', enum: ['reading', 'read', 'by use'],
            description: 'A SQLite replica: whether the pages of its database file that requests read here and there, the food rows and the search data, '
              + 'have been read once through its memory map since it started listening, so that requests no longer wait for the system to map them: '
              + '`reading`, then `read`; `by use` when the file is past the 2 GiB map or more than half the available memory. Absent on PostgreSQL.',
          },
          searchWarmUp: {
            type: 'string', enum: ['searching', 'done', 'off', 'stopped'],
            description: 'Whether this process has made its search engine\'s bound orders and answered searches of its own catalogue since it started listening '
              + '(3,000 by default, FOODLOOKUP_WARM_SEARCHES), so that the search code is compiled before requests need it; requests are answered in between meanwhile: '
              + '`searching`, then `done`; `off` when the setting is 0 (the orders are still made); `stopped` when the store closed first or one of those searches failed (logged). '
              + 'A SQLite replica begins its searches once its file pages are read.',
          },
        },
      },
    },
  },
};

function list(member: string, item: string): Schema {
  return {
    type: 'object', additionalProperties: false, required: ['metadata', member],
    properties: { metadata: ref('Metadata'), [member]: { type: 'array', items: ref(item) } },
  };
}

function single(member: string, item: string): Schema {
  return { type: 'object', additionalProperties: false, required: [member], properties: { [member]: ref(item) } };
}
