import { useId, useState } from "react";
import { useSettings } from "../lib/settings";
import type { ReadingSettings } from "../lib/auth";

const CHOICES: { key: keyof ReadingSettings; label: string; options: string[] }[] = [
  { key: "theme", label: "Theme", options: ["system", "light", "dark"] },
  { key: "text_size", label: "Text size", options: ["small", "medium", "large", "x-large"] },
  { key: "reading_width", label: "Width", options: ["narrow", "medium", "wide"] },
  { key: "line_spacing", label: "Line spacing", options: ["compact", "normal", "relaxed"] },
  { key: "density", label: "Density", options: ["compact", "comfortable"] },
];

/** Reader settings: saved in localStorage, and on the account when signed in (lib/settings). */
export default function ReadingSettingsPanel() {
  const { settings, update } = useSettings();
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div className="settings-panel">
      <button type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Reading settings
      </button>
      {open && (
        <fieldset id={id} className="settings-fields">
          <legend className="visually-hidden">Reading settings</legend>
          {CHOICES.map((choice) => (
            <label key={choice.key} className="field">
              <span>{choice.label}</span>
              <select
                value={String(settings[choice.key])}
                onChange={(e) => update({ [choice.key]: e.target.value } as Partial<ReadingSettings>)}
              >
                {choice.options.map((option) => <option key={option} value={option}>{option}</option>)}
              </select>
            </label>
          ))}
          <label className="field checkbox">
            <input
              type="checkbox"
              checked={settings.reduced_motion}
              onChange={(e) => update({ reduced_motion: e.target.checked })}
            />
            <span>Reduce motion</span>
          </label>
        </fieldset>
      )}
    </div>
  );
}
