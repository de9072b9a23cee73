/** Slots kept for the next search up to this size; larger ones (many groups of many foods) are dropped. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;

const FIRST_CAPACITY = 1024;

/**
 * The working slots of a page grouped by brand (word-search.ts `groupedByBrand`): each brand's
 * group, and each group's best foods in fixed slots (`perGroup` a group, group g's from
 * g × perGroup). Kept from one search to the next while small: a common word's foods have
 * ~20,000 brands, and slots made for every search were 2-4 MB of ArrayBuffers each, which go
 * back only when V8 next collects: under grouped searches (the bench's scenario 6) a server's
 * ArrayBuffers floated ~45 MiB above what it held, and malloc keeps what they leave behind.
 *
 * Nothing is cleared but the brands' groups: a group's count is set when the group is made, and
 * its slots are read only once written.
 */
export class GroupSlots {
  private static kept: GroupSlots | undefined;

  /** By brand rid: its group, or -1. */
  groupOf = new Int32Array(0);
  /** By group: how many foods it has (kept or not). */
  count = new Uint32Array(FIRST_CAPACITY);
  rids = new Uint32Array(0);
  tiers = new Uint8Array(0);
  scores = new Float64Array(0);
  places = new Uint32Array(0);
  private perGroup = 0;

  private constructor() {}

  /** Slots for one search over brands `0 … brandLimit - 1`, none of them in a group yet. */
  static take(brandLimit: number, perGroup: number): GroupSlots {
    // Taken, not shared: should a search ever run inside another, it gets slots of its own.
    const slots = GroupSlots.kept ?? new GroupSlots();
    GroupSlots.kept = undefined;
    if (slots.groupOf.length < brandLimit) slots.groupOf = new Int32Array(brandLimit);
    slots.groupOf.fill(-1, 0, brandLimit);
    slots.perGroup = perGroup;
    if (slots.rids.length < slots.count.length * perGroup) slots.resize(slots.count.length, 0);
    return slots;
  }

  /** Room for `groups` groups at least, the first `groups - 1` kept as they are. */
  grow(groups: number): this {
    let capacity = this.count.length;
    while (capacity < groups) capacity *= 2;
    this.resize(capacity, groups - 1);
    return this;
  }

  /** Back for the next search, when small enough to keep. */
  give(): void {
    const bytes = this.groupOf.byteLength + this.count.byteLength + this.rids.byteLength + this.tiers.byteLength + this.scores.byteLength + this.places.byteLength;
    if (bytes <= MAX_KEPT_BYTES) GroupSlots.kept = this;
  }

  private resize(capacity: number, keptGroups: number): void {
    const slots = capacity * this.perGroup;
    const used = keptGroups * this.perGroup;
    this.count = copied(this.count, new Uint32Array(capacity), keptGroups);
    this.rids = copied(this.rids, new Uint32Array(slots), used);
    this.tiers = copied(this.tiers, new Uint8Array(slots), used);
    this.scores = copied(this.scores, new Float64Array(slots), used);
    this.places = copied(this.places, new Uint32Array(slots), used);
  }
}

function copied<T extends Uint32Array | Uint8Array | Float64Array>(from: T, to: T, length: number): T {
  if (length > 0) to.set(from.subarray(0, length));
  return to;
}
