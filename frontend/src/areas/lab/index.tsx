export default function LabArea() {
  return <section><h1>Lab</h1><p>Coming soon.</p></section>;
}
