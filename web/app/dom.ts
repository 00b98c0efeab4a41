// Tiny DOM helpers for the verification page (issue 13). Receipt content is only ever inserted as
// text (`textContent` / text nodes), never as HTML: nothing a receipt or a server says can become
// markup or script. Attributes are set one by one with setAttribute.
/// <reference lib="dom" />

/** A child: a node, or text (inserted as a text node), or nothing. */
export type Child = Node | string | number | bigint | null | undefined | false;

/** Creates an element with attributes and children; strings become text nodes. */
export function el(
  tag: string,
  attrs: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) e.setAttribute(k, v);
  append(e, ...children);
  return e;
}

/** Appends children (text as text nodes). */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function replace(parent: HTMLElement, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** The element with this id (throws when the page lacks it: a build error, not user input). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`page element #${id} is missing`);
  return e as T;
}

/** Offers bytes or text as a file download (the security warning's evidence). */
export function download(name: string, body: string | Uint8Array, type = "text/plain"): void {
  const blob = new Blob([typeof body === "string" ? body : body.slice()], { type });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
