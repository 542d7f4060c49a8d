"""A small Wikipedia sample generated from real English text (the built-in State of the Union
paragraphs): articles with wikitext markup, written as a MediaWiki XML dump (with a redirect,
a disambiguation page and a page outside the article namespace) and as WikiExtractor output
(JSON lines or ``<doc>`` blocks). Used by the tests and by ``benchmarks/scale.py``."""

from __future__ import annotations

import bz2
import html
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from tealeaves.corpus.formats import read_inputs

NS = "http://www.mediawiki.org/xml/export-0.10/"


@dataclass(frozen=True)
class Article:
    id: str
    title: str
    paragraphs: tuple[str, ...]

    def wikitext(self) -> str:
        """The article as wikitext: an infobox, a link, a reference, a table, a file, a category."""
        first, *rest = self.paragraphs
        words = first.split(" ")
        words[0] = f"[[{words[0]} (word)|{words[0]}]]"
        linked = " ".join(words)
        body = "\n\n".join(rest)
        return (
            f"{{{{Infobox address|year={self.title}|speaker=unknown}}}}\n"
            f"'''{self.title}''' {linked}<ref>{{{{cite web|url=http://example.org|title=Source}}}}</ref>\n\n"
            f"== Text ==\n{body}\n\n"
            '{| class="wikitable"\n|-\n| tablecell || tablecell\n|}\n'
            "[[File:Seal.svg|thumb|imagecaption]]\n[[Category:Addresses]]\n[[de:Ansprache]]\n{{US-stub}}\n"
        )

    def plain_text(self) -> str:
        """What WikiExtractor writes for the article: its paragraphs, the title first."""
        return "\n\n".join(self.paragraphs)


def sample_articles(n: int, paragraphs_per_article: int = 4) -> list[Article]:
    """``n`` articles of consecutive State of the Union paragraphs."""
    docs = read_inputs(["builtin:sotu"])
    articles = []
    for i in range(n):
        group = list(itertools.islice(docs, paragraphs_per_article))
        articles.append(Article(str(1000 + i), f"Address {i}", tuple(d.text for d in group)))
    return articles


def _page(title: str, page_id: str, text: str, ns: int = 0, redirect: str | None = None) -> str:
    redirect_tag = f'<redirect title="{html.escape(redirect)}" />' if redirect else ""
    return (
        f"<page><title>{html.escape(title)}</title><ns>{ns}</ns><id>{page_id}</id>{redirect_tag}"
        f'<revision><id>9{page_id}</id><text xml:space="preserve">{html.escape(text)}</text></revision></page>\n'
    )


def write_dump(path: Path, articles: list[Article]) -> Path:
    """A ``pages-articles`` XML dump (bzip2 when ``path`` ends in ``.bz2``) of the articles, with
    a redirect, a disambiguation page and a talk page mixed in."""
    pages = [f'<mediawiki xmlns="{NS}" version="0.10" xml:lang="en">\n<siteinfo><sitename>Test</sitename></siteinfo>\n']
    for i, article in enumerate(articles):
        pages.append(_page(article.title, article.id, article.wikitext()))
        if i == 1:
            pages.append(_page("Addr 0", "2", "#REDIRECT [[Address 0]]", redirect="Address 0"))
            pages.append(_page("Address", "3", "'''Address''' may refer to:\n* [[Address 0]]\n{{disambiguation}}"))
            pages.append(_page("Talk:Address 0", "4", " ".join(["talk"] * 40), ns=1))
    pages.append("</mediawiki>\n")
    data = "".join(pages).encode("utf-8")
    path.write_bytes(bz2.compress(data) if path.name.endswith(".bz2") else data)
    return path


def write_wikiextractor(folder: Path, articles: list[Article], as_json: bool = True, per_file: int = 100) -> Path:
    """WikiExtractor output: ``folder/AA/wiki_00``, ``wiki_01``, ... of ``per_file`` articles each."""
    (folder / "AA").mkdir(parents=True, exist_ok=True)
    for f in range(0, len(articles), per_file):
        lines = []
        for a in articles[f : f + per_file]:
            url = f"https://en.wikipedia.org/wiki?curid={a.id}"
            if as_json:
                lines.append(
                    json.dumps({"id": a.id, "revid": "9" + a.id, "url": url, "title": a.title, "text": a.plain_text()})
                )
            else:
                lines.append(
                    f'<doc id="{a.id}" url="{url}" title="{html.escape(a.title)}">\n{a.title}\n\n{a.plain_text()}\n</doc>'
                )
        (folder / "AA" / f"wiki_{f // per_file:02d}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder
