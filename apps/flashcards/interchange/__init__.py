"""Moving a learner's cards in and out: the kit's JSON collection format (both ways), Anki packages and CSV
(export), Anki packages with their media (import)."""
