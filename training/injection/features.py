"""The injection detector's features, exactly as src/policy/injection.ts computes them.

A text is normalized (NFKC, zero-width characters and soft hyphens removed, lower case, white
space squashed), then read as word unigrams and bigrams (runs of letters and digits) and character
3- to 5-grams over the normalized text padded with one space each side. Every feature is hashed
(FNV-1a, 32 bits, over its code points, after a one-letter kind prefix) into `buckets` slots; a
text's vector holds the count per slot divided by the square root of the number of features it
has (so a text's length does not set its score; the product sums weights without grouping slots).
"""
import re
import unicodedata

import numpy as np
from scipy.sparse import csr_matrix

FNV_OFFSET = 0x811C9DC5
FNV_PRIME = 0x01000193
INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
SPACE = re.compile(r"\s+")
CHAR_NGRAMS = (3, 4, 5)


def normalize(text: str) -> str:
    return SPACE.sub(" ", INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).lower()).strip()


def words(normalized: str) -> list[str]:
    out, cur = [], []
    for ch in normalized:
        if ch.isalpha() or ch.isnumeric():
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def fnv(h: int, s: str) -> int:
    for ch in s:
        h = ((h ^ ord(ch)) * FNV_PRIME) & 0xFFFFFFFF
    return h


def slots(text: str, buckets: int) -> dict[int, int]:
    mask = buckets - 1
    counts: dict[int, int] = {}

    def add(h: int) -> None:
        counts[h & mask] = counts.get(h & mask, 0) + 1

    t = normalize(text)
    ws = words(t)
    w0, b0, c0 = fnv(FNV_OFFSET, "w"), fnv(FNV_OFFSET, "b"), fnv(FNV_OFFSET, "c")
    for w in ws:
        add(fnv(w0, w))
    for a, b in zip(ws, ws[1:]):
        add(fnv(b0, a + " " + b))
    padded = [ord(ch) for ch in " " + t + " "]
    lo, hi = min(CHAR_NGRAMS), max(CHAR_NGRAMS)
    for i in range(len(padded) - lo + 1):
        h = c0
        for k in range(hi):
            if i + k >= len(padded):
                break
            h = ((h ^ padded[i + k]) * FNV_PRIME) & 0xFFFFFFFF
            if k + 1 >= lo:
                add(h)
    return counts


def matrix(texts: list[str], buckets: int) -> csr_matrix:
    data, indices, indptr = [], [], [0]
    for text in texts:
        counts = slots(text, buckets)
        norm = float(np.sqrt(sum(counts.values()))) or 1.0
        for j, c in sorted(counts.items()):
            indices.append(j)
            data.append(c / norm)
        indptr.append(len(indices))
    return csr_matrix((np.array(data, dtype=np.float64), np.array(indices), np.array(indptr)), shape=(len(texts), buckets))
