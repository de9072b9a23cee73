import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { u } from '../helpers/fixture-catalog.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../helpers/server.js';
import { envelope, faultOf, post } from '../helpers/soap.js';
import { forEachStore, newTestStore, type TestStore } from '../helpers/stores.js';

/**
 * Contract C3's Matching rules (word forms, typos, synonyms, corrections, type-ahead, the name
 * tier) and C6's foodSearch, each through the real server on a real port over a catalogue
 * imported through the real CLI.
 */

const US = '72e34d90-9563-4433-8ec4-c51801d06330';
const serving = (n: number): { name: string; scale: number; type: string }[] =>
  Array.from({ length: n }, (_, i) => ({ name: i === 0 ? '100 g' : `${i} cup`, scale: i + 1, type: i === 0 ? 'mass' : 'volume' }));

let food = 0;
/** A food of category `fruit` (or the one given), brand generic unless given. */
const f = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  foodId: u(5000 + food++), region: 'us', brand: US, category: u(11), tags: [], name, classification: '', servings: serving(1), upcs: {}, nutrients: {}, ...extra,
});

const CATALOG = {
  brands: [{ id: u(1), name: 'Zebra Dairy', region: 'us' }, { id: u(2), name: 'Lunar Bakery', region: 'us' }],
  categories: [
    { id: u(10), name: 'Food', region: 'us' },
    { id: u(11), name: 'Fruit and vegetables', region: 'us', parent: u(10) },
    { id: u(12), name: 'Prepared dishes', region: 'us', parent: u(10) },
    { id: u(13), name: 'Drinks and beverages', region: 'us', parent: u(10) },
  ],
  tags: [{ id: u(20), name: 'Organic produce' }],
  foods: [
    f('Apples, raw, with skin', { servings: serving(6) }),
    f('Apple'),
    f('Apple juice, canned', { category: u(13) }),
    f('Croissants, apple', { category: u(12) }),
    f('Berries, mixed, raw'),
    f('Tomatoes, red, raw'),
    f('Peaches, canned'),
    f('Meat loaf', { category: u(12) }),
    f('Lettuce leaves, raw'),
    f('Leaf lard', { category: u(12) }),
    f('Potatoes, baked'),
    f("Cook's stew", { category: u(12) }),
    f('Rice, cooked', { category: u(12) }),
    f('Broccoli, raw', { servings: serving(3) }),
    f('Broccoli soup', { category: u(12) }),
    f('Cheese, mozzarella', { category: u(12) }),
    f('Chese board', { category: u(12) }),
    f('Cheese, cheddar', { category: u(12), servings: serving(5) }),
    f('Cheddar crackers', { category: u(12) }),
    f('Quinoa bowl', { category: u(12), description: 'aardvarkish grain' }),
    f('Eggplant, raw'),
    f('Aubergine dip', { category: u(12) }),
    f('Carbonated beverage, cola', { category: u(13) }),
    f('Soda bread', { category: u(12) }),
    f('Frankfurter, beef', { category: u(12) }),
    f('Frankfurter, turkey', { category: u(12) }),
    f('Fish, dolphinfish, raw', { category: u(12) }),
    f('Ketchup', { category: u(12) }),
    f('Berry tart', { category: u(12) }),
    f('Fruit tart', { category: u(12), description: 'with berries' }),
    f('Yogurt, plain', { category: u(12), brand: u(1), tags: [u(20)] }),
    f('Milk, 12345 batch', { category: u(13) }),
    f('ZEBRA DAIRY, Vanilla ice cream', { category: u(12), brand: u(1), servings: serving(8) }),
    f('Zebra cakes, chocolate', { category: u(12) }),
    f('Vanilla pudding', { category: u(12), brand: u(1) }),
    // As USDA names a maker's products (`Cereals ready-to-eat, KELLOGG, KELLOGG'S FROOT LOOPS`).
    f('Snacks, LUNAR, LUNAR\'S MOON PIES', { category: u(12), brand: u(2) }),
    f('Cakes, LUNAR, MOON PIES minis', { category: u(12), brand: u(2) }),
    f('Beans, great'),
    f('Beans, green'),
    f('Green tea', { category: u(13) }),
    f('Green peppers, raw'),
    f('Green onions, raw'),
    f('Supercalifragilisticexpialidocious lollipop', { category: u(12) }),
    f('Zapote'),
    f('Quail, giblets, grilled', { category: u(12), servings: serving(4) }),
    f('Quail, meat only, grilled', { category: u(12) }),
    f('Zampone, classico', { category: u(12) }),
    f('Zampone, piccante', { category: u(12) }),
    f('Zampone, stagionato', { category: u(12) }),
    // A class (a one-word head with 16 different second segments or more) and its kinds.
    ...['almonds', 'pecans', 'walnuts', 'hazelnuts', 'macadamias', 'pistachios', 'chestnuts', 'pinyon', 'acorns', 'beechnuts',
      'butternuts', 'hickory', 'ginkgo', 'brazil', 'filberts'].map((kind) => f(`Nuts, ${kind}`, { category: u(12) })),
    f('Nuts, cashew butter, plain', { category: u(12), servings: serving(5) }),
    f('Nuts, cashew nuts, dry roasted', { category: u(12) }),
    f('Nuts mix, salted', { category: u(12), servings: serving(4) }),
    // A class whose second segments are mostly flavours: foods of their own elsewhere (Apples, raw).
    ...['apple', 'cherry', 'pecan', 'pumpkin', 'rhubarb', 'plum', 'key lime', 'coconut custard', 'mincemeat', 'chess', 'shoofly',
      'banoffee', 'custard', 'quince', 'apricot', 'fig', 'oyster'].map((kind) => f(`Pie, ${kind}`, { category: u(12), servings: serving(kind === 'apple' ? 8 : 1) })),
    // Oysters are mostly named after Mollusks (no class: two second segments), so Pie, oyster is a pie's flavour.
    f('Mollusks, oyster, raw', { category: u(12), servings: serving(2) }),
    f('Mollusks, oyster, canned', { category: u(12) }),
    // A head that marks its foods (a baby food) with as many kinds as a class: no class.
    ...['guava', 'papaya', 'lychee', 'kohlrabi', 'parsnip', 'rutabaga', 'okra', 'jicama', 'tamarind', 'persimmon', 'kumquat',
      'loquat', 'feijoa', 'salsify', 'celeriac', 'tomatillo'].map((kind) => f(`Babyfood, ${kind}`, { category: u(12) })),
    f('Nectar, mango, guava', { category: u(13), servings: serving(4) }),
  ],
};

