/**
 * Document paths of one update expression name places in the item as it was before the update, as
 * DynamoDB has it: `REMOVE a[1] SET a[3] = :v` sets the original fourth element, and `REMOVE a[1],
 * a[3]` removes the original second and fourth. dynalite applies the sections in the order written,
 * so a removal from a list shifted every later position of that list.
 *
 * `withOriginalListPositions(updateItem)` reorders the parsed sections before dynalite applies them:
 * every REMOVE of a list element last, the deepest and highest positions first. A removal then
 * shifts only elements no other section of the expression names any more (paths of one expression
 * never overlap: dynalite refuses that as Amazon does), and SET/ADD/DELETE see the original
 * positions. REMOVEs of map members and whole attributes shift nothing and keep their order.
 */
import type { Action } from 'dynalite/db/index.js';

type Path = (string | number)[];
interface Section {
  type: string;
  path: Path;
}

export function withOriginalListPositions(updateItem: Action): Action {
  return (store, data, cb) => {
    const updates = (data as { _updates?: { sections: Section[] } })._updates;
    if (updates) updates.sections = inOriginalPositionsOrder(updates.sections);
    return updateItem(store, data, cb);
  };
}

const removesListElement = (section: Section) => section.type === 'remove' && typeof section.path.at(-1) === 'number';

/** The sections with REMOVEs of list elements moved last, in descending path order. */
export function inOriginalPositionsOrder(sections: Section[]): Section[] {
  const removals = sections.filter(removesListElement);
  if (removals.length === 0) return sections;
  return [...sections.filter((section) => !removesListElement(section)), ...removals.sort((a, b) => comparePaths(b.path, a.path))];
}

/** Paths in document order: a number after a number by position; a longer path after its prefix. */
function comparePaths(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i] as string | number, b[i] as string | number];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}
