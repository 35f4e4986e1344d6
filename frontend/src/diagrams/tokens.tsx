// Tokenization: the reader's text → BPE pieces → ids (cl100k_base in the browser, whose 100k tokens are the first
// 100k of Llama 3's vocabulary), and what those tokens cost in KV cache on the chosen model (request-walk endpoint).
import { useState } from "react";
import { fmtBytes, useTokenizer } from "../areas/lab/lib";
import { Block, Frame, Legend, PlayerControls, Slider, useAnswer, useHeld, useMediaQuery, useTour, type Params } from "./kit";
import { Value } from "./memory";

export const TOKEN_SAMPLES = [
  "Tokenization splits text into pieces the model has embeddings for.",
  "kubectl describe pod vllm-0 | grep -i oomkilled",
  "The H100 moves 3.35 TB/s; 2,048 tokens × 128 KiB = 268,435,456 bytes.",
  "Die Tokenisierung ist für deutsche Komposita teurer.",
];

export function Tokenization({ params }: { params: Params }) {
  const [picked, setPicked] = useState(0);
  const tour = useTour(TOKEN_SAMPLES);
  const text = tour.value;
  const sample = tour.own ? picked : tour.index;
  const enc = useTokenizer();
  const encode = (t: string) => (enc ? enc.encode(t).slice(0, 512) : null);
  const ids = encode(text);
  const body = (tokens: number[] | null) => (tokens && tokens.length ? {
    model: params.model, gpu: params.gpu, tokens, tokenizer: "cl100k_base", output_tokens: 1,
  } : null);
  const { data, error } = useAnswer("request-walk", body(ids), TOKEN_SAMPLES.map((t) => body(encode(t))));
  const pick = (i: number) => { setPicked(i); tour.take(TOKEN_SAMPLES[i]); };
  const count = ids ? `${text.length} characters → ${ids.length} tokens, ${(text.length / Math.max(ids.length, 1)).toFixed(1)} characters per token` : "";
  const said = !ids || !data ? null : [
    `Plain English: ${count}; common words are one token each, and on ${data.model.name} every token keeps ${fmtBytes(data.kv_bytes_per_token)} of KV cache.`,
    `A shell command: ${count}; names and flags the tokenizer rarely saw split into several pieces.`,
    `Numbers and units: ${count}; digits go in groups of at most three, and symbols are pieces of their own.`,
    `German: ${count}; long compounds split into several pieces.`,
  ][tour.index] ?? `Your text: ${count}.`;
  const narration = useHeld(said);
  // Rows as wide as the screen shows at about one unit a pixel: on a phone a 600-unit row shrank the labels to 6 px.
  const rowWidth = useMediaQuery("(max-width: 640px)") ? 320 : 600;
  let x = 0, y = 0;
  const chips = (ids ?? []).map((id, i) => {
    const piece = enc!.decode([id]);
    // as wide as the piece above and the id below (a 6-digit id under a 1-letter piece overlapped its neighbours)
    const width = Math.max(28, piece.length * 7 + 10, String(id).length * 7 + 8);
    if (x + width > rowWidth) { x = 0; y += 46; }
    const chip = { id, piece, x, y, width, i };
    x += width + 4;
    return chip;
  });
  return (
    <Frame name="tokenization" params={params} error={error?.message}
      controls={<>
        <Slider label="Sample" value={sample} min={0} max={TOKEN_SAMPLES.length - 1} onChange={pick} format={(v) => `${v + 1} of ${TOKEN_SAMPLES.length}`} />
        <label>Your text <input type="text" value={text} maxLength={2000} onChange={(e) => tour.take(e.target.value)} data-testid="diagram-text" /></label>
      </>}
      player={<PlayerControls player={tour.player} label="Tour" narration={narration} format={(i) => `sample ${i + 1}`} />}
      legend={<Legend items={[{ concept: "tokens", label: "tokens: piece above, id below (shades alternate)" }]} />}
      numbers={data && ids && <>
        {text.length} characters → <Value value={data.prompt_tokens} text={`${data.prompt_tokens} tokens`} /> ({(text.length / Math.max(ids.length, 1)).toFixed(1)} characters per token);
        on {data.model.name} each token keeps {fmtBytes(data.kv_bytes_per_token)} of KV cache: {fmtBytes(data.kv_bytes_per_token * ids.length)} for this text
      </>}>
      <svg viewBox={`0 0 ${rowWidth} ${y + 44}`} role="img" aria-label={`${ids?.length ?? 0} tokens`} data-testid="diagram-svg">
        {chips.map((c) => (
          <g key={c.i}>
            <Block concept="tokens" opacity={c.i % 2 ? 0.7 : 1} x={c.x} y={c.y} width={c.width} height={22} title={`token ${c.i}: id ${c.id}`} />
            <text x={c.x + c.width / 2} y={c.y + 15} textAnchor="middle" className="d-on-block" style={{ whiteSpace: "pre" }}>{c.piece.replace(/ /g, "␣")}</text>
            <text x={c.x + c.width / 2} y={c.y + 36} textAnchor="middle">{c.id}</text>
          </g>
        ))}
      </svg>
    </Frame>
  );
}
