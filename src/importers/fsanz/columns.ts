/**
 * Finding the FSANZ columns a food needs by their header text (never by position: the AFCD
 * sheets differ in width and order, and releases add columns). Pure; docs/importers/fsanz.md.
 */
import { parseAmount, type Quantity } from './mapping.js';
import { ownValue } from '../../domain/own.js';

/** A cell as the CSV parser (always text) or the xlsx reader (text, number, boolean, date, null) gives it. */
export type Cell = unknown;

/** NFKC (µ and μ become one letter), whitespace and line breaks collapsed, trimmed, lower case. */
export function normaliseHeader(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Each unit a header may end in, as milligrams (mass) or kilojoules (energy) per unit. */
const MASS_UNITS: Readonly<Record<string, number>> = { g: 1000, mg: 1, 'μg': 0.001, ug: 0.001, mcg: 0.001 };
const ENERGY_UNITS: Readonly<Record<string, number>> = { kj: 1, kcal: 4.184 };

/** `Iron (Fe) \n(mg)` → label `iron (fe)`, unit `mg`; the unit is the last parenthesised part. */
export function splitHeader(text: string): { label: string; unit: string } {
  const header = normaliseHeader(text);
  const match = /^(.*?) ?\(([^()]*)\)$/.exec(header);
  if (!match) return { label: header, unit: '' };
  return { label: match[1]!, unit: match[2]! };
}

/**
 * Factor from a header's unit to the unit we store, or undefined when they are not the same kind
 * (e.g. `%T`, a share of total fatty acids, next to the grams column of the same name).
 */
export function unitFactor(from: string, to: 'kJ' | 'g' | 'mg' | 'µg'): number | undefined {
  if (to === 'kJ') return ownValue(ENERGY_UNITS, from);
  const source = ownValue(MASS_UNITS, from);
  const target = MASS_UNITS[to === 'µg' ? 'μg' : to];
  return source === undefined || target === undefined ? undefined : source / target;
}

interface QuantityColumn {
  readonly quantity: Quantity;
  readonly unit: 'kJ' | 'g' | 'mg' | 'µg';
  /** Header labels (normalised, without the unit) in AUSNUT 2011-13 and AFCD Release 2. */
  readonly labels: readonly string[];
}

export const QUANTITY_COLUMNS: readonly QuantityColumn[] = [
  { quantity: 'energy', unit: 'kJ', labels: ['energy, with dietary fibre', 'energy with dietary fibre, equated'] },
  { quantity: 'moisture', unit: 'g', labels: ['moisture', 'moisture (water)'] },
  { quantity: 'protein', unit: 'g', labels: ['protein'] },
  { quantity: 'fat', unit: 'g', labels: ['total fat', 'fat, total'] },
  { quantity: 'totalCarbs', unit: 'g', labels: ['available carbohydrates, with sugar alcohols', 'available carbohydrate, with sugar alcohols'] },
  { quantity: 'carbsWithoutSugarAlcohols', unit: 'g', labels: ['available carbohydrates, without sugar alcohol', 'available carbohydrate, without sugar alcohols'] },
  { quantity: 'sugar', unit: 'g', labels: ['total sugars'] },
  { quantity: 'fiber', unit: 'g', labels: ['dietary fibre', 'total dietary fibre'] },
  { quantity: 'alcohol', unit: 'g', labels: ['alcohol'] },
  { quantity: 'retinol', unit: 'µg', labels: ['preformed vitamin a (retinol)', 'retinol (preformed vitamin a)'] },
  { quantity: 'provitaminA', unit: 'µg', labels: ['provitamin a (b-carotene equivalents)', 'beta-carotene equivalents (provitamin a)'] },
  { quantity: 'vitaminC', unit: 'mg', labels: ['vitamin c'] },
  { quantity: 'calcium', unit: 'mg', labels: ['calcium (ca)'] },
  { quantity: 'iron', unit: 'mg', labels: ['iron (fe)'] },
  { quantity: 'potassium', unit: 'mg', labels: ['potassium (k)'] },
  { quantity: 'sodium', unit: 'mg', labels: ['sodium (na)'] },
  { quantity: 'caffeine', unit: 'mg', labels: ['caffeine'] },
  { quantity: 'cholesterol', unit: 'mg', labels: ['cholesterol'] },
  { quantity: 'satFat', unit: 'g', labels: ['total saturated fat', 'total saturated fatty acids, equated'] },
  { quantity: 'monoUnsatFat', unit: 'g', labels: ['total monounsaturated fat', 'total monounsaturated fatty acids, equated'] },
  { quantity: 'polyUnsatFat', unit: 'g', labels: ['total polyunsaturated fat', 'total polyunsaturated fatty acids, equated'] },
  { quantity: 'transFat', unit: 'g', labels: ['total trans fatty acids', 'total trans fatty acids, imputed'] },
  { quantity: 'ala', unit: 'mg', labels: ['alpha-linolenic acid', 'c18:3w3'] },
  { quantity: 'lcOmega3', unit: 'mg', labels: ['total long chain omega 3 fatty acids', 'total long chain omega 3 fatty acids, equated'] },
];

/** The identifying columns of one source: header text as published (matched normalised). */
export interface Layout {
  readonly key: string;
  readonly code: string;
  readonly name: string;
  /** Extra text kept in the food's note, when the column exists. */
  readonly flag?: string;
}

export const AUSNUT_LAYOUT: Layout = { key: 'Food ID', code: 'Survey ID', name: 'Food Name', flag: 'Survey flag' };
export const AFCD_LAYOUT: Layout = { key: 'Public Food Key', code: 'Classification', name: 'Food Name' };

export interface ColumnMap {
  readonly width: number;
  readonly key: number;
  readonly code: number;
  readonly name: number;
  readonly flag: number | undefined;
  readonly quantities: readonly { readonly quantity: Quantity; readonly index: number; readonly factor: number; readonly header: string }[];
}

/** The header lacks a column every food needs. */
export class MissingColumn extends Error {}

/** Locates every column a food needs; throws MissingColumn naming the first one that is absent. */
export function mapColumns(header: readonly Cell[], layout: Layout): ColumnMap {
  const texts = header.map(cellText);
  const split = texts.map(splitHeader);
  const find = (name: string): number => texts.findIndex((t) => normaliseHeader(t) === normaliseHeader(name));
  const required = (name: string): number => {
    const index = find(name);
    if (index === -1) throw new MissingColumn(`no '${name}' column`);
    return index;
  };
  const quantities: ColumnMap['quantities'][number][] = [];
  for (const column of QUANTITY_COLUMNS) {
    const index = split.findIndex(({ label, unit }) => column.labels.includes(label) && unitFactor(unit, column.unit) !== undefined);
    if (index !== -1) {
      quantities.push({ quantity: column.quantity, index, factor: unitFactor(split[index]!.unit, column.unit)!, header: normaliseHeader(texts[index]!) });
    }
  }
  if (!quantities.some((q) => q.quantity === 'energy')) {
    throw new MissingColumn("no 'Energy, with dietary fibre (kJ)' column (AFCD: 'Energy with dietary fibre, equated (kJ)')");
  }
  const flag = layout.flag === undefined ? -1 : find(layout.flag);
  return {
    width: texts.length,
    key: required(layout.key), code: required(layout.code), name: required(layout.name),
    flag: flag === -1 ? undefined : flag,
    quantities,
  };
}

/** A cell that cannot be read: the row becomes an invalid record with this reason. */
export class BadCell extends Error {}

/** The text of an identifying cell; numbers (an xlsx Classification) are written as digits. */
export function cellText(cell: Cell): string {
  if (typeof cell === 'string') return cell.trim();
  if (typeof cell === 'number' && Number.isFinite(cell)) return String(cell);
  return '';
}

/** Every mapped amount of a row, in the units we store; absent when the cell is empty. */
export function readQuantities(row: readonly Cell[], columns: ColumnMap): Partial<Record<Quantity, number>> {
  const out: Partial<Record<Quantity, number>> = {};
  for (const { quantity, index, factor, header } of columns.quantities) {
    const cell = row[index];
    let amount: number | undefined;
    try {
      amount = parseAmount(cell);
    } catch (error) {
      throw new BadCell(`${header}: ${(error as Error).message}`);
    }
    if (amount !== undefined) out[quantity] = amount * factor;
  }
  return out;
}
