// Drag-and-drop inputs for ordering, matching and categorize questions. Mouse: HTML5 drag and drop.
// Keyboard: focus an item, Space picks it up, arrows move it (number keys choose a bin), Space drops,
// Escape cancels. Every move is announced through an aria-live region.
import { useEffect, useRef, useState, type KeyboardEvent } from "react";

function move<T>(list: T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}

export function LiveRegion({ message }: { message: string }) {
  return <div className="visually-hidden" aria-live="assertive" role="status" data-testid="dnd-announcer">{message}</div>;
}

/** A list the learner puts in order. `labels` (matching) pins a fixed text next to each slot. */
export function SortableList({ items, onChange, labels, disabled, name }: {
  items: string[];
  onChange: (items: string[]) => void;
  labels?: string[];
  disabled?: boolean;
  name: string;
}) {
  const [grabbed, setGrabbed] = useState<number | null>(null);
  const [before, setBefore] = useState<string[] | null>(null);
  const [message, setMessage] = useState("");
  const dragFrom = useRef<number | null>(null);
  const refs = useRef<Map<string, HTMLElement>>(new Map());
  const focusText = useRef<string | null>(null);

  useEffect(() => {
    if (focusText.current) {
      refs.current.get(focusText.current)?.focus();
      focusText.current = null;
    }
  });

  const position = (index: number) => (labels ? `next to “${labels[index]}”` : `position ${index + 1} of ${items.length}`);

  function onKeyDown(event: KeyboardEvent<HTMLElement>, index: number) {
    if (disabled) return;
    const text = items[index];
    if (event.key === " " || event.key === "Enter") {
      event.preventDefault();
      if (grabbed === null) {
        setGrabbed(index);
        setBefore(items);
        setMessage(`Picked up ${text}, ${position(index)}. Use the arrow keys to move, Space to drop, Escape to cancel.`);
      } else {
        setGrabbed(null);
        setMessage(`Dropped ${text}, ${position(index)}.`);
      }
      return;
    }
    if (grabbed === null) return;
    if (event.key === "Escape" && before) {
      event.preventDefault();
      onChange(before);
      setGrabbed(null);
      setMessage(`Cancelled. ${text} is back where it was.`);
      return;
    }
    const delta = event.key === "ArrowUp" || event.key === "ArrowLeft" ? -1 : event.key === "ArrowDown" || event.key === "ArrowRight" ? 1 : 0;
    if (!delta) return;
    event.preventDefault();
    const target = index + delta;
    if (target < 0 || target >= items.length) return;
    focusText.current = text;
    setGrabbed(target);
    onChange(move(items, index, target));
    setMessage(`${text} moved to ${position(target)}.`);
  }

  return (
    <div className="dnd">
      <p className="muted dnd-help" id={`${name}-help`}>Drag with the mouse, or focus an item and press Space, the arrow keys, then Space.</p>
      <ol className={labels ? "dnd-list dnd-matching" : "dnd-list"} aria-describedby={`${name}-help`} data-testid={`${name}-list`}>
        {items.map((text, index) => (
          <li key={text} className="dnd-row">
            {labels && <span className="dnd-label">{labels[index]}</span>}
            <span
              ref={(node) => { if (node) refs.current.set(text, node); else refs.current.delete(text); }}
              className={`dnd-item${grabbed === index ? " grabbed" : ""}`}
              tabIndex={disabled ? -1 : 0}
              role="button"
              aria-pressed={grabbed === index}
              aria-roledescription="sortable item"
              aria-label={`${text}, ${position(index)}`}
              draggable={!disabled}
              data-testid="dnd-item"
              onKeyDown={(event) => onKeyDown(event, index)}
              onDragStart={(event) => { dragFrom.current = index; event.dataTransfer.setData("text/plain", text); event.dataTransfer.effectAllowed = "move"; }}
              onDragOver={(event) => { event.preventDefault(); event.dataTransfer.dropEffect = "move"; }}
              onDrop={(event) => {
                event.preventDefault();
                const from = dragFrom.current ?? items.indexOf(event.dataTransfer.getData("text/plain"));
                dragFrom.current = null;
                if (from >= 0 && from !== index) {
                  onChange(move(items, from, index));
                  setMessage(`${items[from]} moved to ${position(index)}.`);
                }
              }}
            >
              <span aria-hidden="true" className="dnd-grip">⠿</span> {text}
            </span>
          </li>
        ))}
      </ol>
      <LiveRegion message={message} />
    </div>
  );
}

