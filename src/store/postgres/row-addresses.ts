/**
 * Where each food row of a catalogue version lies in its `foods` table: its ctid (block and
 * line pointer), read once per version in the pass that numbers the classifications. A page's
 * rows are then fetched by a TID scan, which reads just their heap pages, instead of descending
 * the rid index once per row: at 1,000,000 foods that was a third of PostgreSQL's CPU per page.
 *
 * A version's rows are never updated, but an administrator's VACUUM FULL or CLUSTER rewrites a
 * table and moves them: a read by address therefore checks the rid of every row it gets, and the
 * store forgets the addresses and reads by rid as soon as one is missing.
 */

/** No address (no food has this rid, or it was not read). */
const NONE = 0xffffffff;

export class RowAddresses {
  private readonly blocks: Uint32Array;
  private readonly lines: Uint16Array;

  /** For rids below `ridLimit`. */
  constructor(ridLimit: number) {
    this.blocks = new Uint32Array(ridLimit).fill(NONE);
    this.lines = new Uint16Array(ridLimit);
  }

  /** Records a row's ctid as PostgreSQL writes it, `(block,line)`; false for a rid or text out of range. */
  set(rid: number, ctid: string): boolean {
    const comma = ctid.indexOf(',');
    const block = Number(ctid.slice(1, comma));
    const line = Number(ctid.slice(comma + 1, -1));
    if (!(rid >= 0 && rid < this.blocks.length) || !(block >= 0 && block < NONE) || !(line >= 1 && line <= 0xffff)) return false;
    this.blocks[rid] = block;
    this.lines[rid] = line;
    return true;
  }

  /** The rows' addresses as a `tid[]` literal, or undefined when one of them is not known. */
  literal(rids: readonly number[]): string | undefined {
    const parts: string[] = [];
    for (const rid of rids) {
      const block = this.blocks[rid];
      if (block === undefined || block === NONE) return undefined;
      parts.push(`"(${block},${this.lines[rid]})"`);
    }
    return `{${parts.join(',')}}`;
  }
}
