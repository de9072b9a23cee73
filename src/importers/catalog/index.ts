import { registerFormat, registerLineRecords } from '../formats.js';
import { catalogLines, readCatalog } from './reader.js';

registerFormat('catalog', readCatalog);
registerLineRecords('catalog', catalogLines);
