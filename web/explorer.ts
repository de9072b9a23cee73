/**
 * The food explorer (GET /): a token, a search box that asks on every keystroke, filters by
 * region, brand and category, and a food's nutrition facts scaled to the serving picked. It
 * calls the public /v1 interface like any browser app, so it shows what the API gives.
 */

interface Serving { readonly name: string; readonly scale: number; readonly type: string; readonly isDefault: boolean }
interface FoodHit { readonly foodId: string; readonly name: string; readonly brand: { readonly name: string } }
interface Food {
  readonly foodId: string;
  readonly name: string;
  readonly brand: { readonly name: string };
  readonly category: { readonly hierarchy: readonly { readonly name: string }[] };
  readonly classification: string;
  readonly mass?: number;
  readonly volume?: number;
  readonly servings: readonly Serving[];
  readonly defaultServing: Serving;
  readonly nutrients: Readonly<Record<string, number>>;
}
interface Named { readonly id: string; readonly name: string; readonly parent?: string }
type ListOf<K extends string, T> = { readonly metadata: { readonly total: number } } & Readonly<Record<K, readonly T[]>>;

const KJ_PER_KCAL = 4.184;

/** The nutrition-facts rows after energy: label, key, unit, and whether it is a part of the row above. */
const FACTS: readonly (readonly [string, string, string, boolean?])[] = [
  ['Fat', 'fat', 'g'], ['Saturated fat', 'satFat', 'g', true], ['Trans fat', 'transFat', 'g', true],
  ['Polyunsaturated fat', 'polyUnsatFat', 'g', true], ['Monounsaturated fat', 'monoUnsatFat', 'g', true],
  ['Cholesterol', 'cholesterol', 'mg'], ['Sodium', 'sodium', 'mg'], ['Total carbohydrate', 'totalCarbs', 'g'],
  ['Dietary fiber', 'fiber', 'g', true], ['Sugars', 'sugar', 'g', true], ['Net carbohydrate', 'netCarbs', 'g', true],
  ['Protein', 'protein', 'g'], ['Vitamin A', 'vitaminA', 'IU'], ['Vitamin C', 'vitaminC', 'mg'], ['Calcium', 'calcium', 'mg'],
  ['Iron', 'iron', 'mg'], ['Potassium', 'potassium', 'mg'], ['Omega-3 fat', 'omega3Fat', 'mg'], ['Alcohol', 'alcohol', 'g'],
  ['Sugar alcohol', 'sugarAlcohol', 'g'], ['Caffeine', 'caffeine', 'mg'],
];

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing`);
  return found as T;
}

const tokenInput = element<HTMLInputElement>('token');
const searchInput = element<HTMLInputElement>('search');
const regionSelect = element<HTMLSelectElement>('region');
const brandInput = element<HTMLInputElement>('brand');
const brandOptions = element<HTMLDataListElement>('brand-options');
const categorySelect = element<HTMLSelectElement>('category');
const statusLine = element<HTMLParagraphElement>('status');
const results = element<HTMLUListElement>('results');
const foodPanel = element<HTMLElement>('food');
const servingSelect = element<HTMLSelectElement>('serving');

const TOKEN_KEY = 'foodlookup-token';
tokenInput.value = localStorage.getItem(TOKEN_KEY) ?? '';

class ApiFailure extends Error {}

async function api<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: { authorization: `Basic ${btoa(`${tokenInput.value.trim()}:`)}` }, signal: signal ?? null });
  const body = (await response.json()) as T & { message?: string; details?: string };
  if (!response.ok) {
    throw new ApiFailure(response.status === 401 ? 'This token is not accepted: paste a valid one above.' : `${body.message ?? response.status}${body.details ? `: ${body.details}` : ''}`);
  }
  return body;
}

/** The words as typed, the last one marked as a prefix while it is being typed ("chedd" → "chedd*"). */
export function typeAheadQuery(text: string): string {
  const trimmed = text.trim();
  return /[\p{L}\p{N}]$/u.test(trimmed) ? `${trimmed}*` : trimmed;
}

const brandIds = new Map<string, string>();

function filterParams(): URLSearchParams {
  const params = new URLSearchParams();
  if (regionSelect.value) params.set('region', regionSelect.value);
  const brand = brandIds.get(brandInput.value);
  if (brand) params.set('brands', brand);
  if (categorySelect.value) params.set('categories', categorySelect.value);
  return params;
}

let searching: AbortController | undefined;

/** Runs on every keystroke and filter change; only the latest request's answer is shown. */
async function search(): Promise<void> {
  searching?.abort();
  const text = searchInput.value;
  if (text.trim() === '') {
    results.replaceChildren();
    statusLine.textContent = '';
    return;
  }
  const controller = new AbortController();
  searching = controller;
  const params = filterParams();
  params.set('query', typeAheadQuery(text));
  params.set('limit', '20');
  params.set('fields', 'foodId,name,brand/name');
  try {
    const page = await api<ListOf<'foods', FoodHit>>(`/v1/foods?${params.toString()}`, controller.signal);
    if (controller.signal.aborted) return;
    statusLine.textContent = `${page.metadata.total.toLocaleString('en')} ${page.metadata.total === 1 ? 'food' : 'foods'}`;
    results.replaceChildren(...page.foods.map((hit) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset['foodId'] = hit.foodId;
      button.append(hit.name);
      const brand = document.createElement('span');
      brand.className = 'brand';
      brand.textContent = hit.brand.name;
      button.append(brand);
      button.addEventListener('click', () => void openFood(hit.foodId));
      item.append(button);
      return item;
    }));
  } catch (error) {
    if (controller.signal.aborted) return;
    statusLine.textContent = error instanceof Error ? error.message : String(error);
  }
}

let brandLookup: AbortController | undefined;

async function suggestBrands(): Promise<void> {
  brandLookup?.abort();
  const text = brandInput.value.trim();
  if (brandIds.has(brandInput.value) || text === '') {
    void search();
    return;
  }
  const controller = new AbortController();
  brandLookup = controller;
  const params = new URLSearchParams({ query: typeAheadQuery(text), limit: '10', fields: 'id,name' });
  if (regionSelect.value) params.set('region', regionSelect.value);
  try {
    const page = await api<ListOf<'brands', Named>>(`/v1/brands?${params.toString()}`, controller.signal);
    for (const brand of page.brands) brandIds.set(brand.name, brand.id);
    brandOptions.replaceChildren(...page.brands.map((brand) => new Option(brand.name, brand.name)));
  } catch {
    // A failed suggestion leaves the list as it was; the search says what is wrong.
  }
}

/** Top-level categories: choosing one keeps the foods of every category below it. */
async function loadCategories(): Promise<void> {
  const top: Named[] = [];
  for (let offset = 0; offset < 1000; offset += 100) {
    const page = await api<ListOf<'categories', Named>>(`/v1/categories?is-leaf=false&limit=100&offset=${offset}&fields=id,name,parent`);
    top.push(...page.categories.filter((c) => c.parent === undefined));
    if (offset + 100 >= page.metadata.total) break;
  }
  categorySelect.replaceChildren(new Option('any', ''), ...top.map((c) => new Option(c.name, c.id)));
}

let shown: Food | undefined;

async function openFood(id: string): Promise<void> {
  try {
    const { food } = await api<{ food: Food }>(`/v1/foods/${encodeURIComponent(id)}`);
    shown = food;
    element('food-name').textContent = food.name;
    element('food-meta').textContent = `${food.brand.name} · ${food.category.hierarchy.map((c) => c.name).join(' › ')}`;
    servingSelect.replaceChildren(...food.servings.map((s, i) => new Option(s.name, String(i), s.isDefault, s.isDefault)));
    foodPanel.hidden = false;
    showFacts();
  } catch (error) {
    statusLine.textContent = error instanceof Error ? error.message : String(error);
  }
}

function amount(value: number): string {
  const digits = value >= 100 ? 0 : value >= 1 ? 1 : 2;
  return value.toLocaleString('en', { maximumFractionDigits: digits });
}

function row(label: string, value: string, className: string, id?: string): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.className = className;
  const name = document.createElement('td');
  name.textContent = label;
  const cell = document.createElement('td');
  cell.textContent = value;
  if (id) cell.id = id;
  tr.append(name, cell);
  return tr;
}

/** The food's nutrients × the serving's scale; energy in kJ and kcal. */
function showFacts(): void {
  const food = shown;
  if (!food) return;
  const serving = food.servings[Number(servingSelect.value)] ?? food.defaultServing;
  const grams = serving.type === 'mass' && food.mass !== undefined ? ` (${amount(food.mass * serving.scale)} g)` : '';
  const millilitres = serving.type === 'volume' && food.volume !== undefined ? ` (${amount(food.volume * serving.scale)} mL)` : '';
  element('facts-serving').textContent = `per ${serving.name}${grams}${millilitres}`;
  const rows: HTMLTableRowElement[] = [];
  const energy = food.nutrients['energy'];
  if (energy !== undefined) {
    const kj = energy * serving.scale;
    const tr = document.createElement('tr');
    tr.className = 'energy';
    const label = document.createElement('td');
    label.textContent = 'Energy';
    const values = document.createElement('td');
    const kjText = document.createElement('span');
    kjText.id = 'energy-kj';
    kjText.textContent = `${Math.round(kj).toLocaleString('en')} kJ`;
    const kcalText = document.createElement('span');
    kcalText.id = 'energy-kcal';
    kcalText.textContent = `${Math.round(kj / KJ_PER_KCAL).toLocaleString('en')} kcal`;
    values.append(kjText, ' / ', kcalText);
    tr.append(label, values);
    rows.push(tr);
  }
  for (const [label, key, unit, part] of FACTS) {
    const value = food.nutrients[key];
    if (value !== undefined) rows.push(row(label, `${amount(value * serving.scale)} ${unit}`, part ? 'sub' : '', `fact-${key}`));
  }
  element('facts-rows').replaceChildren(...rows);
}

tokenInput.addEventListener('change', () => {
  localStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
  void loadCategories().catch((error: unknown) => (statusLine.textContent = error instanceof Error ? error.message : String(error)));
  void search();
});
searchInput.addEventListener('input', () => void search());
regionSelect.addEventListener('change', () => void search());
categorySelect.addEventListener('change', () => void search());
brandInput.addEventListener('input', () => void suggestBrands());
brandInput.addEventListener('change', () => void search());
servingSelect.addEventListener('change', showFacts);
if (tokenInput.value !== '') void loadCategories().catch(() => undefined);
