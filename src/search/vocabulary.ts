import { readUint32, readWords, type SearchBlobs } from './blobs.js';
import { corrections, wordsByLength, type DeletionIndex, type WordsByLength } from './typos.js';
import { formKeys } from './word-forms.js';

/**
 * The distinct words of every food's matched fields, as the importer stored them (build.ts):
 * sorted, so the words a type-ahead prefix completes are one range; each with its group of forms
 * (word-forms.ts) and its number within the group; whether it is in some food's name (SOAP
 * foodSearch matches names only); the groups' sizes; and the deletion index for typos.
 */
export class Vocabulary {
  private readonly index = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  /** Words of each group: `groupWords[groupStart[g] … groupStart[g + 1])`. */
  private readonly groupStart: Uint32Array;
  private readonly groupWords: Uint32Array;
  /** For the corrections of long words (typos.ts), made on first use. */
  private byLength: WordsByLength | undefined;

  constructor(
    readonly words: readonly string[],
    /** Group of each word. */
    readonly groupOf: Uint32Array,
    /** Number of each word within its group (its bit in a posting's forms). */
    readonly formOf: Uint8Array,
    /** 1 when the word is in some food's name. */
    readonly inName: Uint8Array,
    keys: readonly string[],
    keyGroups: Uint32Array,
    /** Foods having each group, anywhere and in the name. */
    readonly groupFoods: Uint32Array,
    readonly groupNamed: Uint32Array,
    private readonly typoIndex: DeletionIndex,
  ) {
    words.forEach((w, i) => this.index.set(w, i));
    keys.forEach((k, i) => this.byKey.set(k, keyGroups[i]!));
    this.groupStart = new Uint32Array(groupFoods.length + 1);
    for (const g of groupOf) this.groupStart[g + 1]!++;
    for (let g = 0; g < groupFoods.length; g++) this.groupStart[g + 1]! += this.groupStart[g]!;
    const fill = this.groupStart.slice(0, groupFoods.length);
    this.groupWords = new Uint32Array(words.length);
    groupOf.forEach((g, w) => (this.groupWords[fill[g]!++] = w));
  }

  static load(blobs: SearchBlobs): Vocabulary | undefined {
    const need = (name: string): Uint8Array | undefined => blobs.get(`vocabulary/${name}`);
    const words = need('words');
    const groups = need('groups');
    const forms = need('forms');
    const inName = need('in-name');
    const keys = need('keys');
    const keyGroups = need('key-groups');
    const groupFoods = need('group-foods');
    const groupNamed = need('group-named');
    const hashes = need('typo-hashes');
    const typoWords = need('typo-words');
    if (!words || !groups || !forms || !inName || !keys || !keyGroups || !groupFoods || !groupNamed || !hashes || !typoWords) return undefined;
    return new Vocabulary(readWords(words), readUint32(groups), new Uint8Array(forms), new Uint8Array(inName), readWords(keys),
      readUint32(keyGroups), readUint32(groupFoods), readUint32(groupNamed), { hashes: readUint32(hashes), words: readUint32(typoWords) });
  }

  get groups(): number {
    return this.groupFoods.length;
  }

  wordNumber(word: string): number | undefined {
    return this.index.get(word);
  }

  /** The words of a group. */
  wordsOf(group: number): Uint32Array {
    return this.groupWords.subarray(this.groupStart[group], this.groupStart[group + 1]);
  }

  /** The groups a (whole) query word's forms are in: usually one, none when the catalogue lacks it. */
  groupsOf(word: string): number[] {
    const found = new Set<number>();
    const { key, surface } = formKeys(word);
    const direct = this.index.get(word);
    if (direct !== undefined) found.add(this.groupOf[direct]!);
    const byKey = this.byKey.get(key);
    if (byKey !== undefined) found.add(byKey);
    for (const s of surface) {
      const w = this.index.get(s);
      if (w !== undefined) found.add(this.groupOf[w]!);
    }
    return [...found].sort((a, b) => a - b);
  }

  /** The range of word numbers beginning with `prefix` (words are sorted by code unit). */
  prefixRange(prefix: string): [number, number] {
    const lower = (key: string): number => {
      let lo = 0;
      let hi = this.words.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.words[mid]! < key) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    // Every word beginning with the prefix sorts before the prefix followed by the last code unit.
    return [lower(prefix), lower(`${prefix}\uffff`)];
  }

  /** Corrections of a word (typos.ts), among the words `accept` allows. */
  corrections(word: string, accept?: (wordNumber: number) => boolean): { word: number; distance: number }[] {
    return corrections(word, this.typoIndex, this.words, accept, () => (this.byLength ??= wordsByLength(this.words)));
  }
}
