/**
 * xterm.js 6 writes three stylesheets of its own at run time (the DOM renderer's theme and row
 * rules, the scrollbar's colours) as `<style>` elements with text, which the dashboard's
 * Content-Security-Policy (`style-src 'self'`, nothing inline) blocks: the terminal would lose its
 * colours, cursor and font, and the browser would log a violation per element. Constructed
 * stylesheets (`new CSSStyleSheet()` adopted by the document) are CSSOM, which CSP does not
 * govern, so while `run` creates the terminal's elements, a `<style>` asked of the document is
 * an inert element whose text goes into a constructed sheet instead. The elements xterm creates
 * later (cells, rows) are untouched: the patch lives only for the synchronous `run`.
 *
 * Answers a dispose that drops the sheets (call it when the terminal is disposed).
 */
export function withConstructedStyles(doc: Document, run: () => void): () => void {
  const sheets: CSSStyleSheet[] = [];
  const create = doc.createElement;
  const ownBefore = Object.prototype.hasOwnProperty.call(doc, 'createElement');
  doc.createElement = function createElement(this: Document, tag: string, options?: ElementCreationOptions): HTMLElement {
    if (tag.toLowerCase() !== 'style') return create.call(this, tag, options);
    const sheet = new CSSStyleSheet();
    sheets.push(sheet);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
    // Never a <style>: a browser checks even an empty one against CSP when it is inserted.
    const holder = create.call(this, 'template', options);
    holder.dataset.xtermStyle = '';
    let text = '';
    Object.defineProperty(holder, 'textContent', {
      get: () => text,
      set: (value: string | null) => {
        text = value ?? '';
        sheet.replaceSync(text);
      },
    });
    return holder;
  } as typeof doc.createElement;
  try {
    run();
  } finally {
    if (ownBefore) doc.createElement = create;
    else delete (doc as { createElement?: unknown }).createElement;
  }
  return () => {
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((sheet) => !sheets.includes(sheet));
  };
}