/** Sort items into bins. `placement` maps item → bin (absent: not placed yet). */
export function BinSorter({ items, bins, placement, onChange, disabled }: {
  items: string[];
  bins: string[];
  placement: Record<string, string>;
  onChange: (placement: Record<string, string>) => void;
  disabled?: boolean;
}) {
  const [grabbed, setGrabbed] = useState<string | null>(null);
  const [message, setMessage] = useState("");
  const refs = useRef<Map<string, HTMLElement>>(new Map());
  const focusText = useRef<string | null>(null);

  useEffect(() => {
    if (focusText.current) {
      refs.current.get(focusText.current)?.focus();
      focusText.current = null;
    }
  });

  function place(item: string, bin: string | null) {
    const next = { ...placement };
    if (bin === null) delete next[item];
    else next[item] = bin;
    focusText.current = item;
    onChange(next);
  }

  function onKeyDown(event: KeyboardEvent<HTMLElement>, item: string) {
    if (disabled) return;
    if (event.key === " " || event.key === "Enter") {
      event.preventDefault();
      if (grabbed === item) {
        setGrabbed(null);
        setMessage(`Dropped ${item} in ${placement[item] ?? "Unsorted"}.`);
      } else {
        setGrabbed(item);
        setMessage(`Picked up ${item}. Press 1 to ${bins.length} or the arrow keys to choose a bin, Space to drop.`);
      }
      return;
    }
    if (grabbed !== item) return;
    const digit = Number(event.key);
    let target: string | null | undefined;
    if (Number.isInteger(digit) && digit >= 1 && digit <= bins.length) target = bins[digit - 1];
    if (event.key === "ArrowRight" || event.key === "ArrowDown" || event.key === "ArrowLeft" || event.key === "ArrowUp") {
      const current = placement[item] ? bins.indexOf(placement[item]) : -1;
      const step = event.key === "ArrowRight" || event.key === "ArrowDown" ? 1 : -1;
      target = bins[(current + step + bins.length) % bins.length];
    }
    if (event.key === "Escape") {
      setGrabbed(null);
      setMessage(`Stopped moving ${item}.`);
      return;
    }
    if (target) {
      event.preventDefault();
      place(item, target);
      setMessage(`${item} moved to ${target}.`);
    }
  }

  const chip = (item: string) => (
    <span
      key={item}
      ref={(node) => { if (node) refs.current.set(item, node); else refs.current.delete(item); }}
      className={`dnd-item${grabbed === item ? " grabbed" : ""}`}
      tabIndex={disabled ? -1 : 0}
      role="button"
      aria-pressed={grabbed === item}
      aria-label={`${item}, in ${placement[item] ?? "Unsorted"}`}
      draggable={!disabled}
      data-testid="dnd-item"
      onKeyDown={(event) => onKeyDown(event, item)}
      onDragStart={(event) => { event.dataTransfer.setData("text/plain", item); event.dataTransfer.effectAllowed = "move"; }}
    >
      <span aria-hidden="true" className="dnd-grip">⠿</span> {item}
    </span>
  );

  const zone = (bin: string | null, label: string, index?: number) => (
    <div
      key={label}
      className="dnd-bin"
      data-testid={bin === null ? "bin-unsorted" : `bin-${index! + 1}`}
      aria-label={label}
      role="group"
      onDragOver={(event) => { event.preventDefault(); event.dataTransfer.dropEffect = "move"; }}
      onDrop={(event) => {
        event.preventDefault();
        const item = event.dataTransfer.getData("text/plain");
        if (items.includes(item)) {
          place(item, bin);
          setMessage(`${item} moved to ${label}.`);
        }
      }}
    >
      <h4>{index !== undefined ? <kbd>{index + 1}</kbd> : null} {label}</h4>
      <div className="dnd-chips">{items.filter((item) => (placement[item] ?? null) === bin).map(chip)}</div>
    </div>
  );

  return (
    <div className="dnd">
      <p className="muted dnd-help">Drag each item into a bin, or focus it, press Space, a number key (or arrows) for the bin, then Space.</p>
      <div className="dnd-bins">
        {zone(null, "Unsorted")}
        {bins.map((bin, index) => zone(bin, bin, index))}
      </div>
      <LiveRegion message={message} />
    </div>
  );
}
