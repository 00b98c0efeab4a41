// The path of a request URL as the client sent it, before any decoding: where routes must not
// let `%30%30%30` alias `000` (tile paths) or must see a prefix exactly (shards). Pure.

/** Index in `url` (absolute, `scheme://authority/...`) where its path starts; -1 when none. */
export function pathStart(url: string): number {
  return url.indexOf("/", url.indexOf("//") + 2);
}

/** The raw path of `url` (absolute), without its query. */
export function rawPath(url: string): string {
  const at = pathStart(url);
  if (at < 0) return "/";
  const q = url.indexOf("?", at);
  return url.slice(at, q < 0 ? undefined : q);
}
