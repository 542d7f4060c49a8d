"""Every preprocessing rule of Hoyle et al. 2021 A.2 on crafted text, and the manifest counts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import spacy

from tealeaves.corpus import PreprocessConfig, min_df_threshold, prepare
from tealeaves.errors import EmptyResultError, InputError, MissingDependencyError

LOOSE = {"min_doc_words": 0, "min_doc_tokens": 0, "min_df": 1, "max_df": 1.0}


def write_jsonl(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    return path


def words_of(corpus, i=0):
    return [corpus.vocab.word(t) for t in corpus.doc(i)]


@pytest.fixture
def corpus_of(tmp_path):
    def make(texts, **rules):
        return prepare(write_jsonl(tmp_path / "docs.jsonl", texts), **{**LOOSE, **rules})

    return make


def test_min_df_formula_matches_the_paper():
    assert min_df_threshold(50) == pytest.approx(2.0, abs=1e-12)
    assert min_df_threshold(500_000) == pytest.approx(2 * 10_000 ** (1 / math.log(10)), rel=1e-12)
    assert 105 < min_df_threshold(500_000) < 115  # "about 110" (Hoyle et al. footnote 24)
    assert PreprocessConfig().min_df_count(50) == pytest.approx(2.0)


def test_lowercase_no_lemmatization_and_spacy_tokenization(corpus_of):
    corpus = corpus_of(["Running dogs RAN quickly; cats' houses."], stopwords=None, min_chars=0)
    assert words_of(corpus) == ["running", "dogs", "ran", "quickly", "cats", "houses"]
    kept_case = corpus_of(["Running Dogs"], stopwords=None, lowercase=False)
    assert words_of(kept_case) == ["Running", "Dogs"]


def test_stopwords_spacy_list_and_none_and_file(corpus_of, tmp_path):
    text = "the government and whose treaty would become"
    assert words_of(corpus_of([text])) == ["government", "treaty"]
    assert words_of(corpus_of([text], stopwords=None)) == text.split()
    stop_file = tmp_path / "stop.txt"
    stop_file.write_text("government\ntreaty\n")
    assert words_of(corpus_of([text], stopwords=str(stop_file))) == ["the", "and", "whose", "would", "become"]


def test_stop_words_given_as_a_list_remove_what_the_same_file_removes_and_travel_with_vocab_from(tmp_path):
    # scikit-learn's stop_words=[...]: a list raised "expected str, bytes or os.PathLike object, not list"
    text = "the Government and whose treaty would become"
    stop_file = tmp_path / "stop.txt"
    stop_file.write_text("government\ntreaty\n")
    from_file = prepare(write_jsonl(tmp_path / "a.jsonl", [text]), stopwords=str(stop_file), **LOOSE)
    listed = prepare(write_jsonl(tmp_path / "b.jsonl", [text]), stopwords=["Treaty", "government"], **LOOSE)
    assert words_of(listed) == words_of(from_file) == ["the", "and", "whose", "would", "become"]
    assert listed.manifest["preprocessing"]["config"]["stopwords"] == ["government", "treaty"]
    other = prepare(write_jsonl(tmp_path / "c.jsonl", ["treaty the become"]), vocab_from=listed)
    assert words_of(other) == ["the", "become"]  # the source's stop words, read back from its manifest
    for wrong, message in [
        ([1, 2], "stopwords given as a list must be words"),
        (3, "stopwords must be 'spacy', None, a file of one word per line or a list of words; 3 is none"),
    ]:
        with pytest.raises(InputError, match=message):
            prepare(write_jsonl(tmp_path / "d.jsonl", [text]), stopwords=wrong, **LOOSE)


def test_min_chars_drops_two_characters_or_fewer(corpus_of):
    corpus = corpus_of(["ox cat ab abc a quartz"], stopwords=None)
    assert words_of(corpus) == ["cat", "abc", "quartz"]
    assert words_of(corpus_of(["ox cat ab"], stopwords=None, min_chars=2)) == ["ox", "cat", "ab"]


def test_token_pattern_needs_a_letter_and_only_word_characters_or_hyphens(corpus_of):
    # spaCy splits e-mail into e - mail; "-abc" and "--x" stay whole and match the pattern
    corpus = corpus_of(["1999 abc1 e-mail under_score $100 3.14 ---- x2y2 naïve -abc --x"], stopwords=None, min_chars=0)
    assert words_of(corpus) == ["abc1", "e", "mail", "under_score", "x2y2", "naïve", "-abc", "--x"]
    removed = corpus.manifest["preprocessing"]["tokens"]["token_pattern"]
    assert removed == 6  # 1999, -, $, 100, 3.14, ----


def test_max_df_drops_words_in_more_than_90_percent_of_documents(corpus_of):
    texts = [f"common word{i} extra{i % 2}" for i in range(10)]
    texts[0] = "word0 extra0 lonely"
    corpus = corpus_of(texts, max_df=0.9)
    assert "common" in corpus.vocab  # in 9 of 10 documents: not more than 90%
    texts[0] += " common"
    corpus = corpus_of(texts, max_df=0.9)
    assert "common" not in corpus.vocab
    tokens = corpus.manifest["preprocessing"]["tokens"]
    assert tokens["max_df"] == 10
    assert corpus.manifest["preprocessing"]["vocabulary"]["types_removed_max_df"] == 1
    assert "extra0" in corpus_of(texts, max_df=5).vocab and "extra0" not in corpus_of(texts, max_df=4).vocab


def test_min_df_auto_and_given(corpus_of):
    # 50 documents: the automatic threshold is exactly 2 documents
    texts = [f"shared{i % 25} unique{i} filler" for i in range(50)]
    corpus = corpus_of(texts, min_df="auto", max_df=1.0)
    assert corpus.manifest["preprocessing"]["vocabulary"]["min_df_threshold"] == pytest.approx(2.0)
    assert all(f"shared{i}" in corpus.vocab for i in range(25))
    assert not any(f"unique{i}" in corpus.vocab for i in range(50))
    assert corpus.manifest["preprocessing"]["tokens"]["min_df"] == 50
    assert corpus.manifest["preprocessing"]["vocabulary"]["types_removed_min_df"] == 50
    assert len(corpus_of(texts, min_df=3).vocab) == 1  # only "filler" is in 3 or more documents


def test_min_doc_words_skips_short_documents_before_processing(corpus_of):
    texts = ["one two three four", "alpha beta gamma delta epsilon zeta"]
    corpus = corpus_of(texts, min_doc_words=5)
    assert len(corpus) == 1 and corpus.ids == ["d1"]
    assert corpus.manifest["preprocessing"]["documents"]["min_doc_words"] == 1


def test_max_doc_words_truncates_by_whitespace_tokens(corpus_of):
    corpus = corpus_of(["alpha beta gamma delta epsilon zeta"], max_doc_words=3, stopwords=None)
    assert words_of(corpus) == ["alpha", "beta", "gamma"]
    assert corpus.manifest["preprocessing"]["documents"]["truncated"] == 1
    assert corpus.snippets[0].startswith("alpha beta gamma delta")  # the snippet keeps the original text


def test_min_doc_tokens_drops_documents_left_too_short(corpus_of):
    texts = ["the and of cat dog", "apple banana cherry damson elder fig grape"]
    corpus = corpus_of(texts, min_doc_tokens=5)
    assert corpus.ids == ["d1"]
    docs = corpus.manifest["preprocessing"]["documents"]
    assert docs["min_doc_tokens"] == 1 and docs["kept"] == 1
    assert corpus.manifest["preprocessing"]["tokens"]["min_doc_tokens"] == 2  # "cat", "dog"


def test_manifest_counts_add_up_to_the_input(corpus_of):
    texts = ["The cat sat on the mat with 3 dogs.", "A dog and a cat; the e-mail was 12 lines long."] * 3
    corpus = corpus_of(texts, min_df=2)
    tokens = corpus.manifest["preprocessing"]["tokens"]
    removed = sum(v for k, v in tokens.items() if k not in ("input", "kept"))
    assert tokens["input"] == removed + tokens["kept"]
    nlp = spacy.blank("en")
    assert tokens["input"] == sum(len([t for t in nlp(x) if not t.is_space]) for x in texts)
    assert tokens["kept"] == corpus.n_tokens


def test_vocabulary_is_sorted_and_identical_whatever_the_batching(corpus_of):
    texts = [f"zebra apple mango{i % 7} kiwi{i % 3}" for i in range(40)]
    corpus = corpus_of(texts)
    assert list(corpus.vocab) == sorted(corpus.vocab)


def test_vocab_from_processes_identically_with_a_fixed_vocabulary(tmp_path):
    train = prepare(write_jsonl(tmp_path / "a.jsonl", ["apple banana cherry"] * 3), **LOOSE)
    other = prepare(write_jsonl(tmp_path / "b.jsonl", ["Apple durian the banana fig"]), vocab_from=train)
    assert other.vocab == train.vocab
    assert words_of(other) == ["apple", "banana"]
    tokens = other.manifest["preprocessing"]["tokens"]
    assert tokens["not_in_vocabulary"] == 2 and tokens["stopwords"] == 1
    assert other.manifest["preprocessing"]["config"]["min_df"] == 1  # the source corpus' rules
    assert other.manifest["vocab_from"]["fingerprint"] == train.fingerprint()


def test_unknown_rule_and_bad_values_are_refused(corpus_of):
    with pytest.raises(InputError, match="unknown preprocessing rule"):
        corpus_of(["a b c"], min_df_share=3)
    # gensim's and scikit-learn's names, refused with ours
    for given, ours in [("no_below", "gensim's name for min_df"), ("no_above", "gensim's name for max_df")]:
        with pytest.raises(InputError, match=rf"^unknown preprocessing rule\(s\) {given} \({ours}\); known rules: "):
            corpus_of(["a b c"], **{given: 5})
    with pytest.raises(InputError, match=r"stop_words \(scikit-learn's name for stopwords\), tokeniser \(did you"):
        corpus_of(["a b c"], stop_words="english", tokeniser="spacy")
    with pytest.raises(InputError, match="min_df"):
        corpus_of(["a b c"], min_df="lots")
    with pytest.raises(InputError, match="max_df"):
        corpus_of(["a b c"], max_df=1.5)
    # Python's errors from inside before: re.compile's, a label split into letters, str.endswith's
    with pytest.raises(InputError, match=r"^token_pattern must be a regular expression, got 3$"):
        corpus_of(["a b c"], token_pattern=3)
    with pytest.raises(InputError, match=r"^entity_types must be a list of entity labels"):
        corpus_of(["a b c"], entity_types="ORG")
    with pytest.raises(InputError, match=r"^encoding must be a codec's name"):
        corpus_of(["a b c"], encoding=None)


def test_nothing_left_after_filtering_is_a_clear_error(corpus_of):
    with pytest.raises(EmptyResultError, match="no word type is left"):
        corpus_of(["the and of", "is it be"])
    # what each rule removed, in words (it printed the counts' dict)
    message = (
        r"^no word type is left .*: of the 2 types in the 2 training document\(s\), 2 are in more than 1.8 of them"
    )
    with pytest.raises(EmptyResultError, match=message):
        corpus_of(["tax war", "tax war"], max_df=0.9, min_df=1)
    with pytest.raises(EmptyResultError, match="fewer than 25"):
        corpus_of(["short text"], min_doc_words=25)


@pytest.fixture(scope="module")
def entity_pipeline(tmp_path_factory):
    """A real spaCy pipeline with named entities (an entity ruler), saved to disk."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "GPE", "pattern": "New York City"},
            {"label": "GPE", "pattern": "the United States of America"},
            {"label": "PERSON", "pattern": "Winston Churchill"},
            {"label": "DATE", "pattern": "next Tuesday"},
        ]
    )
    path = tmp_path_factory.mktemp("pipeline") / "ner"
    nlp.to_disk(path)
    return str(path)


