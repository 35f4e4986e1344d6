import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { api } from "./api";

export interface ReadingSettings {
  theme: "system" | "light" | "dark";
  text_size: string;
  reading_width: string;
  line_spacing: string;
  density: string;
  reduced_motion: boolean;
}

export interface Me {
  id: number;
  username: string;
  email: string;
  is_author: boolean;
  reading_settings: ReadingSettings;
}

interface AuthState {
  user: Me | null;
  loading: boolean;
  refresh: () => Promise<void>;
  login: (username: string, password: string) => Promise<Me>;
  register: (username: string, password: string, email: string) => Promise<Me>;
  logout: () => Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);
const listeners: Array<(user: Me) => void> = [];

/** Lets features (e.g. anonymous progress merge) react when someone signs in or up. */
export function onSignIn(listener: (user: Me) => void) {
  listeners.push(listener);
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<Me | null>(null);
  const [loading, setLoading] = useState(true);

  const refresh = useCallback(async () => {
    try {
      // The server says in the page whether this browser has a session; an anonymous first visit need not ask.
      const hint = document.querySelector('meta[name="session"]');
      if (hint) {
        hint.remove();
        if (hint.getAttribute("content") === "anonymous") {
          setUser(null);
          return;
        }
      }
      setUser(await api<Me>("/auth/me/"));
    } catch {
      setUser(null);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const signedIn = useCallback(async (me: Me) => {
    setUser(me);
    for (const listener of listeners) listener(me);
    return me;
  }, []);

  const value: AuthState = {
    user,
    loading,
    refresh,
    login: async (username, password) => signedIn(await api<Me>("/auth/login/", { method: "POST", body: { username, password } })),
    register: async (username, password, email) =>
      signedIn(await api<Me>("/auth/register/", { method: "POST", body: { username, password, email } })),
    logout: async () => {
      await api("/auth/logout/", { method: "POST" });
      setUser(null);
    },
  };
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuth outside AuthProvider");
  return value;
}