forEachStore((kind) => {
  let dir: string;
  let cleanup: () => void;
  let db: TestStore;
  let server: TestServer;

  before(async () => {
    ({ dir, cleanup } = tempDir());
    db = await newTestStore(kind, dir, 'matching');
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(CATALOG));
    await importInto(db, 'catalog', [join(dir, 'catalog.json')]);
    server = await startTestServer(db);
  });

  after(async () => {
    await server.close();
    cleanup();
  });

  interface Listing { metadata: { total: number; corrections?: { word: string; as: string[] }[] }; names: string[] }

  async function list(query: string, on: TestServer = server, resource = 'foods', extra = ''): Promise<Listing> {
    const res = await on.get(`/v1/${resource}?query=${encodeURIComponent(query)}&limit=100${extra}`);
    assert.equal(res.status, 200, res.text);
    const body = res.body as { metadata: Listing['metadata'] } & Record<string, { name: string }[]>;
    return { metadata: body.metadata, names: body[resource]!.map((x) => x.name) };
  }

  const names = async (query: string): Promise<string[]> => (await list(query)).names;
  const sorted = async (query: string): Promise<string[]> => (await names(query)).sort();

  describe('word forms: a word matches the words with the same English singular form', () => {
    test('regular and irregular plurals, both ways', async () => {
      assert.ok((await names('apple')).includes('Apples, raw, with skin'));
      assert.deepEqual(await sorted('apples'), await sorted('apple'));
      assert.deepEqual(await sorted('berry'), ['Berries, mixed, raw', 'Berry tart', 'Fruit tart'], 'Fruit tart by its description');
      assert.deepEqual(await names('tomato'), ['Tomatoes, red, raw']);
      assert.deepEqual(await names('peach'), ['Peaches, canned']);
      assert.deepEqual(await names('loaves'), ['Meat loaf']);
      assert.deepEqual(await sorted('leaf'), ['Leaf lard', 'Lettuce leaves, raw']);
      assert.deepEqual(await names('potato'), ['Potatoes, baked']);
    });

    test('no other stemming: cooked is not cook, appl is nothing', async () => {
      assert.deepEqual(await names('cook'), ["Cook's stew"]);
      assert.deepEqual(await names('cooked'), ['Rice, cooked']);
      assert.deepEqual(await names('appl'), []);
    });

    test('a word marked * matches as a prefix of the words themselves, not of their forms', async () => {
      assert.deepEqual(await names('leav*'), ['Lettuce leaves, raw']);
      assert.deepEqual(await sorted('appl*'), await sorted('apple'));
    });
  });

  describe('typos: a word that matches nothing matches the words within its edits', () => {
    test('one edit from 5 letters (an adjacent swap included), two from 9, and the response says how', async () => {
      const brocoli = await list('brocoli');
      assert.deepEqual(brocoli.names.sort(), ['Broccoli soup', 'Broccoli, raw']);
      assert.deepEqual(brocoli.metadata.corrections, [{ word: 'brocoli', as: ['broccoli'] }]);
      assert.deepEqual((await list('borccoli')).metadata.corrections, [{ word: 'borccoli', as: ['broccoli'] }]);
      const two = await list('mozzarrela');
      assert.deepEqual(two.names, ['Cheese, mozzarella']);
      assert.deepEqual(two.metadata.corrections, [{ word: 'mozzarrela', as: ['mozzarella'] }]);
      // Corrected words combine with the others (AND).
      assert.deepEqual(await names('brocoli raw'), ['Broccoli, raw']);
    });

    test('not for two edits under 9 letters, words under 5 letters, numbers or * words', async () => {
      for (const query of ['mozarela', 'ryce', '12346', 'brocolx*']) {
        const found = await list(query);
        assert.deepEqual(found.names, [], query);
        assert.equal(found.metadata.corrections, undefined, query);
      }
    });

    test('of several corrections as near, the word more foods have ranks first', async () => {
      // `grean` is one edit from `great` (1 food) and `green` (4): the two beans differ in nothing else.
      const { names: found, metadata } = await list('grean beans');
      assert.deepEqual(metadata.corrections, [{ word: 'grean', as: ['great', 'green'] }]);
      assert.deepEqual(found, ['Beans, green', 'Beans, great']);
    });

    test('a word past 24 letters is corrected as a shorter one is; one longer than every word answers at once', { timeout: 60_000 }, async () => {
      const long = await list('supercalifragilisticexpialidocius');
      assert.deepEqual(long.names, ['Supercalifragilisticexpialidocious lollipop']);
      assert.deepEqual(long.metadata.corrections, [{ word: 'supercalifragilisticexpialidocius', as: ['supercalifragilisticexpialidocious'] }]);
      // Made through a word's deletions, 2,000 letters took minutes of the server's one thread
      // (the test's timeout is the hang it guards against); one request can send 60,000.
      const huge = 'qwxz'.repeat(15_000);
      assert.deepEqual((await list(huge)).names, []);
      assert.deepEqual((await list(`${'lollipop '.repeat(3)}${'abcdefghij'.repeat(200)}`)).names, []);
      for (const resource of ['brands', 'categories', 'tags']) assert.deepEqual((await list(huge.slice(0, 20_000), server, resource)).names, [], resource);
      const soap = await post(server, envelope('foodSearch', { devkey: TEST_TOKEN, terms: huge }));
      assert.equal(soap.status, 200, soap.text);
      assert.match(soap.text, /foodSearchResponse/);
      assert.doesNotMatch(soap.text, /categories>/);
    });

    test('more than 32 different words is a 400 (none may be left out), repeats counted once; SOAP: a Sender fault', async () => {
      const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}x`).join(' ');
      // 32 words, one of them no food has: nothing, as AND says.
      assert.deepEqual((await list(`broccoli ${words(31)}`)).names, []);
      assert.deepEqual(await names(`broccoli raw ${'raw '.repeat(40)}`), ['Broccoli, raw']);
      for (const resource of ['foods', 'brands', 'categories', 'tags']) {
        const res = await server.get(`/v1/${resource}?query=${encodeURIComponent(`broccoli ${words(32)}`)}`);
        assert.equal(res.status, 400, resource);
        assert.deepEqual(res.body, { code: 400, message: 'Invalid parameter', details: "Parameter 'query': at most 32 different words" });
      }
      assert.equal((await server.get(`/v1/foods?query=${encodeURIComponent(words(40))}&query-type=prefix`)).status, 200, 'a prefix is one key, not words');
      const soap = await post(server, envelope('foodSearch', { devkey: TEST_TOKEN, terms: `broccoli ${words(32)}` }));
      assert.equal(soap.status, 400);
      assert.deepEqual(faultOf(soap.text), { code: 'env:Sender', reason: 'Malformed request: terms: at most 32 different words' });
    });

    test('a word that matches something as typed is never corrected; metadata has no corrections then', async () => {
      const chese = await list('chese');
      assert.deepEqual(chese.names, ['Chese board']);
      assert.deepEqual(Object.keys(chese.metadata).sort(), ['limit', 'offset', 'total']);
    });

    test('each resource corrects from its own vocabulary; fields-selected responses carry corrections too', async () => {
      const brands = await list('zebre', server, 'brands');
      assert.deepEqual(brands.names, ['Zebra Dairy']);
      assert.deepEqual(brands.metadata.corrections, [{ word: 'zebre', as: ['zebra'] }]);
      assert.deepEqual((await list('produse', server, 'tags')).names, ['Organic produce']);
      assert.deepEqual((await list('beveragez', server, 'categories')).names, ['Drinks and beverages']);
      assert.deepEqual((await list('dairy', server, 'categories')).names, [], 'a brand word is not a category word');
      const res = await server.get('/v1/foods?query=brocoli&fields=name&limit=1');
      assert.deepEqual((res.body as { metadata: unknown }).metadata, { total: 2, limit: 1, offset: 0, corrections: [{ word: 'brocoli', as: ['broccoli'] }] });
    });
  });

  describe('synonyms: a word or phrase also matches its synonyms from the list', () => {
    test('both directions, one way, phrases, and a synonym match counts as the word (AND)', async () => {
      assert.deepEqual(await sorted('aubergine'), ['Aubergine dip', 'Eggplant, raw']);
      assert.deepEqual(await sorted('eggplant'), ['Aubergine dip', 'Eggplant, raw']);
      assert.deepEqual(await sorted('soda'), ['Carbonated beverage, cola', 'Soda bread']);
      assert.deepEqual(await names('carbonated beverage'), ['Carbonated beverage, cola'], 'soda => carbonated beverage is one way');
      assert.deepEqual(await names('soda cola'), ['Carbonated beverage, cola']);
      assert.deepEqual(await names('beef hot dog'), ['Frankfurter, beef']);
      assert.deepEqual(await sorted('hot dogs'), ['Frankfurter, beef', 'Frankfurter, turkey']);
      // A phrase that repeats its word (the query's words are searched once each).
      assert.deepEqual(await names('mahi mahi'), ['Fish, dolphinfish, raw']);
    });

    test('a phrase of the list typed in another order matches when the words as typed match nothing together', async () => {
      assert.deepEqual(await sorted('dogs hot'), ['Frankfurter, beef', 'Frankfurter, turkey']);
      assert.deepEqual(await names('dog hot beef'), ['Frankfurter, beef']);
      assert.deepEqual(await names('dog cola'), [], 'no phrase of the list');
    });

    test('a word its synonyms match is not corrected', async () => {
      const catsup = await list('catsup');
      assert.deepEqual(catsup.names, ['Ketchup']);
      assert.equal(catsup.metadata.corrections, undefined);
    });

    test('an operator replaces or extends the list with FOODLOOKUP_SYNONYMS, no import needed', async () => {
      const mine = join(dir, 'mine.txt');
      writeFileSync(mine, '# ours\nzyzzyva => apple\n');
      const replaced = await startTestServer(db, { FOODLOOKUP_SYNONYMS: mine });
      const extended = await startTestServer(db, { FOODLOOKUP_SYNONYMS: `default,${mine}` });
      try {
        assert.ok((await list('zyzzyva', replaced)).names.includes('Apples, raw, with skin'));
        assert.deepEqual((await list('aubergine', replaced)).names, ['Aubergine dip'], 'the shipped list is replaced');
        assert.ok((await list('zyzzyva', extended)).names.includes('Apple'));
        assert.deepEqual((await list('aubergine', extended)).names.sort(), ['Aubergine dip', 'Eggplant, raw']);
      } finally {
        await replaced.close();
        await extended.close();
      }
    });
  });

  describe('relevance: the name tier first, then the service\'s score', () => {
    test('a food whose name has every word (in any form) ranks above one that needs other fields', async () => {
      assert.deepEqual(await names('berries tart'), ['Berry tart', 'Fruit tart']);
    });

    test('the head of the name and a plain, common form come first; type-ahead ranks as the finished word', async () => {
      assert.equal((await names('apple'))[0], 'Apple', 'the whole name');
      assert.equal((await names('apples raw'))[0], 'Apples, raw, with skin');
      assert.equal((await names('cheddar'))[0], 'Cheese, cheddar');
      assert.equal((await names('ched*'))[0], 'Cheese, cheddar');
    });

    test('a class names a food by its kind (Nuts, cashew nuts for cashews), not by a flavour that is a food of its own (Pie, apple; Pie, oyster)', async () => {
      // Cashew butter lists more servings; the kind named is the cashew nut.
      assert.deepEqual(await names('cashews'), ['Nuts, cashew nuts, dry roasted', 'Nuts, cashew butter, plain']);
      // Pie, apple lists more servings than Apples, raw, with skin, and apple heads foods of its own.
      const apple = await names('apple');
      assert.ok(apple.indexOf('Apples, raw, with skin') < apple.indexOf('Pie, apple'), apple.join(' · '));
      // A kind is a class's only where it is mostly found: oysters after Mollusks, not after Pie.
      assert.equal((await names('oyster'))[0], 'Mollusks, oyster, raw');
      // The class word alone still covers the head segment: every Nuts, … before a name that opens with the word, whatever its servings.
      assert.equal((await names('nuts')).at(-1), 'Nuts mix, salted');
    });

    test('a head that marks its foods is no class, however many kinds follow it: Babyfood, guava stays a baby food of guava', async () => {
      // Were Babyfood a class as Nuts is, guava would stand at the head of Babyfood, guava and
      // its whole head segment be named, past the nectar's later segment and servings.
      assert.deepEqual(await names('guava'), ['Nectar, mango, guava', 'Babyfood, guava']);
    });

    test('an animal\'s name gives its meat before its offal, whatever their servings; named, the offal comes first', async () => {
      assert.deepEqual(await names('quail'), ['Quail, meat only, grilled', 'Quail, giblets, grilled']);
      assert.deepEqual(await names('quail giblets'), ['Quail, giblets, grilled']);
    });

    test('a type-ahead word names a whole food only as typed: a longer completion takes no whole-name bonus', async () => {
      // `za*` completes to zampone (3 foods) and zapote (1): the commoner word first, although
      // Zapote is all of a name; typed whole, it is.
      assert.deepEqual(await names('za*'), ['Zampone, classico', 'Zampone, piccante', 'Zampone, stagionato', 'Zapote']);
      assert.deepEqual(await names('zapote*'), ['Zapote']);
      assert.deepEqual(await names('zampone*'), await names('zampone'));
    });

    test('a name that opens with its brand has no food at its head: the maker\'s words still count as the name\'s', async () => {
      // Brand Zebra Dairy: its foods named `ZEBRA DAIRY, …` (as USDA names `BURGER KING, …`) do
      // not take the head's weight for the maker's words, whatever their servings.
      assert.deepEqual((await names('zebra')).slice(0, 2), ['Zebra cakes, chocolate', 'ZEBRA DAIRY, Vanilla ice cream']);
      assert.deepEqual(await names('zebra vanilla'), ['ZEBRA DAIRY, Vanilla ice cream', 'Vanilla pudding']);
    });

    test('a later segment that names the maker and its product is named whole by the product alone', async () => {
      // `LUNAR'S MOON PIES` (brand Lunar Bakery) is all of `moon pies` but the maker's word and
      // the `s` of its apostrophe; `MOON PIES minis` has a word more. Without the rule the two
      // tie and name order puts Cakes first; with the maker named too, the same order.
      assert.deepEqual(await names('moon pies'), ['Snacks, LUNAR, LUNAR\'S MOON PIES', 'Cakes, LUNAR, MOON PIES minis']);
      assert.deepEqual(await names('lunar moon pies'), ['Snacks, LUNAR, LUNAR\'S MOON PIES', 'Cakes, LUNAR, MOON PIES minis']);
    });
  });

  describe('SOAP foodSearch: the same matching and ranking, names only', () => {
    const search = async (terms: string): Promise<{ category: string; foods: string[] }[]> => {
      const res = await post(server, envelope('foodSearch', { devkey: TEST_TOKEN, terms }));
      assert.equal(res.status, 200, res.text);
      return [...res.text.matchAll(/<fs:categories><fs:name>([^<]*)<\/fs:name>(.*?)<\/fs:categories>/g)]
        .map((m) => ({ category: m[1]!, foods: [...m[2]!.matchAll(/<fs:name>([^<]*)<\/fs:name>/g)].map((n) => n[1]!) }));
    };

    test('apple: the food named exactly Apple first, categories in the order of their best food', async () => {
      const found = await search('apple');
      assert.equal(found[0]!.foods[0], 'Apple');
      // The JSON interface's name tier, in its order: each category where its first food is.
      const res = await server.get('/v1/foods?query=apple&fields=name,category/name&limit=100');
      const ranked = (res.body as { foods: { name: string; category: { name: string } }[] }).foods.filter((x) => /apple/i.test(x.name));
      assert.deepEqual(found.map((c) => c.category), [...new Set(ranked.map((x) => x.category.name))]);
      assert.deepEqual(found.flatMap((c) => c.foods).sort(), ranked.map((x) => x.name).sort());
    });

    test('word forms, typos from food names, synonyms in names; never another field', async () => {
      assert.ok((await search('tomato')).some((c) => c.foods.includes('Tomatoes, red, raw')));
      assert.ok((await search('brocoli')).some((c) => c.foods.includes('Broccoli, raw')));
      assert.ok((await search('aubergine')).some((c) => c.foods.includes('Eggplant, raw')));
      assert.deepEqual(await search('aardvarkishh'), [], 'the word is in a description only: no name word to correct to');
      assert.deepEqual((await list('aardvarkishh')).names, ['Quinoa bowl'], 'the JSON interface matches descriptions');
      assert.deepEqual(await search('cheddar*'), await search('cheddar'), '* is a separator here');
    });
  });
});
