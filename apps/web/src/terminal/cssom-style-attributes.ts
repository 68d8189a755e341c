/**
 * xterm.js 6's DOM renderer colours a cell in 24-bit colour (`ESC[38;2;r;g;bm`, and a colour it
 * adjusts for contrast) with `span.setAttribute('style', 'color:#ff6400;')`: an inline style
 * attribute, which the dashboard's Content-Security-Policy (`style-src 'self'`) refuses, so the
 * cell would show in the default colour and the browser would log a violation. Setting the same
 * declarations through CSSOM (`span.style.cssText`) is not governed by CSP and means the same.
 *
 * While a terminal lives, a `<span>` the document creates (xterm creates each cell's span later
 * than `Terminal.open()`, so the patch cannot be limited to that call as constructed-styles.ts
 * is) gets a `setAttribute` that sends `style` through CSSOM; every other attribute, and every
 * other element, is left alone. Answers the function that removes the patch.
 */
export function styleAttributesThroughCssom(doc: Document): () => void {
  const create = doc.createElement;
  const ownBefore = Object.prototype.hasOwnProperty.call(doc, 'createElement');
  doc.createElement = function createElement(this: Document, tag: string, options?: ElementCreationOptions): HTMLElement {
    const element = create.call(this, tag, options);
    if (tag.toLowerCase() === 'span') {
      const setAttribute = element.setAttribute;
      element.setAttribute = function setStyleThroughCssom(this: HTMLElement, name: string, value: string) {
        if (name.toLowerCase() === 'style') this.style.cssText = value;
        else setAttribute.call(this, name, value);
      };
    }
    return element;
  } as typeof doc.createElement;
  return () => {
    if (ownBefore) doc.createElement = create;
    else delete (doc as { createElement?: unknown }).createElement;
  };
}
