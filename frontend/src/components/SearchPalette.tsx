// Placeholder: the search palette (/ and Ctrl-K) is implemented with the curriculum.
export default function SearchPalette() {
  return null;
}
