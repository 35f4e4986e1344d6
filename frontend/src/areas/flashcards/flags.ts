/** Anki's flag colours, by their numbers (0: no flag); the server's Flag choices. */
export const FLAGS = ["No flag", "Red", "Orange", "Green", "Blue", "Pink", "Turquoise", "Purple"];
