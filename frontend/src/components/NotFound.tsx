import { useEffect } from "react";
import { Link, matchPath, useLocation } from "react-router-dom";
import table from "../routes.json";

/** The one list of pages; the server reads the same file and answers any other path with HTTP 404. */
export const ROUTES: string[] = table.routes;

export function isKnownPath(pathname: string): boolean {
  return ROUTES.some((pattern) => matchPath({ path: pattern, end: true }, pathname.replace(/\/+$/, "") || "/") !== null);
}

export default function NotFound() {
  const { pathname } = useLocation();
  useEffect(() => {
    document.title = "Page not found · LLM-serving kit";
  }, []);
  return (
    <section className="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>Nothing lives at <code>{pathname}</code>. It may have moved, or the link may be mistyped.</p>
      <ul>
        <li><Link to="/">Home</Link> — where to start</li>
        <li><Link to="/learn">Learn</Link> — the curriculum, chapter by chapter</li>
        <li><Link to="/practice">Practice</Link> — interview questions, graded on the server</li>
        <li><Link to="/glossary">Glossary</Link> — every term</li>
      </ul>
      <p className="muted">Or search: press <kbd>/</kbd>.</p>
    </section>
  );
}
