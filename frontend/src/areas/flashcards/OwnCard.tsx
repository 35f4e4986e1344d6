// A learner's own cards: write a basic or cloze card into a deck, or edit one (during review too).
import { useEffect, useState } from "react";
import { api, ApiError } from "../../lib/api";

interface OwnCard { card_id: number; kind: string; front: string; back: string; deck: string; front_html: string; back_html: string }
interface DeckNode { slug: string; title: string; kind: string; children: DeckNode[] }

function flatten(nodes: DeckNode[], depth = 0): { slug: string; label: string }[] {
  return nodes.flatMap((node) => [{ slug: node.slug, label: `${"  ".repeat(depth)}${node.title}` }, ...flatten(node.children, depth + 1)]);
}

export function OwnCardForm({ cardId, onSaved, onCancel }: { cardId?: number; onSaved: (card: OwnCard) => void; onCancel?: () => void }) {
  const [form, setForm] = useState({ kind: "basic", front: "", back: "", deck: "all" });
  const [decks, setDecks] = useState<{ slug: string; label: string }[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [imageField, setImageField] = useState<"front" | "back">("front");  // the side an added image goes in
  const [imageStatus, setImageStatus] = useState("");
  useEffect(() => { void api<{ decks: DeckNode[] }>("/flashcards/deck-tree/").then((tree) => setDecks(flatten(tree.decks))); }, []);
  useEffect(() => {
    if (cardId === undefined) return;
    void api<OwnCard>(`/flashcards/own/${cardId}/`).then(({ kind, front, back, deck }) => setForm({ kind, front, back, deck }));
  }, [cardId]);
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      const saved = await api<OwnCard>(cardId === undefined ? "/flashcards/own/" : `/flashcards/own/${cardId}/`,
        { method: cardId === undefined ? "POST" : "PATCH", body: form });
      setError(null);
      setImageStatus("");
      if (cardId === undefined) setForm({ ...form, front: "", back: "" });
      onSaved(saved);
    } catch (e) { if (e instanceof ApiError) setError(e); else throw e; }
  };
  const addImage = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setImageStatus("Uploading…");
    try {
      const alt = file.name.replace(/\.[^.]+$/, "").slice(0, 200);
      const image = await api<{ markdown: string }>(`/flashcards/images/?alt=${encodeURIComponent(alt)}`, { method: "POST", raw: file });
      setForm((f) => ({ ...f, [imageField]: f[imageField] ? `${f[imageField].trimEnd()}\n\n${image.markdown}` : image.markdown }));
      setImageStatus(`Image added to the ${imageField}.`);
      setError(null);
    } catch (e) {
      setImageStatus("");
      if (e instanceof ApiError) setError(e); else throw e;
    } finally { input.value = ""; }
  };
  const problem = (name: string) => error?.fieldMessage(name) && <span className="field-error" role="alert">{error.fieldMessage(name)}</span>;
  return (
    <form className="own-card-form" onSubmit={(e) => void save(e)} aria-label={cardId === undefined ? "New card" : "Edit your card"}>
      <fieldset>
        <legend>Kind</legend>
        <label><input type="radio" name="kind" checked={form.kind === "basic"} onChange={() => setForm({ ...form, kind: "basic" })} /> Basic</label>{" "}
        <label><input type="radio" name="kind" checked={form.kind === "cloze"} onChange={() => setForm({ ...form, kind: "cloze" })} /> Cloze</label>
        {problem("kind")}
      </fieldset>
      <label htmlFor="own-front">{form.kind === "cloze" ? "Text (mark deletions {{c1::answer}})" : "Front"} (Markdown)</label>
      <textarea id="own-front" rows={3} maxLength={2000} value={form.front} onFocus={() => setImageField("front")} onChange={(e) => setForm({ ...form, front: e.target.value })} />
      {problem("front")}
      <label htmlFor="own-back">{form.kind === "cloze" ? "Extra (optional)" : "Back"} (Markdown)</label>
      <textarea id="own-back" rows={3} maxLength={5000} value={form.back} onFocus={() => setImageField("back")} onChange={(e) => setForm({ ...form, back: e.target.value })} />
      {problem("back")}
      <div className="add-image">
        <label htmlFor={`own-image-${cardId ?? "new"}`}>Add image to the {imageField} (PNG, JPEG, WebP or GIF, at most 2 MB)</label>{" "}
        <input id={`own-image-${cardId ?? "new"}`} type="file" accept="image/png,image/jpeg,image/webp,image/gif"
          onChange={(e) => void addImage(e.target)} />
        {imageStatus && <span role="status" data-testid="image-status"> {imageStatus}</span>}
        {problem("file")}
      </div>
      <label htmlFor="own-deck">Deck</label>
      <select id="own-deck" value={form.deck} onChange={(e) => setForm({ ...form, deck: e.target.value })}>
        {decks.map((deck) => <option key={deck.slug} value={deck.slug}>{deck.label}</option>)}
      </select>
      {problem("deck")}
      <div>
        <button type="submit" className="primary">{cardId === undefined ? "Add card" : "Save card"}</button>{" "}
        {onCancel && <button type="button" onClick={onCancel}>Cancel</button>}
      </div>
      {error && !Object.keys(error.body.fields ?? {}).length && <p role="alert" className="error">{error.message}</p>}
    </form>
  );
}

export default function AddCardPage() {
  const [added, setAdded] = useState<OwnCard[]>([]);
  return (
    <section>
      <h2>Add your own card</h2>
      <p className="muted">Only you see your cards. They are scheduled, browsed and exported like ours.</p>
      <OwnCardForm onSaved={(card) => setAdded((list) => [card, ...list])} />
      {added.length > 0 && <p role="status">Added {added.length} card{added.length === 1 ? "" : "s"}.</p>}
      {added.map((card) => (
        <article key={card.card_id} className="flashcard" data-testid="own-card-preview">
          <div dangerouslySetInnerHTML={{ __html: card.front_html }} />
          <hr />
          <div dangerouslySetInnerHTML={{ __html: card.back_html }} />
        </article>
      ))}
    </section>
  );
}
