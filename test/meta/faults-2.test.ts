// The second half of the fault catalogue (the files run in parallel); see ./faults.ts.
import { FAULTS } from '../../src/reference/catalogue.js';
import { describeFaults } from './faults.js';

describeFaults('faults, second half', FAULTS.slice(Math.ceil(FAULTS.length / 2)));
