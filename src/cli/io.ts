/** Where a command writes: the console streams (made safe by src/core/console-safety.ts), and whether it paints in colour. */
import type { WorkflowCommand } from '../core/console-safety.js';

export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  color: boolean;
  /** A GitHub Actions workflow command the harness writes (src/core/console-safety.ts); set by safeOutput. */
  command?: (c: WorkflowCommand) => void;
}
