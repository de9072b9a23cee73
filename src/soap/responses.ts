import type { Food } from '../domain/records.js';
import type { NutrientKey } from '../domain/nutrients.js';
import { KJ_PER_KCAL } from '../domain/nutrients.js';
import { escapeXml, FOODSEARCH_NS, SOAP12_NS, XML_DECLARATION } from './xml.js';

const OPEN = `${XML_DECLARATION}<env:Envelope xmlns:env="${SOAP12_NS}" xmlns:fs="${FOODSEARCH_NS}" ` +
  `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><env:Body>`;
const CLOSE = '</env:Body></env:Envelope>';

/** The WSDL's Nutrients sequence, in order, and where each value comes from. */
const NUTRIENT_ELEMENTS: readonly (readonly [element: string, key: NutrientKey, divide: number])[] = [
  ['calories', 'energy', KJ_PER_KCAL], ['fat', 'fat', 1], ['carbohydrate', 'totalCarbs', 1], ['protein', 'protein', 1],
  ['fiber', 'fiber', 1], ['sugar', 'sugar', 1], ['sodium', 'sodium', 1], ['calcium', 'calcium', 1], ['satfat', 'satFat', 1],
  ['cholesterol', 'cholesterol', 1],
];

/** xsd:float lexical form, 3 decimals (contract C6); never NaN or Infinity. */
export function xsdFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? 'INF' : value < 0 ? '-INF' : 'NaN';
  const rounded = Number(value.toFixed(3));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

export interface SearchCategory {
  readonly name: string;
  readonly children: readonly { readonly id: string; readonly name: string }[];
}

export function foodSearchResponse(categories: readonly SearchCategory[]): string {
  const body = categories.map((c) =>
    `<fs:categories><fs:name>${escapeXml(c.name)}</fs:name>${c.children
      .map((f) => `<fs:children><fs:id>${escapeXml(f.id)}</fs:id><fs:name>${escapeXml(f.name)}</fs:name></fs:children>`)
      .join('')}</fs:categories>`).join('');
  return `${OPEN}<fs:foodSearchResponse>${body}</fs:foodSearchResponse>${CLOSE}`;
}

/** Each serving's nutrients are the food's × the serving's scale; calories from kJ. */
export function getFoodResponse(food: Food): string {
  const servings = food.servings.map((serving) => {
    const nutrients = NUTRIENT_ELEMENTS.map(([element, key, divide]) => {
      const value = food.nutrients[key];
      return value === undefined
        ? `<fs:${element} xsi:nil="true"/>`
        : `<fs:${element}>${xsdFloat((value / divide) * serving.scale)}</fs:${element}>`;
    }).join('');
    return `<fs:servings><fs:name>${escapeXml(serving.name)}</fs:name><fs:nutrients>${nutrients}</fs:nutrients></fs:servings>`;
  }).join('');
  return `${OPEN}<fs:getFoodResponse><fs:food><fs:id>${escapeXml(food.foodId)}</fs:id><fs:name>${escapeXml(food.name)}</fs:name>` +
    `${servings}</fs:food></fs:getFoodResponse>${CLOSE}`;
}
