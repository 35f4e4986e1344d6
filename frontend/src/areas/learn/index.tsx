export default function LearnArea() {
  return <section><h1>Learn</h1><p>Coming soon.</p></section>;
}
