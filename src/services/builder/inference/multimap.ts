// Lists kept by key, appended in place: copying a key's list on every append cost the square of its
// length (a page's 20,000 list items under one parent took seconds).

/** Appends `value` to the list of `key`, in place. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
