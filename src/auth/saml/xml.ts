import { DOMParser } from '@xmldom/xmldom';

export const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

/** DOCTYPE (and with it entity expansion / XXE) is never legitimate in SAML; refuse before parsing. */
export function hasDoctype(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

/** Parses XML strictly: any parser error or warning is a failure. */
export function parseXml(xml: string): Document | null {
  let failed = false;
  const fail = () => {
    failed = true;
  };
  const parser = new DOMParser({ errorHandler: { warning: fail, error: fail, fatalError: fail } });
  try {
    const doc = parser.parseFromString(xml, 'text/xml');
    if (failed || !doc.documentElement || doc.doctype) return null;
    return doc;
  } catch {
    return null;
  }
}

export function elementChildren(el: Element, ns: string, localName: string): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1) {
      const e = n as Element;
      if (e.namespaceURI === ns && e.localName === localName) out.push(e);
    }
  }
  return out;
}

export function firstChild(el: Element | undefined, ns: string, localName: string): Element | undefined {
  return el ? elementChildren(el, ns, localName)[0] : undefined;
}

/** Every element below (and including) `root` with this local name, in any namespace. */
export function allByLocalName(root: Node, localName: string): Element[] {
  const out: Element[] = [];
  const walk = (n: Node) => {
    if (n.nodeType === 1 && (n as Element).localName === localName) out.push(n as Element);
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
  };
  walk(root);
  return out;
}

export function hasComment(root: Node): boolean {
  if (root.nodeType === 8) return true;
  for (let c = root.firstChild; c; c = c.nextSibling) if (hasComment(c)) return true;
  return false;
}

/** Text of an element that must hold only text (no child elements, no comments, no processing instructions). */
export function pureText(el: Element | undefined): string | null {
  if (!el) return null;
  let s = '';
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3 || c.nodeType === 4) s += c.nodeValue ?? '';
    else return null;
  }
  return s.trim();
}
