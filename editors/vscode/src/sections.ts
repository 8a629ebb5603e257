// What a chatmd section appended by the server looks like in a document change, and where a
// cursor it carried belongs: pure, so the unit tests run without VS Code (see cursor.ts).

/** One change as VS Code reports it: `rangeLength` characters at `offset` became `text`. */
export interface Insert {
  offset: number;
  rangeLength: number;
  text: string;
}

/**
 * Whether `change` is chatmd appending a section (or the reply stub) at the end of a document
 * that is `lengthAfter` characters long once it is in: a pure insert at the very end that starts
 * a new line and holds a `## @handle` heading.
 */
export function isAppendedSection(change: Insert, lengthAfter: number): boolean {
  return (
    change.rangeLength === 0 &&
    change.offset + change.text.length === lengthAfter &&
    /^(\r?\n)+## @[A-Za-z0-9]/.test(change.text)
  );
}

/**
 * Where a cursor last seen collapsed at `seen` belongs after the appended section `change`: back
 * at the insertion point when the section was inserted exactly at it (VS Code moved it past the
 * section), else undefined (leave it). `seen` is the offset before the change, or already the
 * carried one just past the section (the selection event may come first): nobody but the
 * section's insert puts a cursor there.
 */
export function cursorBeforeSection(seen: number, change: Insert): number | undefined {
  const carried = seen === change.offset || seen === change.offset + change.text.length;
  return carried ? change.offset : undefined;
}
