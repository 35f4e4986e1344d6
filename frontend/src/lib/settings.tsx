import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { api } from "./api";
import { useAuth, type ReadingSettings } from "./auth";

// Reading settings live in localStorage for every visitor and on the account when signed in.
const STORAGE_KEY = "reading-settings";
export const DEFAULT_SETTINGS: ReadingSettings = {
  theme: "system",
  text_size: "medium",
  reading_width: "medium",
  line_spacing: "normal",
  density: "comfortable",
  reduced_motion: false,
};

interface SettingsState {
  settings: ReadingSettings;
  update: (changes: Partial<ReadingSettings>) => void;
}

const SettingsContext = createContext<SettingsState | null>(null);

function stored(): ReadingSettings {
  try {
    return { ...DEFAULT_SETTINGS, ...JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}") };
  } catch {
    return DEFAULT_SETTINGS;
  }
}

export function SettingsProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const [settings, setSettings] = useState<ReadingSettings>(stored);

  useEffect(() => {
    if (user) setSettings({ ...DEFAULT_SETTINGS, ...user.reading_settings });
  }, [user]);

  useEffect(() => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
    const root = document.documentElement;
    root.dataset.theme = settings.theme;
    root.dataset.textSize = settings.text_size;
    root.dataset.width = settings.reading_width;
    root.dataset.lineSpacing = settings.line_spacing;
    root.dataset.density = settings.density;
    root.dataset.reducedMotion = String(settings.reduced_motion);
  }, [settings]);

  const update = (changes: Partial<ReadingSettings>) => {
    setSettings((previous) => ({ ...previous, ...changes }));
    if (user) void api("/auth/me/reading-settings/", { method: "PATCH", body: changes }).catch(() => undefined);
  };
  return <SettingsContext.Provider value={{ settings, update }}>{children}</SettingsContext.Provider>;
}

export function useSettings(): SettingsState {
  const value = useContext(SettingsContext);
  if (!value) throw new Error("useSettings outside SettingsProvider");
  return value;
}
