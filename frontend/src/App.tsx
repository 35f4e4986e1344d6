import { lazy, Suspense, useEffect, useState } from "react";
import { Link, matchPath, NavLink, Route, Routes, useLocation } from "react-router-dom";
import { useAuth } from "./lib/auth";
import { useSettings } from "./lib/settings";
import SearchPalette from "./components/SearchPalette";
import NotFound, { isKnownPath } from "./components/NotFound";
// Each area is its own chunk, loaded when first visited.
const LearnArea = lazy(() => import("./areas/learn"));
const GlossaryArea = lazy(() => import("./areas/glossary"));
const PracticeArea = lazy(() => import("./areas/practice"));
const FlashcardsArea = lazy(() => import("./areas/flashcards"));
const LabArea = lazy(() => import("./areas/lab"));
const PlanArea = lazy(() => import("./areas/plan"));
import { AccountPage, LoginPage, SignupPage } from "./areas/account";
import Home from "./Home";
import labPages from "./generated/lab-pages.json";
// Eager, not with the lazy learn area: it merges this browser's reading progress on any sign-in or sign-up page.
import "./areas/learn/progress";

const SITE = "LLM-serving kit";
const LAB_TITLES: Record<string, string> = Object.fromEntries(labPages.map((page: { name: string; title: string }) => [page.name, page.title]));

/** The tab title of every page (routes.json); pages that load a title (a chapter, a question) refine it once loaded. */
const TITLES: Array<[string, (params: Record<string, string | undefined>) => string]> = [
  ["/learn", () => "Learn"],
  ["/learn/map", () => "Concept map · Learn"],
  ["/learn/:slug", () => "Chapter · Learn"],
  ["/glossary", () => "Glossary"],
  ["/glossary/:slug", ({ slug = "" }) => `${slug.replace(/-/g, " ")} · Glossary`],
  ["/practice", () => "Practice"],
  ["/practice/interview", () => "Interview mode · Practice"],
  ["/practice/session/:id", () => "Practice session"],
  ["/practice/session/:id/summary", () => "Session summary · Practice"],
  ["/practice/questions/:id", ({ id }) => `Question ${id} · Practice`],
  ["/practice/diagnosis", () => "Diagnosis game · Practice"],
  ["/practice/incidents", () => "Kubernetes incident game · Practice"],
  ["/practice/checks", () => "Drag-and-drop checks · Practice"],
  ["/practice/checks/:id", () => "Drag-and-drop check · Practice"],
  ["/practice/design", () => "Design exercises · Practice"],
  ["/practice/design/:slug", () => "Design exercise · Practice"],
  ["/flashcards", () => "Flashcards"],
  ["/flashcards/review", () => "Review · Flashcards"],
  ["/flashcards/browse", () => "Browse cards · Flashcards"],
  ["/flashcards/stats", () => "Statistics · Flashcards"],
  ["/flashcards/settings", () => "Settings · Flashcards"],
  ["/lab", () => "Inference Lab"],
  ["/lab/engine", () => "Engine simulation · Lab"],
  ["/lab/sweeps", () => "Sweeps · Lab"],
  ["/lab/sweeps/:id", () => "Sweep · Lab"],
  ["/lab/:tool", ({ tool = "" }) => `${LAB_TITLES[tool] ?? tool} · Lab`],
  ["/login", () => "Log in"],
  ["/signup", () => "Sign up"],
  ["/account", () => "Account"],
  ["/plan", () => "Study plan"],
];

export function pageTitle(pathname: string): string | null {
  const path = pathname.replace(/\/+$/, "") || "/";
  for (const [pattern, title] of TITLES) {
    const match = matchPath({ path: pattern, end: true }, path);
    if (match) return `${title(match.params)} · ${SITE}`;
  }
  return null;
}

const NAV = [
  { to: "/learn", label: "Learn" },
  { to: "/practice", label: "Practice" },
  { to: "/flashcards", label: "Flashcards" },
  { to: "/lab", label: "Simulators" },
  { to: "/glossary", label: "Glossary" },
  { to: "/plan", label: "Plan" },
];

function ThemeSwitch() {
  const { settings, update } = useSettings();
  return (
    <label className="theme-switch">
      <span className="visually-hidden">Theme</span>
      <select aria-label="Theme" value={settings.theme} onChange={(e) => update({ theme: e.target.value as "system" | "light" | "dark" })}>
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

export default function App() {
  const { user } = useAuth();
  const { pathname } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [pathname]);
  useEffect(() => {
    // Home and the not-found page set their own; any other page gets its own before its content loads.
    const title = pageTitle(pathname);
    if (title) document.title = title;
  }, [pathname]);
  return (
    <div className="layout">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className={`topbar${menuOpen ? " menu-open" : ""}`}>
        <Link to="/" className="brand">LLM-serving kit</Link>
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav aria-label="Main" id="main-nav">
          {NAV.map((item) => (
            <NavLink key={item.to} to={item.to}>{item.label}</NavLink>
          ))}
          <NavLink to={user ? "/account" : "/login"} data-testid="account-link">
            {user ? `Account (${user.username})` : "Account"}
          </NavLink>
        </nav>
        <SearchPalette />
        <ThemeSwitch />
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p className="muted">Loading…</p>}>
        {!isKnownPath(pathname) ? <NotFound /> : <Routes>
          <Route path="/" element={<Home />} />
          <Route path="/learn/*" element={<LearnArea />} />
          <Route path="/glossary/*" element={<GlossaryArea />} />
          <Route path="/practice/*" element={<PracticeArea />} />
          <Route path="/flashcards/*" element={<FlashcardsArea />} />
          <Route path="/lab/*" element={<LabArea />} />
          <Route path="/login" element={<LoginPage />} />
          <Route path="/signup" element={<SignupPage />} />
          <Route path="/account" element={<AccountPage />} />
          <Route path="/plan" element={<PlanArea />} />
          <Route path="*" element={<NotFound />} />
        </Routes>}
        </Suspense>
      </main>
    </div>
  );
}
