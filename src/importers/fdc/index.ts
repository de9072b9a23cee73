import { registerFormat } from '../formats.js';
import { readFdc } from './reader.js';

registerFormat('fdc', readFdc);
