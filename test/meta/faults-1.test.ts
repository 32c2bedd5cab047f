// The first half of the fault catalogue (the files run in parallel); see ./faults.ts.
import { FAULTS } from '../../src/reference/catalogue.js';
import { describeFaults } from './faults.js';

describeFaults('faults, first half', FAULTS.slice(0, Math.ceil(FAULTS.length / 2)));
