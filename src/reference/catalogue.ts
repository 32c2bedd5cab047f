/** Faults and variants by name, for `serve --fault/--variant` and for tests. */
import type { Alteration } from './alterations.js';
import { FAULTS, type Fault } from './faults.js';
import { VARIANTS, type Variant } from './variants.js';

export { FAULTS, VARIANTS, type Fault, type Variant };

export function findFault(name: string): Fault | undefined {
  return FAULTS.find((f) => f.name === name);
}

export function findVariant(name: string): Variant | undefined {
  return VARIANTS.find((v) => v.name === name);
}

/** The alterations to apply, faults first; an unknown name is a RangeError naming the known ones. */
export function resolveAlterations(faults: readonly string[], variants: readonly string[]): Alteration[] {
  const resolve = <T extends Alteration>(
    names: readonly string[],
    kind: string,
    find: (n: string) => T | undefined,
    all: readonly T[],
  ): T[] =>
    names.map((name) => {
      const found = find(name);
      if (!found)
        throw new RangeError(`unknown ${kind} "${name}"; the ${kind}s are: ${all.map((a) => a.name).join(', ')}`);
      return found;
    });
  return [...resolve(faults, 'fault', findFault, FAULTS), ...resolve(variants, 'variant', findVariant, VARIANTS)];
}
