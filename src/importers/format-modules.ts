import { formatReader, lineRecordsOf, type LineRecords, type SourceReader } from './formats.js';

/**
 * The module that registers each format. The import worker loads only the one it reads: all of
 * them (the xlsx reader above all) took a quarter of a second to load, a thread's every start.
 */
const FORMAT_MODULES: Readonly<Record<string, string>> = {
  catalog: './catalog/index.js',
  'usda-sr': './usda-sr/index.js',
  off: './off/index.js',
  fdc: './fdc/index.js',
  ausnut: './fsanz/index.js',
  afcd: './fsanz/index.js',
};

/** Registers every format. */
export async function loadAllFormats(): Promise<void> {
  await Promise.all([...new Set(Object.values(FORMAT_MODULES))].map((path) => import(path)));
}

/** Registers one format and returns its reader (undefined for an unknown name). */
export async function loadFormat(name: string): Promise<SourceReader | undefined> {
  const path = Object.hasOwn(FORMAT_MODULES, name) ? FORMAT_MODULES[name] : undefined;
  if (path !== undefined) await import(path);
  return formatReader(name);
}

/** Registers one format and returns how it reads a line on its own, if it does. */
export async function loadLineRecords(name: string): Promise<LineRecords | undefined> {
  return (await loadFormat(name)) === undefined ? undefined : lineRecordsOf(name);
}
