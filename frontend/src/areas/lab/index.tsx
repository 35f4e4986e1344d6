import type { ComponentType } from "react";
import { Route, Routes, useLocation } from "react-router-dom";
import EngineArea from "./engine";
import SweepsArea from "./sweeps";
import MainLab, { ToolNav } from "./MainLab";
import "./lab.css";

type PanelModule = { PANELS?: Record<string, ComponentType> };
// Every module of the Lab that draws pages exports PANELS (page name → component), found here by file: a new
// simulator's page is one module (./<name>.tsx or ./<name>/index.tsx) and its entry in apps/core/registry.py.
const PANELS: Record<string, ComponentType> = Object.assign(
  {}, ...Object.values(import.meta.glob<PanelModule>(["./*.tsx", "./*/index.tsx", "!./index.tsx"], { eager: true }))
    .map((module) => module.PANELS ?? {}),
);

function Panel() {
  const tool = useLocation().pathname.replace(/^\/lab\/?/, "").split("/")[0];
  const Component = PANELS[tool];
  return Component ? <Component /> : <p>No simulator called “{tool}”.</p>;
}

export default function LabArea() {
  return (
    <div className="lab">
      <ToolNav />
      <Routes>
        <Route index element={<MainLab />} />
        <Route path="engine/*" element={<EngineArea />} />
        <Route path="sweeps/*" element={<SweepsArea />} />
        <Route path=":tool" element={<Panel />} />
      </Routes>
    </div>
  );
}
