export default function FlashcardsArea() {
  return <section><h1>Flashcards</h1><p>Coming soon.</p></section>;
}
