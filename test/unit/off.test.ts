import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { labelServing, nutrientsOf, regionsOf, tagName, usefulTags } from '../../src/importers/off/mapping.js';

describe('Open Food Facts mapping rules', () => {
  test('energy: kJ as given, else energy_100g (kJ), else kcal × 4.184', () => {
    assert.equal(nutrientsOf({ 'energy-kj': 1000, energy: 999, 'energy-kcal': 1 }, 'us').energy, 1000);
    assert.equal(nutrientsOf({ energy: 999, 'energy-kcal': 1 }, 'us').energy, 999);
    assert.equal(nutrientsOf({ 'energy-kcal': 100 }, 'us').energy, 418.4);
  });

  test('grams to milligrams for sodium, cholesterol, minerals, vitamin C, caffeine, omega-3', () => {
    assert.deepEqual(nutrientsOf({ sodium: 0.4, cholesterol: 0.07, calcium: 0.12, 'vitamin-c': 0.001, caffeine: 0.032, 'omega-3-fat': 0.5 }, 'us'),
      { sodium: 400, cholesterol: 70, calcium: 120, vitaminC: 1, caffeine: 32, omega3Fat: 500 });
  });

  test('vitamin A and alcohol are left out; polyols are sugar alcohol; netCarbs derived', () => {
    assert.deepEqual(nutrientsOf({ 'vitamin-a': 0.0001, alcohol: 5, polyols: 2, carbohydrates: 10, fiber: 12 }, 'us'),
      { totalCarbs: 10, fiber: 12, sugarAlcohol: 2, netCarbs: 0 });
  });

  test('netCarbs: US labels\' carbohydrate includes fibre, Australian labels\' (available carbohydrate) does not', () => {
    assert.deepEqual(nutrientsOf({ carbohydrates: 30, fiber: 5 }, 'us'), { totalCarbs: 30, fiber: 5, netCarbs: 25 });
    assert.deepEqual(nutrientsOf({ carbohydrates: 30, fiber: 5 }, 'au'), { totalCarbs: 30, fiber: 5, netCarbs: 30 });
    assert.deepEqual(nutrientsOf({ carbohydrates: 30 }, 'au'), { totalCarbs: 30, netCarbs: 30 });
  });

  test('countries to regions; a product in both becomes two', () => {
    assert.deepEqual(regionsOf(['en:australia', 'en:new-zealand']), ['au']);
    assert.deepEqual(regionsOf(['en:united-states', 'en:australia']), ['us', 'au']);
    assert.deepEqual(regionsOf(['en:france']), []);
  });

  test('taxonomy tags read as names; placeholders are dropped', () => {
    assert.equal(tagName('en:sweet-spreads'), 'Sweet spreads');
    assert.equal(tagName('fr:pates-a-tartiner'), 'Pates a tartiner');
    assert.deepEqual(usefulTags(['en:null', ' en:snacks ', '', 'en:unknown']), ['en:snacks']);
  });

  test('the label serving scales by its grams or millilitres', () => {
    assert.deepEqual(labelServing('2 tbsp. (32 g)', 32), { name: '2 tbsp. (32 g)', scale: 0.32, type: 'mass' });
    assert.deepEqual(labelServing('1 can (355 ml)', 355), { name: '1 can (355 ml)', scale: 3.55, type: 'volume' });
    assert.equal(labelServing('', 30), undefined);
    assert.equal(labelServing('1 bar', undefined), undefined);
  });
});
