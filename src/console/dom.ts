/**
 * The only way the console builds markup: elements from code, text as text nodes. Data never passes through an
 * HTML parser (no innerHTML anywhere; the page's Trusted Types policy makes the browser refuse it too), so a
 * memory reading `<img src=x onerror=...>` shows as those characters.
 */

export type Child = Node | string | number | null | undefined | false;

type Handler = (event: Event) => void;

export interface Props {
  /** Attributes (set with setAttribute; names are constants of the code, values may be data). */
  attrs?: Record<string, string | undefined>;
  /** Boolean attributes, present when true. */
  flags?: Record<string, boolean>;
  class?: string;
  on?: Record<string, Handler>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {})) if (value !== undefined) element.setAttribute(name, value);
  for (const [name, on] of Object.entries(props.flags ?? {})) element.toggleAttribute(name, on);
  for (const [type, handler] of Object.entries(props.on ?? {})) element.addEventListener(type, handler);
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces the children of `parent`, skipping the absent ones. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** The element with this id, which the page's markup guarantees. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}.`);
  return element as T;
}
