import { compileFields, project, type FieldsContext, type Projection } from '../query/fields.js';
import { ApiError } from '../errors.js';

export type Projector = <T extends object>(record: T) => object;

const identity: Projector = (record) => record;

/** The `fields` selector as a function over records; a bad selector is the contract's 400. */
export function projector(raw: string | undefined, context: FieldsContext): Projector {
  const result = compileFields(raw, context);
  if (!result.ok) throw new ApiError(400, result.error.message, result.error.details);
  const projection: Projection | null = result.projection;
  if (projection === null) return identity;
  return (record) => project(record, projection);
}

/** Whether a valid selector keeps any of `members` of its records (all of them when it selects everything). */
export function selectsAny(raw: string | undefined, context: FieldsContext, members: ReadonlySet<string>): boolean {
  const result = compileFields(raw, context);
  if (!result.ok || result.projection === null || result.projection === true) return true;
  for (const member of result.projection.keys()) if (members.has(member)) return true;
  return false;
}
