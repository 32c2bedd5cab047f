/**
 * "Did you mean …?": the one way the harness guesses what a mistyped name was meant to be, for
 * every place a user types a name (a flag or command on the command line, a key of a config or
 * baseline file, a check id), so that the same typo gets the same help wherever it is made.
 */

/**
 * The known name nearest to a mistyped one (`--concurency`: `--concurrency`; `rnu`: `run`;
 * `clientID`: `clientId`), if it is near enough to be what was meant: at most two edits, and at
 * most a third of its letters (the dashes aside). Case does not count as an edit: a name that
 * differs from a known one only in case (`clientID`, `page-walk`) is that name, however short.
 */
export function closest(typed: string, known: readonly string[]): string | undefined {
  const lower = typed.toLowerCase();
  const sameLetters = known.find((candidate) => candidate.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(typed.replace(/^-+/, '').length / 3));
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase());
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean X?)` for a mistyped name with a near known one, else nothing: to append to a message. */
export function didYouMean(
  typed: string,
  known: readonly string[],
  show: (name: string) => string = (name) => name,
): string {
  const near = closest(typed, known);
  return near === undefined ? '' : ` (did you mean ${show(near)}?)`;
}

/**
 * Edit distance with the typist's four mistakes: a letter inserted, left out, replaced, or two
 * swapped (optimal string alignment: `--sutie` is one edit from `--suite`).
 */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const up = rows[i - 1] as number[];
      let d = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] ?? 0) + 1);
      row[j] = d;
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] ?? 0;
}
