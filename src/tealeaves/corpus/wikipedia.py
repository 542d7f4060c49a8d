"""Wikipedia as a reference corpus: the raw XML dump and WikiExtractor's output, streamed.

Two input formats of :mod:`tealeaves.corpus.formats` live here:

``wikipedia-xml``
    A ``pages-articles*.xml.bz2`` dump (or its parts, ``pages-articles1.xml-p1p41242.bz2``,
    ..., bzip2-compressed, gzip-compressed or plain), read with :func:`xml.etree.ElementTree.iterparse`
    one ``<page>`` at a time, so memory does not grow with the dump. Which pages become
    documents follows WikiExtractor, the tool behind the usual Wikipedia reference corpora,
    run with its ``--filter_disambig_pages`` option: only articles (namespace 0); redirects (a ``<redirect>`` element or ``#REDIRECT`` text)
    are skipped, since they hold no text of their own; disambiguation pages (a title ending in
    ``(disambiguation)`` or a disambiguation template such as ``{{disambiguation}}``,
    ``{{dab}}``, ``{{hndis}}``, ``{{geodis}}``) are skipped, since they are lists of links, not
    prose. Stub articles are kept like any other article (their ``{{...-stub}}`` template goes
    with the rest of the markup); Hoyle et al. 2021's document rule (A.2: documents under 25
    whitespace-separated words are not processed) then drops the shortest, as it does for
    their 4.6M-document September 2017 dump. The skipped pages are counted in the corpus
    manifest (``preprocessing.read.skipped``). Markup is stripped by
    :func:`strip_wikitext` (mwparserfromhell): templates, references, tables, galleries,
    math, file, category and interlanguage links are dropped; links keep their text;
    headings and list items keep their words.

``wikiextractor``
    The output of WikiExtractor (``python -m wikiextractor.WikiExtractor``): a folder of
    ``wiki_00``, ``wiki_01``, ... files (``AA/``, ``AB/``, ... below it; ``.bz2`` with ``-c``),
    each either JSON lines (``--json``: ``id``, ``title``, ``text``, ``url``, ``revid``) or
    ``<doc id="…" url="…" title="…">`` blocks, whose first line (the title again) is dropped.
    Its pages are taken as WikiExtractor selected them.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tealeaves.corpus.readers import FieldNames, RawDocument, ReadStats, iter_lines, open_binary, read_jsonl
from tealeaves.errors import InputError, MissingDependencyError

DISAMBIGUATION_TEMPLATES = frozenset(
    {
        "disambiguation",
        "disambig",
        "disamb",
        "dab",
        "hndis",
        "geodis",
        "numberdis",
        "mathdab",
        "schooldis",
        "letter-number combination disambiguation",
    }
)
_TEMPLATE_NAME = re.compile(r"\{\{\s*([^|{}]+?)\s*(?:\||\}\})")
_REDIRECT = re.compile(r"^\s*#redirect\b", re.IGNORECASE)
# tags whose content is not prose (references, tables, formulas, galleries, code, ...)
_DROPPED_TAGS = frozenset(
    {"ref", "references", "table", "gallery", "math", "chem", "ce", "score", "timeline", "syntaxhighlight", "source"}
)
_DROPPED_LINK_NAMESPACES = frozenset({"file", "image", "media", "category"})
_INTERLANGUAGE = re.compile(r"^:?[a-z]{2,3}(?:-[a-z]+)*$")
_DOC_START = re.compile(r"^<doc\s+(.*?)>\s*$")
_DOC_ATTR = re.compile(r'(\w+)="(.*?)"')
_BLANK_LINES = re.compile(r"\n\s*\n+")


def is_disambiguation(title: str, wikitext: str) -> bool:
    """Whether a page is a disambiguation page: by its title or a disambiguation template.

    Parameters
    ----------
    title : str
        The page title; one ending in ``(disambiguation)`` is one.
    wikitext : str
        The page's wikitext; a template of :data:`DISAMBIGUATION_TEMPLATES` (any case, ``_``
        for spaces) or one whose name ends in ``disambiguation`` makes it one.

    Returns
    -------
    bool

    Examples
    --------
    >>> from tealeaves.corpus.wikipedia import is_disambiguation
    >>> is_disambiguation("Mercury (disambiguation)", ""), is_disambiguation("Mercury", "may refer to: {{Dab}}")
    (True, True)
    >>> is_disambiguation("Tea", "{{Infobox drink}} '''Tea''' is a drink.")
    False
    """
    if title.rstrip().endswith("(disambiguation)"):
        return True
    for name in _TEMPLATE_NAME.findall(wikitext):
        name = " ".join(name.replace("_", " ").lower().split())
        if name in DISAMBIGUATION_TEMPLATES or name.endswith(" disambiguation"):
            return True
    return False


def strip_wikitext(wikitext: str) -> str:
    """Plain text of an article's wikitext (see the module docstring for what is dropped).

    Uses mwparserfromhell (``pip install 'tealeaves[wikipedia]'``).

    Parameters
    ----------
    wikitext : str
        An article's wikitext.

    Returns
    -------
    str
        Its prose: paragraphs separated by one blank line, entities unescaped.

    Raises
    ------
    MissingDependencyError
        When mwparserfromhell is not installed.

    Examples
    --------
    Links keep their text; the reference, the template and the category link go:

    >>> from tealeaves.corpus.wikipedia import strip_wikitext
    >>> strip_wikitext(
    ...     "'''Tea''' is a [[drink]] made from [[Camellia sinensis|tea plant]] leaves.<ref>Source</ref>"
    ...     " {{Infobox drink}} [[Category:Drinks]]"
    ... )
    'Tea is a drink made from tea plant leaves.'
    """
    try:
        import mwparserfromhell
    except ImportError as exc:
        raise MissingDependencyError(
            "mwparserfromhell is not installed: run `pip install 'tealeaves[wikipedia]'` to read Wikipedia dumps"
        ) from exc
    code = mwparserfromhell.parse(wikitext)
    doomed: list[Any] = []
    for node in code.filter(recursive=True):
        tag = isinstance(node, mwparserfromhell.nodes.Tag) and str(node.tag).strip().lower() in _DROPPED_TAGS
        if tag or (isinstance(node, mwparserfromhell.nodes.Wikilink) and _dropped_link(str(node.title))):
            doomed.append(node)
    for node in doomed:
        with contextlib.suppress(ValueError):  # inside a node removed already
            code.remove(node)
    text = code.strip_code(normalize=True, collapse=True)
    text = html.unescape(text)
    return _BLANK_LINES.sub("\n\n", "\n".join(line.strip() for line in text.splitlines())).strip()


def _dropped_link(title: str) -> bool:
    prefix, colon, _ = title.strip().lstrip(":").partition(":")
    if not colon:
        return False
    prefix = prefix.strip().lower()
    return prefix in _DROPPED_LINK_NAMESPACES or bool(_INTERLANGUAGE.match(prefix))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def iter_dump_pages(path: Path, stats: ReadStats) -> Iterator[RawDocument]:
    """The articles of a MediaWiki XML dump with their raw wikitext, one page at a time.

    Skipped pages are counted in ``stats.skipped`` (``namespace``, ``redirect``,
    ``disambiguation``). The wikitext is not stripped: :func:`strip_wikitext` does that.

    Parameters
    ----------
    path : Path
        A ``pages-articles`` XML dump, plain or compressed (``.bz2``, ``.gz``).
    stats : ReadStats
        Counts the file and the pages skipped, by reason.

    Yields
    ------
    RawDocument
        An article: its page id, title and wikitext.

    Raises
    ------
    InputError
        When the file is not a MediaWiki dump, is not valid XML or holds no page.

    Examples
    --------
    A dump of an article, a redirect, a disambiguation page and a talk page (namespace 1):

    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "pages-articles.xml"
    >>> pages = [
    ...     ("1", "0", "Tea", "'''Tea''' is a [[drink]] made from [[Camellia sinensis|tea plant]] leaves."),
    ...     ("2", "0", "Chai", "#REDIRECT [[Tea]]"),
    ...     ("3", "0", "Mercury", "'''Mercury''' may refer to: {{disambiguation}}"),
    ...     ("4", "1", "Talk:Tea", "A question."),
    ... ]
    >>> with open(path, "w") as handle:
    ...     print("<mediawiki>", file=handle)
    ...     for id, ns, title, text in pages:
    ...         print(f"<page><title>{title}</title><ns>{ns}</ns><id>{id}</id>", file=handle)
    ...         print(f"<revision><text>{text}</text></revision></page>", file=handle)
    ...     print("</mediawiki>", file=handle)
    >>> from tealeaves.corpus.readers import ReadStats
    >>> from tealeaves.corpus.wikipedia import iter_dump_pages
    >>> stats = ReadStats()
    >>> [(page.id, page.title) for page in iter_dump_pages(path, stats)]
    [('1', 'Tea')]
    >>> sorted(stats.skipped.items())
    [('disambiguation', 1), ('namespace', 1), ('redirect', 1)]
    >>> tmp.cleanup()
    """
    import xml.etree.ElementTree as ET

    stats.files += 1
    with open_binary(path) as handle:
        root = None
        pages = 0
        try:
            for event, elem in ET.iterparse(handle, events=("start", "end")):
                if root is None:
                    root = elem
                    if _local(root.tag) != "mediawiki":
                        raise InputError(f"{path} is not a MediaWiki XML dump (its root is <{_local(root.tag)}>)")
                if event != "end" or _local(elem.tag) != "page":
                    continue
                pages += 1
                doc = _page_document(elem, stats)
                root.clear()  # drop the pages read so far
                if doc is not None:
                    yield doc
        except ET.ParseError as exc:
            raise InputError(f"{path} is not valid XML ({exc}); is the dump complete?") from exc
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot read {path}: {exc}; is the file complete?") from exc
    if pages == 0:
        raise InputError(f"{path} holds no <page> elements; is it a pages-articles dump?")


def _page_document(page: Any, stats: ReadStats) -> RawDocument | None:
    fields: dict[str, Any] = {}
    redirect = False
    for child in page.iter():
        name = _local(child.tag)
        if name == "redirect":
            redirect = True
        elif name in ("title", "ns") and name not in fields:
            fields[name] = child.text or ""
        elif name == "id" and "id" not in fields:  # the page id comes before the revision's
            fields["id"] = child.text or ""
        elif name == "text":
            fields["text"] = child.text or ""
    title, text = fields.get("title", ""), fields.get("text", "")
    reason = None
    if fields.get("ns", "0").strip() != "0":
        reason = "namespace"
    elif redirect or _REDIRECT.match(text):
        reason = "redirect"
    elif is_disambiguation(title, text):
        reason = "disambiguation"
    if reason is not None:
        stats.skipped[reason] = stats.skipped.get(reason, 0) + 1
        return None
    return RawDocument(id=fields.get("id", title), title=title, text=text, meta={})


def read_dump(path: Path, fields: FieldNames, stats: ReadStats, keep_markup: bool = False) -> Iterator[RawDocument]:
    """The ``wikipedia-xml`` reader: the articles of a dump as plain text (``keep_markup``: wikitext).

    Parameters
    ----------
    path : Path
        A ``pages-articles`` XML dump, plain or compressed.
    fields : FieldNames
        Unused (a dump's fields are fixed); every reader takes it.
    stats : ReadStats
        Counts the file and the pages skipped, by reason.
    keep_markup : bool, default False
        Keep the wikitext, for :func:`strip_wikitext` to run later (on the workers of a
        sharded preparation).

    Yields
    ------
    RawDocument
        An article (see :func:`iter_dump_pages`), its text stripped by :func:`strip_wikitext`.

    Examples
    --------
    A dump of an article, a redirect, a disambiguation page and a talk page (namespace 1):

    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "pages-articles.xml"
    >>> pages = [
    ...     ("1", "0", "Tea", "'''Tea''' is a [[drink]] made from [[Camellia sinensis|tea plant]] leaves."),
    ...     ("2", "0", "Chai", "#REDIRECT [[Tea]]"),
    ...     ("3", "0", "Mercury", "'''Mercury''' may refer to: {{disambiguation}}"),
    ...     ("4", "1", "Talk:Tea", "A question."),
    ... ]
    >>> with open(path, "w") as handle:
    ...     print("<mediawiki>", file=handle)
    ...     for id, ns, title, text in pages:
    ...         print(f"<page><title>{title}</title><ns>{ns}</ns><id>{id}</id>", file=handle)
    ...         print(f"<revision><text>{text}</text></revision></page>", file=handle)
    ...     print("</mediawiki>", file=handle)
    >>> from tealeaves.corpus.readers import FieldNames, ReadStats
    >>> from tealeaves.corpus.wikipedia import read_dump
    >>> [(page.title, page.text) for page in read_dump(path, FieldNames(), ReadStats())]
    [('Tea', 'Tea is a drink made from tea plant leaves.')]
    >>> tmp.cleanup()
    """
    for doc in iter_dump_pages(path, stats):
        if not keep_markup:
            doc.text = strip_wikitext(doc.text)
        yield doc


def wikiextractor_files(path: Path) -> list[Path]:
    """WikiExtractor's output files below a folder (``wiki_NN``, ``.bz2``/``.gz`` too), in order."""
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.rglob("wiki_*") if p.is_file() and _is_wikiextractor_name(p.name))
    if not files:
        raise InputError(f"folder {path} holds no WikiExtractor files (wiki_00, wiki_01, ...)")
    return files


