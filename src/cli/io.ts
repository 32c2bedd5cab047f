/** Where a command writes: the console streams (made safe by src/core/console-safety.ts), and whether it paints in colour. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  color: boolean;
}
