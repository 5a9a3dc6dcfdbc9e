/**
 * A computation remembered by key, at most `max` results (the oldest forgotten first): passages and
 * their units come back question after question, and what is derived from their text alone need
 * not be derived again.
 */
export function boundedMemo<V>(max: number): (key: string, compute: () => V) => V {
  const cache = new Map<string, V>();
  return (key, compute) => {
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const value = compute();
    if (cache.size >= max) cache.delete(cache.keys().next().value ?? '');
    cache.set(key, value);
    return value;
  };
}
