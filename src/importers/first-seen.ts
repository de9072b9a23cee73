/**
 * Streaming readers emit each brand, category and tag just before the first food that needs it:
 * this remembers which ids went out. It grows with distinct records, never with foods.
 */
export class FirstSeen {
  private readonly seen = new Set<string>();

  /** True the first time an id is asked about, false after. */
  first(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    return true;
  }
}
