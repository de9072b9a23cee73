// Every source format registers itself; importing this module makes them all available.
import './catalog/index.js';
import './usda-sr/index.js';
import './off/index.js';
import './fdc/index.js';
import './fsanz/index.js';
