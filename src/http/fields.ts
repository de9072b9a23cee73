import { compileFields, project, type FieldsContext, type Projection } from '../query/fields.js';
import { ApiError } from '../errors.js';

export type Projector = <T extends object>(record: T) => object;

const identity: Projector = (record) => record;

/** A compiled `fields` selector: the function over records, and which members it keeps. */
export interface Selection {
  readonly select: Projector;
  /** Whether it keeps any of `members` of its records (all of them when it selects everything). */
  keepsAny(members: ReadonlySet<string>): boolean;
}

/** The `fields` selector compiled; a bad selector is the contract's 400. */
export function selection(raw: string | undefined, context: FieldsContext): Selection {
  const result = compileFields(raw, context);
  if (!result.ok) throw new ApiError(400, result.error.message, result.error.details);
  const projection: Projection | null = result.projection;
  if (projection === null || projection === true) {
    return { select: projection === null ? identity : (record) => project(record, projection), keepsAny: () => true };
  }
  return {
    select: (record) => project(record, projection),
    keepsAny: (members) => [...projection.keys()].some((member) => members.has(member)),
  };
}

/** The `fields` selector as a function over records; a bad selector is the contract's 400. */
export function projector(raw: string | undefined, context: FieldsContext): Projector {
  return selection(raw, context).select;
}
