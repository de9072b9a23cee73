// Every source format registers itself; importing this module makes them all available.
import { loadAllFormats } from './format-modules.js';

await loadAllFormats();
