/**
 * `record[key]` when `key` is one of the record's own members, else undefined: a key read from
 * input (a request, a command line, a data file) never reaches Object.prototype's members
 * (`constructor`, `__proto__`, `toString`, …).
 */
export function ownValue<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
