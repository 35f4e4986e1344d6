import { Route, Routes } from "react-router-dom";
import { CheckPage, ChecksList } from "./Checks";
import { DesignExercisePage, DesignList } from "./Design";
import Diagnosis, { K8sIncidents } from "./Diagnosis";
import { InterviewHome, PracticeHome } from "./Home";
import QuestionPage from "./QuestionPage";
import Runner from "./Runner";
import Summary from "./Summary";
import "./practice.css";

export default function PracticeArea() {
  return (
    <Routes>
      <Route index element={<PracticeHome />} />
      <Route path="interview" element={<InterviewHome />} />
      <Route path="session/:id" element={<Runner />} />
      <Route path="session/:id/summary" element={<Summary />} />
      <Route path="questions/:id" element={<QuestionPage />} />
      <Route path="diagnosis" element={<Diagnosis />} />
      <Route path="incidents" element={<K8sIncidents />} />
      <Route path="checks" element={<ChecksList />} />
      <Route path="checks/:id" element={<CheckPage />} />
      <Route path="design" element={<DesignList />} />
      <Route path="design/:slug" element={<DesignExercisePage />} />
    </Routes>
  );
}
