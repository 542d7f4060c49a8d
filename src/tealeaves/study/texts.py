"""What participants read of every task: consent, familiarity and rating labels, and how texts are set.

Each task's question and default instructions are in its module (:mod:`tealeaves.study.tasks`).
The wording of the questions, of the familiarity options and of the rating labels follows the
instruments of Chang et al. 2009 (§3) and Hoyle et al. 2021 (Fig. 1 and Fig. 4), so that
responses are comparable with theirs; the consent text and the instructions are our own, written
after Hoyle et al.'s Fig. 5 (task instructions) and Fig. 6 (what the corpus is). Every text can be
replaced per study (``create_study(consent=..., instructions=..., corpus_description=...)``);
texts are plain text with blank lines between paragraphs.
"""

from __future__ import annotations

FAMILIARITY: dict[int, str] = {
    1: "I am familiar with most of these terms.",
    2: "I am not familiar with most of these terms, but I can answer confidently.",
    3: "I am not familiar with most of these terms, and so I cannot answer confidently.",
}
"""Hoyle et al. 2021, Fig. 1: the answer-confidence question asked with every item."""

RATING_LABELS: dict[int, dict[int, str]] = {
    3: {3: "Very related", 2: "Somewhat related", 1: "Not very related"},
    5: {
        5: "Very closely related",
        4: "Closely related",
        3: "Somewhat related",
        2: "Slightly related",
        1: "Not related at all",
    },
}
"""Rating scales, highest first as shown: 3-point (Newman et al. 2010; Hoyle et al. Fig. 4) or 5-point."""

CONSENT = """\
This study is part of research on how people read the output of computer programs that \
summarise large collections of text. You will be shown short lists of words and asked a \
simple question about each list. There are no right or wrong answers; we are interested in \
your own judgement.

Taking part is voluntary and you may stop at any time by closing this page. We record your \
answers, how long each answer took and, if you came from a recruitment platform, the \
identifiers it passes to us, so that you can be paid. We publish only anonymised data: your \
platform identifier is replaced by a code that cannot be traced back to you.

By continuing you confirm that you are at least 18 years old, that you have read this \
information, and that you agree to take part."""

CORPUS_DESCRIPTION = ""
"""Shown under the instructions when given: what the texts were (Hoyle et al. 2021, Fig. 6)."""

ANSWER_LABEL = "The answer the computer program built into this question"
"""Heading of the model's answer, shown after responding when the study enables it (Chang et al. §3)."""


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """Split plain text into blocks for rendering: ``("p", [text])`` or ``("ul", [items])``.

    Paragraphs are separated by blank lines; a paragraph whose lines start with ``- `` is a
    bulleted list (an item may continue on the following lines).
    """
    out: list[tuple[str, list[str]]] = []
    for block in text.split("\n\n"):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        if not lines:
            continue
        if lines[0].startswith("- "):
            items: list[str] = []
            for line in lines:
                if line.startswith("- "):
                    items.append(line[2:].strip())
                else:
                    items[-1] += " " + line
            out.append(("ul", items))
        else:
            out.append(("p", [" ".join(lines)]))
    return out
