import { lazy, Suspense } from "react";
import { Route, Routes } from "react-router-dom";
import Curriculum from "./Curriculum";
import Reader from "./Reader";
import "./learn.css";

// The map pulls in the layout library; load it only when someone opens the map.
const ConceptMap = lazy(() => import("./ConceptMap"));

export default function LearnArea() {
  return (
    <Routes>
      <Route index element={<Curriculum />} />
      <Route path="map" element={<Suspense fallback={<p aria-busy="true">Loading…</p>}><ConceptMap /></Suspense>} />
      <Route path=":slug" element={<Reader />} />
    </Routes>
  );
}
