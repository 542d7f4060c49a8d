"""What participants read: consent, instructions, question wording and answer labels.

The wording of the questions and of the familiarity options follows the instruments of
Chang et al. 2009 (§3) and Hoyle et al. 2021 (Fig. 1 and Fig. 4), so that responses are
comparable with theirs; the consent text and the instructions are our own, written after
Hoyle et al.'s Fig. 5 (task instructions) and Fig. 6 (what the corpus is). Every text can be
replaced per study (``create_study(consent=..., instructions=..., corpus_description=...)``);
texts are plain text with blank lines between paragraphs.
"""

from __future__ import annotations

QUESTIONS: dict[str, str] = {
    "word-intrusion": "Which word does not belong with the others?",
    "topic-intrusion": "Which group of words does not belong with this document?",
    "rating": "How related are these words to each other?",
}

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

INSTRUCTIONS: dict[str, str] = {
    "word-intrusion": """\
A computer program has grouped words that it thinks belong together. We mixed one word \
that does not belong into each group. Your task is to find it.

For each group, pick the word whose meaning is least like that of the other words. If \
several words seem out of place, pick the one that seems most out of place.

Judge the words by what they mean, not by how they are spelled or pronounced, nor by \
their grammar. For example, in "banana, cherry, hammer, mango, plum, lemon" the odd one \
out is "hammer": all the other words are fruit. Sometimes the answer is less obvious: in \
"keyboard, mouse, monitor, printer, sofa, scanner" the odd one out is "sofa".

Then tell us how familiar the words were to you. It is fine not to know every word.""",
    "topic-intrusion": """\
A computer program has described documents by groups of words, each group standing for a \
theme it found in the collection. For each document you will see its title and its \
opening lines, followed by four groups of words. Three of the groups are the themes the \
program thinks the document is about; one group was added and does not fit the document.

Read the title and the text, then pick the group of words that belongs least with the \
document. Judge the words by their meaning, not by their spelling or grammar.""",
    "rating": """\
A computer program has grouped words that it thinks belong together. For each group, rate \
how related the words are to each other.

A helpful question to ask yourself is: "what is this group of words about?" If you can \
answer easily, the words are probably closely related.

- Very related: most of the words clearly belong together and it would be easy to say \
how, as in "violin, cello, viola, bow, strings, orchestra" (string instruments).
- Somewhat related: the words are loosely connected, but a few are vague, generic or \
unrelated, as in "phone, screen, new, charger, model, battery".
- Not very related: the words share no obvious connection and it would be hard to say \
what they have in common, as in "river, stapler, jazz, onion, passport".

Then tell us how familiar the words were to you. It is fine not to know every word.""",
}

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