def _is_wikiextractor_name(name: str) -> bool:
    return re.fullmatch(r"wiki_\d+(\.json)?(\.bz2|\.gz)?", name) is not None


def read_wikiextractor(path: Path, fields: FieldNames, stats: ReadStats) -> Iterator[RawDocument]:
    """The ``wikiextractor`` reader: every file of a WikiExtractor output folder (or one file).

    Parameters
    ----------
    path : Path
        A folder of ``wiki_NN`` files (in ``AA/``, ``AB/``, ... below it), or one such file.
    fields : FieldNames
        The fields of JSON-lines output (``--json``): ``text``, and ``title`` and ``id`` by
        default.
    stats : ReadStats
        Counts the files read and the documents with invalid UTF-8.

    Yields
    ------
    RawDocument
        A page as WikiExtractor wrote it; the ``<doc>`` attributes other than id and title
        (``url``) go to ``meta``.

    Raises
    ------
    InputError
        For a folder without ``wiki_NN`` files, or a file that is neither JSON lines nor
        ``<doc>`` blocks.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus.readers import FieldNames, ReadStats
    >>> from tealeaves.corpus.wikipedia import read_wikiextractor
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name) / "extracted"
    >>> (folder / "AA").mkdir(parents=True)
    >>> with open(folder / "AA" / "wiki_00", "w") as handle:
    ...     print('<doc id="1" url="https://en.wikipedia.org/wiki?curid=1" title="Tea">', file=handle)
    ...     for line in ["Tea", "", "Tea is a drink.", "</doc>"]:
    ...         print(line, file=handle)
    >>> list(read_wikiextractor(folder, FieldNames(), ReadStats()))  # the title line is dropped
    [RawDocument(id='1', title='Tea', text='Tea is a drink.', meta={'url': 'https://en.wikipedia.org/wiki?curid=1'})]
    >>> tmp.cleanup()
    """
    for file in wikiextractor_files(path):
        with open_binary(file) as handle:
            head = handle.read(256).lstrip()
        if head.startswith(b"{"):
            yield from read_jsonl(file, fields, stats)
        elif head.startswith(b"<doc") or not head:
            yield from _read_doc_blocks(file, stats)
        else:
            raise InputError(
                f"{file} is neither WikiExtractor JSON lines nor <doc> blocks; check the path or format=<the input format>"
            )


def _read_doc_blocks(path: Path, stats: ReadStats) -> Iterator[RawDocument]:
    attrs: dict[str, str] | None = None
    lines: list[str] = []
    start = 0
    for number, line in iter_lines(path, stats):
        if attrs is None:
            match = _DOC_START.match(line)
            if match:
                attrs, lines, start = dict(_DOC_ATTR.findall(match.group(1))), [], number
            elif line.strip():
                raise InputError(
                    f"{path}:{number}: text outside a <doc> ... </doc> block; is this WikiExtractor output?"
                )
        elif line.strip() == "</doc>":
            title = html.unescape(attrs.get("title", ""))
            if lines and lines[0].strip() == title:
                lines = lines[1:]
            doc_id = attrs.get("id", f"{path.name}:{start}")
            meta = {k: html.unescape(v) for k, v in attrs.items() if k not in ("id", "title")}
            yield RawDocument(id=doc_id, title=title or doc_id, text="\n".join(lines).strip(), meta=meta)
            attrs = None
        else:
            lines.append(line)
    if attrs is not None:
        raise InputError(
            f"{path}: the <doc> opened at line {start} is never closed with </doc>; is the file truncated?"
        )
