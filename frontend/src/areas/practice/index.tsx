export default function PracticeArea() {
  return <section><h1>Practice</h1><p>Coming soon.</p></section>;
}
