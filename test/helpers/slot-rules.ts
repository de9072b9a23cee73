import { better, type Choice, type Slot } from '../../src/search/slots.js';

/** How a food matches a choice, a term, an alternative or a slot (slots.ts). */
export interface SlotEntry {
  readonly named: number;
  readonly value: number;
  readonly cover: number;
}

/**
 * A food's entry in a slot read straight off the rules in slots.ts, given its entry for each
 * choice (undefined: the food lacks it): a term's best choice, an alternative's terms summed
 * and averaged once per query word it stands for plus its offset (in the name when every term
 * is), the slot's best alternative. The tests' oracles use it; the engine never does.
 */
export function slotEntryByRules(slot: Slot, choiceEntry: (choice: Choice) => SlotEntry | undefined): SlotEntry | undefined {
  const best = (a: SlotEntry | undefined, b: SlotEntry | undefined): SlotEntry | undefined =>
    a === undefined ? b : b === undefined ? a : better(b.named, b.value, b.cover, a.named, a.value, a.cover) ? b : a;
  let slotBest: SlotEntry | undefined;
  for (const alternative of slot.alternatives) {
    let named = 1;
    let sum = 0;
    let cover = 0;
    let all = true;
    for (const term of alternative.terms) {
      let termBest: SlotEntry | undefined;
      for (const choice of term.choices) termBest = best(termBest, choiceEntry(choice));
      if (termBest === undefined) {
        all = false;
        break;
      }
      named &= termBest.named;
      sum += termBest.value;
      cover += termBest.cover;
    }
    if (all) slotBest = best(slotBest, { named, value: Math.floor((sum * alternative.words) / alternative.terms.length) + alternative.offset, cover });
  }
  return slotBest;
}
