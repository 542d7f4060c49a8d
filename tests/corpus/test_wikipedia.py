"""Wikipedia inputs: the XML dump (streamed, page rules, markup stripped) and WikiExtractor output."""

from __future__ import annotations

import bz2

import pytest

from tealeaves.corpus.formats import detect_format, read_inputs
from tealeaves.corpus.readers import ReadStats
from tealeaves.corpus.wikipedia import is_disambiguation, strip_wikitext
from tealeaves.errors import InputError
from tests.corpus.wikisample import Article, sample_articles, write_dump, write_wikiextractor


@pytest.fixture(scope="module")
def articles():
    return sample_articles(6)


def read(*inputs, **kwargs):
    stats = ReadStats()
    return list(read_inputs(list(inputs), stats=stats, **kwargs)), stats


def expected_dump_text(article: Article) -> str:
    # the bold title and the linked first word stay; the heading keeps its word; everything else goes
    return f"{article.title} {article.paragraphs[0]}\n\nText\n" + "\n\n".join(article.paragraphs[1:])


@pytest.mark.parametrize("name", ["enwiki-pages-articles.xml.bz2", "enwiki-pages-articles1.xml-p1p41242.bz2", "x.xml"])
def test_dump_articles_only_markup_stripped(tmp_path, articles, name):
    path = write_dump(tmp_path / name, articles)
    assert detect_format(path) == "wikipedia-xml"
    docs, stats = read(path)
    assert [(d.id, d.title) for d in docs] == [(a.id, a.title) for a in articles]
    assert [d.text for d in docs] == [expected_dump_text(a) for a in articles]
    assert stats.as_dict() == {
        "files": 1,
        "documents": len(articles),
        "decode_errors": 0,
        "skipped": {"disambiguation": 1, "namespace": 1, "redirect": 1},
    }


def test_dump_keeps_wikitext_when_asked(tmp_path, articles):
    docs, _ = read(write_dump(tmp_path / "d.xml.bz2", articles), keep_markup=True)
    assert [d.text for d in docs] == [a.wikitext() for a in articles]
    assert [strip_wikitext(d.text) for d in docs] == [expected_dump_text(a) for a in articles]


def test_markup_stripping_details():
    text = (
        "{{Infobox|x=1}}A '''bold''' [[Paris|city]] and [[Lyon]].<ref name=a>gone</ref><ref name=a/> "
        "<math>x^2</math>[[Image:a.png|thumb|gone too]] &amp; [[:Category:Gone]] [[fr:Gone]] "
        "{{convert|3|km}}\n* item one\n\n\n\n== Head ==\nEnd."
    )
    assert strip_wikitext(text) == "A bold city and Lyon.  &\nitem one\n\nHead\nEnd."


@pytest.mark.parametrize(
    ("title", "text", "expected"),
    [
        ("Mercury (disambiguation)", "x", True),
        ("Mercury", "'''Mercury''' may be:\n{{Disambiguation|geo}}", True),
        ("Smith", "{{ hndis | name=Smith }}", True),
        ("Springfield", "{{geodis}}", True),
        ("Apple", "{{Dab}}", True),
        ("Xyz", "{{Letter-number combination disambiguation}}", True),
        ("Mercury", "{{Infobox planet}} {{Other uses|Mercury (disambiguation)}}", False),
        ("Stub", "Short. {{Sci-stub}}", False),
    ],
)
def test_disambiguation_pages(title, text, expected):
    assert is_disambiguation(title, text) is expected


@pytest.mark.parametrize("as_json", [True, False])
def test_wikiextractor_folder(tmp_path, articles, as_json):
    folder = write_wikiextractor(tmp_path / "text", articles, as_json=as_json, per_file=4)
    assert detect_format(folder) == "wikiextractor"
    assert detect_format(folder / "AA" / "wiki_01") == "wikiextractor"
    docs, stats = read(folder)
    assert [(d.id, d.title, d.text) for d in docs] == [(a.id, a.title, a.plain_text()) for a in articles]
    assert docs[0].meta["url"] == "https://en.wikipedia.org/wiki?curid=1000"
    assert stats.files == 2 and stats.documents == len(articles)


def test_wikiextractor_compressed_files(tmp_path, articles):
    folder = write_wikiextractor(tmp_path / "text", articles, as_json=False, per_file=3)
    for file in (folder / "AA").iterdir():
        file.with_name(file.name + ".bz2").write_bytes(bz2.compress(file.read_bytes()))
        file.unlink()
    docs, _ = read(folder)
    assert [d.text for d in docs] == [a.plain_text() for a in articles]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'<doc id="1" title="A">\nA\ntext\n', "never closed"),
        (b"stray text\n", "neither WikiExtractor JSON lines nor <doc> blocks"),
    ],
)
def test_bad_wikiextractor_files(tmp_path, content, message):
    (tmp_path / "wiki_00").write_bytes(content)
    with pytest.raises(InputError, match=message):
        read(tmp_path / "wiki_00")


def test_bad_dumps(tmp_path, articles):
    whole = bz2.compress(write_dump(tmp_path / "d.xml", articles).read_bytes())
    (tmp_path / "cut.xml.bz2").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match=r"cut\.xml\.bz2"):
        read(tmp_path / "cut.xml.bz2", format="wikipedia-xml")
    (tmp_path / "other.xml").write_text("<root><page/></root>")
    with pytest.raises(InputError, match="not a MediaWiki XML dump"):
        read(tmp_path / "other.xml", format="wikipedia-xml")
    (tmp_path / "empty.xml").write_text(f'<mediawiki xmlns="{"x"}"></mediawiki>')
    with pytest.raises(InputError, match="no <page> elements"):
        read(tmp_path / "empty.xml", format="wikipedia-xml")
