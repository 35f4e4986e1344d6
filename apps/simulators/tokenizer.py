"""Prompt tokenization for request-walk and prefix-cache.

No real BPE vocabulary ships inside any installed Python package, and downloading one at run time is not
allowed, so the server does not pretend: a client that has a real tokenizer sends the token ids (the web
Lab tokenizes with the `gpt-tokenizer` npm package, cl100k_base, whose 100k tokens are the first 100k of
Llama 3's 128k vocabulary) and the response says `tokenizer: "<name> (client)"`. Given only text, the
server uses a documented approximation (`tokenizer: "approximate"`): GPT-style pre-tokenization (words
with their leading space, digit runs of up to 3, punctuation runs), then words longer than 4 characters
cut into 4-character pieces (English averages ~4 characters per BPE token). Each piece gets a stable id
(CRC-32 mod 100,000), so equal text prefixes give equal id prefixes, which is all prefix caching needs.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

APPROXIMATE = "approximate"
PIECE_CHARS = 4
VOCAB = 100_000
_PRETOKENIZE = re.compile(r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d{1,3}| ?[^\s\w]+|\s+(?!\S)|\s+")


@dataclass(frozen=True)
class Tokenized:
    ids: list[int]
    pieces: list[str]
    tokenizer: str


def approximate_tokenize(text: str) -> Tokenized:
    pieces: list[str] = []
    for word in _PRETOKENIZE.findall(text):
        if len(word) <= PIECE_CHARS + 1:
            pieces.append(word)
        else:
            pieces.extend(word[i:i + PIECE_CHARS] for i in range(0, len(word), PIECE_CHARS))
    ids = [zlib.crc32(piece.encode("utf-8")) % VOCAB for piece in pieces]
    return Tokenized(ids, pieces, APPROXIMATE)


def client_tokens(ids: list[int], tokenizer: str | None) -> Tokenized:
    name = f"{tokenizer} (client)" if tokenizer else "client"
    return Tokenized(list(ids), [], name)
