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
