import { registerFormat } from '../formats.js';
import { readOff } from './reader.js';

registerFormat('off', readOff);
