const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/**
 * One case-insensitive pattern for a list of names, longest first so "Harbor Clinic" wins over
 * "Harbor", matched only as whole words (no letter or digit on either side); null for no names.
 */
export function namesPattern(names: readonly string[]): RegExp | null {
  const phrases = [...new Set(names.map((n) => n.trim()).filter((n) => n.length > 1))].sort((a, b) => b.length - a.length);
  return phrases.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}])(?:${phrases.map(escape).join('|')})(?![\\p{L}\\p{N}])`, 'giu');
}
