export default function GlossaryArea() {
  return <section><h1>Glossary</h1><p>Coming soon.</p></section>;
}
