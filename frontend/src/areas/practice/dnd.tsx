// Drag-and-drop inputs for ordering, matching and categorize questions. Mouse: HTML5 drag and drop.
// Touch (where HTML5 drag and drop does not reach) and mouse alike: tap an item to pick it up, then tap where it
// goes (another item's place, or a bin); tap it again to put it down. Keyboard: focus an item, Space picks it up,
// arrows move it (number keys choose a bin), Space drops, Escape cancels. Every move is announced through an
// aria-live region.
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

  function onTap(index: number) {
    if (disabled) return;
    const text = items[index];
    if (grabbed === null) {
      setGrabbed(index);
      setBefore(items);
      setMessage(`Picked up ${text}, ${position(index)}. Tap the place it goes.`);
    } else if (grabbed === index) {
      setGrabbed(null);
      setMessage(`Put down ${text}, ${position(index)}.`);
    } else {
      const moved = items[grabbed];
      setGrabbed(null);
      onChange(move(items, grabbed, index));
      setMessage(`Dropped ${moved}, ${position(index)}.`);
    }
  }

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
      <p className="muted dnd-help" id={`${name}-help`}>Drag an item, or tap it and then tap where it goes; with the keyboard, focus it and press Space, the arrow keys, then Space.</p>
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
              onClick={() => onTap(index)}
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

  /** `keepFocus`: the keyboard's moves keep focus on the item; a tap does not move focus (nor scroll the page
   * under the finger). */
  function place(item: string, bin: string | null, keepFocus = true) {
    const next = { ...placement };
    if (bin === null) delete next[item];
    else next[item] = bin;
    if (keepFocus) focusText.current = item;
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

  function onTapItem(event: React.MouseEvent, item: string) {
    event.stopPropagation();  // not also a tap on the bin around it
    if (disabled) return;
    const bin = placement[item] ?? null;
    if (grabbed === item) {
      setGrabbed(null);
      setMessage(`Put down ${item} in ${bin ?? "Unsorted"}.`);
    } else if (grabbed !== null && (placement[grabbed] ?? null) !== bin) {
      onTapBin(bin, bin ?? "Unsorted");  // a tap on an item of another bin is a tap on that bin
    } else {
      setGrabbed(item);
      setMessage(`Picked up ${item}. Tap the bin it goes in.`);
    }
  }

  function onTapBin(bin: string | null, label: string) {
    if (disabled || grabbed === null) return;
    const item = grabbed;
    setGrabbed(null);
    place(item, bin, false);
    setMessage(`Dropped ${item} in ${label}.`);
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
      onClick={(event) => onTapItem(event, item)}
      onDragStart={(event) => { event.dataTransfer.setData("text/plain", item); event.dataTransfer.effectAllowed = "move"; }}
    >
      <span aria-hidden="true" className="dnd-grip">⠿</span> {item}
    </span>
  );

  const zone = (bin: string | null, label: string, index?: number) => (
    <div
      key={label}
      className={`dnd-bin${grabbed !== null ? " dnd-target" : ""}`}
      data-testid={bin === null ? "bin-unsorted" : `bin-${index! + 1}`}
      aria-label={label}
      role="group"
      onClick={() => onTapBin(bin, label)}
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
      <p className="muted dnd-help">Drag each item into a bin, or tap it and then tap its bin; with the keyboard, focus it, press Space, a number key (or arrows) for the bin, then Space.</p>
      <div className="dnd-bins">
        {zone(null, "Unsorted")}
        {bins.map((bin, index) => zone(bin, bin, index))}
      </div>
      <LiveRegion message={message} />
    </div>
  );
}
