import { setFlagsFromString } from 'node:v8';

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 runs WebAssembly first as its
 * baseline compiler (Liftoff) made it, and recompiles a function that has run enough with its
 * optimising compiler (TurboFan): llhttp's parser, one function of ~34 KB (a state machine), after
 * ~150 responses, so in every run of the default battery. That one compile took ~0.2 s of CPU on
 * a background thread and ~42 MB of compiler memory (`--trace-wasm-compilation-times`): on two
 * cores, over a tenth of the battery's start-up, and the spike of its peak RSS. The baseline
 * parser is fast enough for what the harness asks of it: a walk of a million items took as long
 * without the recompile (docs/design.md, *Start-up*).
 *
 * Both flags are needed: without dynamic tiering alone, V8 would optimise every function at once;
 * without tier-up, it keeps the baseline code. V8's flags are the process's, so this covers every
 * thread; it must run before the first WebAssembly module is compiled (undici compiles llhttp at
 * its first request), as a V8 flag set at run time (see heap.ts).
 */
export function keepWebAssemblyInItsBaselineTier(): void {
  for (const flag of ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up']) setFlagsFromString(flag);
}
