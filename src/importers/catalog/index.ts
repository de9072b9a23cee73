import { registerFormat } from '../formats.js';
import { readCatalog } from './reader.js';

registerFormat('catalog', readCatalog);
