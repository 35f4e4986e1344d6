// Deck option presets, as Anki's: named limits and scheduling options, assigned to decks in the deck tree; each
// preset's FSRS parameters can be fitted to its own cards' reviews.
import { useCallback, useEffect, useRef, useState } from "react";
import { api, ApiError } from "../../lib/api";

export interface Preset {
  id: number; name: string; new_cards_per_day: number; max_reviews_per_day: number; desired_retention: number;
  learning_steps: number[]; relearning_steps: number[]; parameters: number[]; decks: string[];
}
type PresetForm = Omit<Preset, "id" | "parameters" | "decks">;
interface Job { id: string; status: string; review_count: number; error: string; metrics: { after?: { log_loss: number }; before?: { log_loss: number } } }

const BLANK: PresetForm = { name: "", new_cards_per_day: 20, max_reviews_per_day: 200, desired_retention: 0.9, learning_steps: [1, 10], relearning_steps: [10] };
const steps = (text: string) => text.split(/[\s,]+/).filter(Boolean).map(Number);

/** Fits FSRS parameters to one preset's cards (null: the Default's) in the background, then offers to apply them. */
export function OptimizeButton({ preset, label }: { preset: number | null; label: string }) {
  const [job, setJob] = useState<Job | null>(null);
  const [message, setMessage] = useState("");
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const poll = useCallback((id: string, tries: number) => {
    void api<Job>(`/flashcards/optimize/${id}/`).then((next) => {
      setJob(next);
      if (["queued", "running"].includes(next.status) && tries > 0) timer.current = window.setTimeout(() => poll(id, tries - 1), 2000);
    });
  }, []);
  const start = async () => {
    try {
      const created = await api<Job>("/flashcards/optimize/", { method: "POST", body: { preset } });
      setMessage(""); setJob(created); poll(created.id, 30);
    } catch (e) { setMessage(e instanceof ApiError ? (e.fieldMessage("reviews") ?? e.message) : String(e)); }
  };
  const decide = async (action: "apply" | "discard") => {
    if (!job) return;
    setJob(await api<Job>(`/flashcards/optimize/${job.id}/${action}/`, { method: "POST" }));
  };
  return (
    <span className="optimize">
      <button type="button" onClick={() => void start()} aria-label={`Optimize ${label}`}>Optimize FSRS</button>{" "}
      {message && <span className="field-error" role="alert">{message}</span>}
      {job && (
        <span role="status">
          {job.status === "done" && job.metrics.after && job.metrics.before
            ? <>Fitted to {job.review_count} reviews: log loss {job.metrics.before.log_loss} → {job.metrics.after.log_loss}{" "}
              <button type="button" onClick={() => void decide("apply")}>Apply</button> <button type="button" onClick={() => void decide("discard")}>Discard</button></>
            : job.status === "failed" ? `Could not fit: ${job.error}` : `Optimization ${job.status}.`}
        </span>
      )}
    </span>
  );
}

function PresetEditor({ initial, onSaved, onDeleted }: { initial: Preset | null; onSaved: () => void; onDeleted?: () => void }) {
  const [form, setForm] = useState<PresetForm>(initial ?? BLANK);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const prefix = initial ? `preset-${initial.id}` : "preset-new";
  const set = (patch: Partial<PresetForm>) => { setForm({ ...form, ...patch }); setSaved(false); };
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      await api(initial ? `/flashcards/presets/${initial.id}/` : "/flashcards/presets/", { method: initial ? "PATCH" : "POST", body: form });
      setError(null); setSaved(true);
      if (!initial) setForm(BLANK);
      onSaved();
    } catch (e) { if (e instanceof ApiError) setError(e); }
  };
  const remove = async () => {
    if (!initial) return;
    await api(`/flashcards/presets/${initial.id}/`, { method: "DELETE" });
    onDeleted?.();
  };
  const fieldError = (name: string) => {
    const key = Object.keys(error?.body.fields ?? {}).find((k) => k.split(".")[0] === name);
    return key ? <span className="field-error" role="alert">{error?.body.fields[key][0]}</span> : null;
  };
  const field = (name: keyof PresetForm, label: string, input: React.ReactNode) => (
    <label className="browse-field" htmlFor={`${prefix}-${name}`}>{label}{input}{fieldError(name)}</label>
  );
  const num = (name: "new_cards_per_day" | "max_reviews_per_day" | "desired_retention", step = "1") => (
    <input id={`${prefix}-${name}`} type="number" step={step} value={form[name]} onChange={(e) => set({ [name]: Number(e.target.value) })} />
  );
  return (
    <form className="preset-editor" onSubmit={(e) => void save(e)} aria-label={initial ? `Preset ${initial.name}` : "New preset"}
      data-testid={initial ? `preset-${initial.name}` : "preset-new"}>
      {field("name", "Name", <input id={`${prefix}-name`} value={form.name} onChange={(e) => set({ name: e.target.value })} />)}
      {field("new_cards_per_day", "New cards/day", num("new_cards_per_day"))}
      {field("max_reviews_per_day", "Maximum reviews/day", num("max_reviews_per_day"))}
      {field("desired_retention", "Desired retention", num("desired_retention", "0.01"))}
      {field("learning_steps", "Learning steps (min)", <input id={`${prefix}-learning_steps`} value={form.learning_steps.join(" ")}
        onChange={(e) => set({ learning_steps: steps(e.target.value) })} />)}
      {field("relearning_steps", "Relearning steps (min)", <input id={`${prefix}-relearning_steps`} value={form.relearning_steps.join(" ")}
        onChange={(e) => set({ relearning_steps: steps(e.target.value) })} />)}
      <button type="submit" className="primary">{initial ? "Save preset" : "Add preset"}</button>
      {initial && <button type="button" onClick={() => void remove()}>Delete</button>}
      {saved && <span role="status">Saved.</span>}
      {initial && (
        <p className="muted small">
          Decks: {initial.decks.length ? initial.decks.join(", ") : "none yet (choose it in the deck tree)"} · FSRS parameters:{" "}
          {initial.parameters.length ? "fitted to this preset's cards" : "the Default's"} · <OptimizeButton preset={initial.id} label={initial.name} />
        </p>
      )}
    </form>
  );
}

export default function Presets() {
  const [presets, setPresets] = useState<Preset[] | null>(null);
  const load = useCallback(() => { void api<Preset[]>("/flashcards/presets/").then(setPresets); }, []);
  useEffect(load, [load]);
  return (
    <section className="presets">
      <h2>Deck option presets</h2>
      <p className="muted">Like Anki's deck options: a preset's limits and scheduling apply to the decks you choose it for in the deck tree
        (and the chapters of a part); every other deck follows the review settings above (the Default).</p>
      {presets?.map((preset) => <PresetEditor key={preset.id} initial={preset} onSaved={load} onDeleted={load} />)}
      <h3>New preset</h3>
      <PresetEditor initial={null} onSaved={load} />
    </section>
  );
}