def test_entities_are_merged_keeping_inner_stop_words(corpus_of, entity_pipeline):
    text = "Winston Churchill visited New York City and the United States of America next Tuesday"
    corpus = corpus_of([text], entities=entity_pipeline)
    assert words_of(corpus) == [
        "winston_churchill",
        "visited",
        "new_york_city",
        "united_states_of_america",  # leading "the" trimmed, inner "of" kept
        "tuesday",  # DATE is not an entity type the paper merges
    ]


def test_entities_without_an_installed_pipeline_say_how_to_install(corpus_of):
    with pytest.raises(MissingDependencyError, match="spacy download en_core_web_sm"):
        corpus_of(["some text here"], entities="no_such_spacy_pipeline_xyz")


def test_entities_with_a_pipeline_lacking_ner_are_refused(corpus_of, tmp_path):
    spacy.blank("en").to_disk(tmp_path / "blank")
    with pytest.raises(InputError, match="no 'ner'"):
        corpus_of(["some text here"], entities=str(tmp_path / "blank"))


def test_trim_pipeline_reloads_spacy_past_its_string_limit_with_the_same_tokens():
    from tealeaves.corpus.preprocess import TokenizeTask, load_pipeline, tokenize_batch, trim_pipeline

    texts = ["Unusualwordone and unusualwordtwo, the 3rd time in New-York."] * 2
    before = tokenize_batch(TokenizeTask(texts, PreprocessConfig()))
    nlp = load_pipeline(None)
    assert trim_pipeline(None, max_strings=len(nlp.vocab.strings)) is False
    assert load_pipeline(None) is nlp
    assert trim_pipeline(None, max_strings=len(nlp.vocab.strings) - 1) is True
    assert load_pipeline(None) is not nlp
    after = tokenize_batch(TokenizeTask(texts, PreprocessConfig()))
    assert (after.words, after.tokens.tolist(), after.lengths.tolist()) == (
        before.words,
        before.tokens.tolist(),
        before.lengths.tolist(),
    )
