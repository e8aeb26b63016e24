/**
 * The valid key a misspelt one most likely meant: one that differs only in
 * case first, else the one fewest edits away (Levenshtein, case-insensitive),
 * if it is close enough to be a plausible typo. Undefined when nothing is:
 * a suggestion far from what was written misleads more than none.
 */
export function closestKey(written: string, valid: Iterable<string>): string | undefined {
  const lower = written.toLowerCase();
  const candidates = [...valid].sort();
  const sameLetters = candidates.find((key) => key.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  let best: { key: string; distance: number } | undefined;
  for (const key of candidates) {
    const distance = editDistance(lower, key.toLowerCase());
    if (best === undefined || distance < best.distance) best = { key, distance };
  }
  // A third of the longer word's letters: "endpointAcess" → endpointAccess,
  // "colour" → nothing among clusterName, stackName and the rest.
  if (best === undefined || best.distance > Math.max(1, Math.floor(Math.max(lower.length, best.key.length) / 3))) return undefined;
  return best.key;
}

/** Insertions, deletions and substitutions that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
