import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { barcodeKeys, checkDigit, foodBarcodeKeys } from '../../src/domain/barcodes.js';

describe('barcode keys', () => {
  test('check digits are GS1 mod 10 (EAN-13 4006381333931, UPC-A 036000291452, EAN-8 96385074)', () => {
    assert.equal(checkDigit('400638133393'), 1);
    assert.equal(checkDigit('03600029145'), 2);
    assert.equal(checkDigit('9638507'), 4);
  });

  test('UPC-A, its EAN-13 and GTIN-14 forms and the form without leading zero are one key', () => {
    const key = ['00036000291452'];
    for (const code of ['036000291452', '0036000291452', '00036000291452', '36000291452', ' 036000291452 ']) {
      assert.deepEqual(barcodeKeys(code), key, code);
    }
  });

  test('an 11-digit UPC-A without its check digit is completed; one that lost its leading zero keeps its digits', () => {
    assert.deepEqual(barcodeKeys('03600029145'), ['00036000291452']);
    assert.deepEqual(barcodeKeys('36000291452'), ['00036000291452']);
  });

  test('UPC-E is expanded to its UPC-A whatever its last digit (0-2, 3, 4, 5-9)', () => {
    // 04252614 ↔ 042100005264; 01234565 ↔ 012345000065; 01234531 ↔ 012300000451; 01234543 ↔ 012340000053.
    assert.deepEqual(barcodeKeys('04252614'), barcodeKeys('042100005264'));
    assert.deepEqual(barcodeKeys('425261'), barcodeKeys('042100005264'), 'six digits: number system 0, check digit computed');
    assert.deepEqual(barcodeKeys('0425261'), barcodeKeys('042100005264'), 'seven digits: number system and six');
    // 01234565 is also a valid EAN-8: such a code has both keys.
    assert.deepEqual(barcodeKeys('01234565'), ['00000001234565', ...barcodeKeys('012345000065')!]);
    assert.deepEqual(barcodeKeys('01234531'), barcodeKeys('012300000451'));
    assert.deepEqual(barcodeKeys('01234543'), barcodeKeys('012340000053'));
  });

  test('an EAN-8 keeps its own key, distinct from any UPC-A', () => {
    assert.deepEqual(barcodeKeys('96385074'), ['00000096385074']);
  });

  test('a code with a wrong check digit finds only itself, never a valid GTIN', () => {
    assert.deepEqual(barcodeKeys('036000291453'), ['00036000291453']);
    assert.notDeepEqual(barcodeKeys('036000291453'), barcodeKeys('036000291452'));
  });

  test('anything that is not 6 to 14 digits is not a barcode', () => {
    for (const code of ['', '12345', '123456789012345', '03600029145x', '0360-0029-1452', '٠٣٦٠٠٠٢٩١٤٥٢']) assert.equal(barcodeKeys(code), undefined, code);
  });

  test("a food's codes give each key once, and codes that are not barcodes none", () => {
    assert.deepEqual(foodBarcodeKeys(['036000291452', '0036000291452', 'internal-7']), ['00036000291452']);
  });
});
