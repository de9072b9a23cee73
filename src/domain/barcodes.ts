/**
 * Barcodes (GTIN: EAN-13, UPC-A, UPC-E, EAN-8, GTIN-14) as keys that find the same product
 * whichever form a scanner or a data source writes: every form is brought to its 14-digit GTIN
 * (left-padded with zeros), and UPC-E is expanded to its UPC-A first. Foods are indexed by the
 * keys of their `upcs` and looked up by the keys of the codes asked for.
 */

/** The GS1 check digit of the digits before it: weights 3, 1, 3, … from the right. */
export function checkDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (body.charCodeAt(i) - 48) * weight;
  return (10 - (sum % 10)) % 10;
}

function checks(code: string): boolean {
  return checkDigit(code.slice(0, -1)) === code.charCodeAt(code.length - 1) - 48;
}

/**
 * The UPC-A (11 digits, no check digit) that a UPC-E's number system (0 or 1) and six digits
 * stand for: the manufacturer and product numbers with their zeros put back, as the last
 * digit says.
 */
function expandUpcE(system: string, six: string): string {
  const d = six;
  const last = d.charCodeAt(5) - 48;
  if (last <= 2) return `${system}${d.slice(0, 2)}${d[5]}0000${d.slice(2, 5)}`;
  if (last === 3) return `${system}${d.slice(0, 3)}00000${d.slice(3, 5)}`;
  if (last === 4) return `${system}${d.slice(0, 4)}00000${d[4]}`;
  return `${system}${d.slice(0, 5)}0000${d[5]}`;
}

const gtin14 = (code: string): string => code.padStart(14, '0');

/** UPC-E with its number system and check digit (8 digits) as the GTIN-14 of its UPC-A, when the check digit holds. */
function upcE8(code: string): string | undefined {
  if (code[0] !== '0' && code[0] !== '1') return undefined;
  const upcA = expandUpcE(code[0], code.slice(1, 7));
  return `${checkDigit(upcA)}` === code[7] ? gtin14(upcA + code[7]) : undefined;
}

/** A barcode as written: 6 to 14 digits, nothing else (spaces around are trimmed). */
export const BARCODE_PATTERN = /^\d{6,14}$/;

/**
 * The keys of a barcode, or undefined when it is not one (not 6–14 digits). Usually one key;
 * an 8-digit code that is both a valid EAN-8 and a valid UPC-E has both.
 *
 * - 6 digits: a UPC-E without number system and check digit (number system 0);
 * - 7 digits: a UPC-E with its number system (0 or 1) and no check digit; starting with 2-9,
 *   one with its check digit and no number system (0);
 * - 8 digits: an EAN-8 and/or a UPC-E (number system, six digits, check digit), each when its
 *   check digit holds;
 * - 11 digits: a UPC-A that lost its leading zero when its check digit holds, else a UPC-A
 *   without its check digit;
 * - 12, 13, 14 digits (and anything else): UPC-A, EAN-13, GTIN-14, as written.
 *
 * Every key is 14 digits. A code whose check digit does not hold keeps its digits (padded), so
 * it finds exactly the same code and can never equal a valid GTIN's key.
 */
export function barcodeKeys(raw: string): string[] | undefined {
  const code = raw.trim();
  if (!BARCODE_PATTERN.test(code)) return undefined;
  switch (code.length) {
    case 6: {
      const upcA = expandUpcE('0', code);
      return [gtin14(upcA + checkDigit(upcA))];
    }
    case 7: {
      if (code[0] === '0' || code[0] === '1') {
        const upcA = expandUpcE(code[0], code.slice(1));
        return [gtin14(upcA + checkDigit(upcA))];
      }
      const withCheck = upcE8(`0${code}`);
      return [withCheck ?? gtin14(code)];
    }
    case 8: {
      const keys: string[] = [];
      if (checks(code)) keys.push(gtin14(code));
      const upcE = upcE8(code);
      if (upcE !== undefined) keys.push(upcE);
      return keys.length > 0 ? keys : [gtin14(code)];
    }
    case 11:
      // A UPC-A that lost its leading zero (spreadsheets drop it) when its check digit holds,
      // else one written without its check digit.
      return [checks(code) ? gtin14(code) : gtin14(code + checkDigit(code))];
    default:
      return [gtin14(code)];
  }
}

/** The keys of every barcode of a food (its `upcs` keys); codes that are not barcodes have none. */
export function foodBarcodeKeys(codes: Iterable<string>): string[] {
  const keys = new Set<string>();
  for (const code of codes) for (const key of barcodeKeys(code) ?? []) keys.add(key);
  return [...keys];
}
