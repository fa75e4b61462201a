/// <reference lib="dom" />
/**
 * The separator between GraphiQL and the Table view, a WAI-ARIA window splitter whose primary pane
 * is the Table view (`aria-valuenow` is its width in pixels). Dragged with a pointer (captured, so a
 * fast drag over GraphiQL's editor neither selects text nor loses the separator), or focused and
 * moved with ← and → (Shift for larger steps), Home (the Table view at its narrowest) and End (at
 * its widest); a double click gives back the default width.
 *
 * The width the user chose is kept in localStorage and clamped to the window as it is now: the
 * Table view never narrower than TABLE_MIN and GraphiQL never narrower than GRAPHIQL_MIN, the two
 * widths at which each stays readable (the Table view's key and entity columns, GraphiQL's editor
 * and result side by side). A window too narrow for both keeps the Table view at TABLE_MIN.
 */
import { createElement as h, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';

export const TABLE_MIN = 420;
export const GRAPHIQL_MIN = 600;
/** The Table view's share of the explorer's width until the user moves the separator. */
const DEFAULT_SHARE = 0.5;
/** The separator's own width, which the two panes share the rest of the explorer's width around. */
const SEPARATOR_PX = 7;
const STEP = 16;
const BIG_STEP = 96;
const WIDTH_KEY = 'explorer:table-width';

/** `wanted` within what the window allows now (see the module's comment). */
export function clampWidth(wanted: number, total: number): number {
  const widest = Math.max(TABLE_MIN, total - SEPARATOR_PX - GRAPHIQL_MIN);
  return Math.round(Math.min(widest, Math.max(TABLE_MIN, wanted)));
}

function stored(): number | null {
  const value = Number(localStorage.getItem(WIDTH_KEY));
  return Number.isFinite(value) && value > 0 ? value : null;
}

export interface TableWidth {
  /** The Table view's width now, in pixels. */
  width: number;
  widest: number;
  /** Asks for a width (clamped) and keeps it; `null` gives back the default. */
  resize(wanted: number | null): void;
}

/** The Table view's width inside `main`, which the hook observes as the window resizes. */
export function useTableWidth(main: RefObject<HTMLElement | null>): TableWidth {
  const [total, setTotal] = useState(0);
  const [wanted, setWanted] = useState<number | null>(stored);
  useEffect(() => {
    const element = main.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setTotal(element.clientWidth));
    observer.observe(element);
    setTotal(element.clientWidth);
    return () => observer.disconnect();
  }, [main]);
  return {
    width: clampWidth(wanted ?? (total - SEPARATOR_PX) * DEFAULT_SHARE, total),
    widest: clampWidth(Infinity, total),
    resize(next) {
      const kept = next === null ? null : clampWidth(next, total);
      setWanted(kept);
      if (kept === null) localStorage.removeItem(WIDTH_KEY);
      else localStorage.setItem(WIDTH_KEY, String(kept));
    },
  };
}

/** The separator itself; `controls` is the id of the Table view's pane. */
export function Separator({ table, controls }: { table: TableWidth; controls: string }) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  const { width, widest, resize } = table;
  return h('div', {
    role: 'separator',
    tabIndex: 0,
    className: 'explorer-separator',
    style: { flexBasis: SEPARATOR_PX },
    'aria-orientation': 'vertical',
    'aria-label': 'Table view width',
    'aria-controls': controls,
    'aria-valuenow': width,
    'aria-valuemin': TABLE_MIN,
    'aria-valuemax': widest,
    title: 'Drag, or focus and press ← →, to resize the Table view; double-click for the default width',
    onPointerDown(event: PointerEvent<HTMLDivElement>) {
      if (event.button !== 0) return;
      event.preventDefault();
      event.currentTarget.setPointerCapture(event.pointerId);
      event.currentTarget.focus();
      drag.current = { x: event.clientX, width };
    },
    onPointerMove(event: PointerEvent<HTMLDivElement>) {
      // The Table view is on the right: moving the separator left widens it.
      if (drag.current) resize(drag.current.width + drag.current.x - event.clientX);
    },
    onPointerUp(event: PointerEvent<HTMLDivElement>) {
      // Where the pointer is let go is where the separator lands, whichever moves were coalesced.
      if (drag.current) resize(drag.current.width + drag.current.x - event.clientX);
      drag.current = null;
    },
    onPointerCancel() {
      drag.current = null;
    },
    onDoubleClick() {
      resize(null);
    },
    onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
      const step = event.shiftKey ? BIG_STEP : STEP;
      const moves: Record<string, number> = { ArrowLeft: width + step, ArrowRight: width - step, Home: TABLE_MIN, End: widest };
      const next = moves[event.key];
      if (next === undefined) return;
      event.preventDefault();
      resize(next);
    },
  });
}
