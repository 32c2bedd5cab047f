// Moved down to the carrier floor, where the judges shared with `traffic` use it (src/carrier/token-judges.ts).
export { describeValue } from '../carrier/describe.js';
