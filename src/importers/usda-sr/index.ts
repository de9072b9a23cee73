import { registerFormat } from '../formats.js';
import { readUsdaSr } from './reader.js';

registerFormat('usda-sr', readUsdaSr);
