import { registerFormat } from '../formats.js';
import { readAusnut } from './ausnut-reader.js';

registerFormat('ausnut', readAusnut);
