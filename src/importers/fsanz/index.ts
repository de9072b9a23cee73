import { registerFormat } from '../formats.js';
import { readAfcd } from './afcd-reader.js';
import { readAusnut } from './ausnut-reader.js';

registerFormat('ausnut', readAusnut);
registerFormat('afcd', readAfcd);
