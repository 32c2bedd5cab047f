import { z } from 'zod';

/**
 * zod, as every module of the harness imports it: without its JIT. zod decides when it creates
 * an object schema whether to compile it to a function, and the harness's schemas are created as
 * its modules load; each parses a value or two per run, so the compilation costs more than it
 * saves (the embedded run's report: checked in 8–12 ms with it, 3 ms without).
 */
z.config({ jitless: true });

export { z };
