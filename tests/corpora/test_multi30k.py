import gzip
import shutil

import numpy as np
import pytest

from sentspace.app.analysis.evaluations import applicable_evaluations
from sentspace.app.analysis.neighbour_search import _related
from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.multi30k import DATA_ENV


@pytest.fixture
def multi30k(shared_data, monkeypatch):
    folder = shared_data / "multi30k"
    monkeypatch.setenv(DATA_ENV, str(folder))
    return folder


def gz_lines(path):
    return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()


def test_caption_groups_of_the_full_english_train_split(multi30k):
    corpus = load_corpus("multi30k-captions")
    assert len(corpus) == 145_000 and corpus.groups.n_groups == 29_000
    assert np.all(corpus.groups.sizes == 5) and corpus.language == "en"
    # One sentence per line: 454 lines repeat an earlier text, 35 inside one image.
    assert len(set(corpus.texts)) == 144_546
    assert "454 descriptions repeat" in corpus.warnings[0] and "(35 within" in corpus.warnings[0]
    raw = multi30k / "task2" / "raw"
    third = gz_lines(raw / "train.3.en.gz")
    assert corpus.ids[:6] == (
        "train.1:1",
        "train.2:1",
        "train.3:1",
        "train.4:1",
        "train.5:1",
        "train.1:2",
    )
    sentence = corpus.ids.index("train.3:1234")
    assert corpus.texts[sentence] == third[1233]
    assert corpus.metadata["line"][sentence] == 1234
    assert corpus.metadata["description"][sentence] == 3
    image = corpus.groups.labels(len(corpus))[sentence]
    assert (
        corpus.groups.names[image]
        == corpus.metadata["image"][sentence]
        == ((multi30k / "task2" / "image_splits" / "train_images.txt").read_text().split()[1233])
    )
    assert set(corpus.metadata["split"]) == {"train"}
    assert "classification" in applicable_evaluations(corpus)


def test_language_and_split_by_spec_or_by_file(multi30k):
    german = load_corpus("multi30k-captions:de")
    assert (len(german), german.groups.n_groups, german.language) == (145_000, 29_000, "de")
    assert len(set(german.texts)) == 141_634 and "(255 within" in german.warnings[0]
    val = load_corpus("multi30k-captions:val:de")
    assert (len(val), val.groups.n_groups, val.name) == (5070, 1014, "multi30k-captions:de:val")
    by_file = load_corpus(multi30k / "task2" / "raw" / "val.4.de.gz")
    assert by_file.fingerprint == val.fingerprint
    assert (
        load_corpus(multi30k / "task2" / "raw").fingerprint
        == load_corpus("multi30k-captions").fingerprint
    )
    with pytest.raises(CorpusError, match="neither a split"):
        load_corpus("multi30k-captions:test_2017")
    with pytest.raises(CorpusError, match="one language"):
        load_corpus("multi30k-captions:en,de")


def test_parallel_test_2016_links_every_line_across_four_languages(multi30k):
    corpus = load_corpus("multi30k-parallel")
    assert corpus.name == "multi30k-parallel:test_2016_flickr" and corpus.language == "mul"
    language = np.asarray(corpus.metadata["language"])
    assert len(corpus) == 4000 and {
        code: int(np.sum(language == code)) for code in "en de fr cs".split()
    } == dict.fromkeys(("en", "de", "fr", "cs"), 1000)
    pairs = corpus.pairs
    assert len(pairs) == 6000 and np.all(pairs.label == 1)
    assert pairs.names(corpus.ids, np.arange(1))[0] == "en:1/de:1"
    line = np.asarray(corpus.metadata["line"])
    assert np.array_equal(line[pairs.first], line[pairs.second])
    assert np.all(language[pairs.first] != language[pairs.second])
    assert sorted(set(pairs.subset)) == ["de-cs", "de-fr", "en-cs", "en-de", "en-fr", "fr-cs"]
    raw = multi30k / "task1" / "raw"
    czech = gz_lines(raw / "test_2016_flickr.cs.gz")
    assert corpus.texts[corpus.ids.index("cs:17")] == czech[16]
    # The neighbours view marks a sentence's translations as its partners.
    _, partners = _related(corpus, corpus.ids.index("en:17"))
    assert sorted(corpus.ids[p] for p in partners) == ["cs:17", "de:17", "fr:17"]
    assert {"bitext", "ranking", "detection"} <= set(applicable_evaluations(corpus))
    assert (
        corpus.metadata["image"][0]
        == ((multi30k / "task1" / "image_splits" / "test_2016_flickr.txt").read_text().split()[0])
    )


def test_parallel_splits_and_languages(multi30k):
    train = load_corpus("multi30k-parallel:train")
    assert (len(train), len(train.pairs)) == (116_000, 174_000)
    no_czech = load_corpus("multi30k-parallel:test_2017_mscoco")
    assert (len(no_czech), len(no_czech.pairs)) == (3 * 461, 3 * 461)
    chosen = load_corpus("multi30k-parallel:val:en,cs")
    assert (len(chosen), len(chosen.pairs), chosen.name) == (
        2028,
        1014,
        "multi30k-parallel:val:en,cs",
    )
    by_file = load_corpus(multi30k / "task1" / "raw" / "val.fr.gz")
    assert (len(by_file), by_file.name) == (4 * 1014, "multi30k-parallel:val")


def copied(folder, tmp_path, names):
    target = tmp_path / "raw"
    target.mkdir()
    for name in names:
        shutil.copy(folder / name, target / name)
    return target


def write_gz(path, lines):
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8")))


def test_misaligned_or_broken_files_name_file_and_line(multi30k, tmp_path):
    raw = multi30k / "task1" / "raw"
    folder = copied(raw, tmp_path, [f"test_2016_flickr.{code}.gz" for code in ("en", "de")])
    write_gz(folder / "test_2016_flickr.de.gz", gz_lines(raw / "test_2016_flickr.de.gz")[:998])
    with pytest.raises(CorpusError) as error:
        load_corpus(folder)
    assert (error.value.path.name, error.value.line) == ("test_2016_flickr.en.gz", 999)
    assert "no counterpart in test_2016_flickr.de.gz" in str(error.value)

    lines = gz_lines(raw / "test_2016_flickr.de.gz")
    lines[41] = "  "
    write_gz(folder / "test_2016_flickr.de.gz", lines)
    with pytest.raises(CorpusError) as error:
        load_corpus(folder)
    assert (error.value.path.name, error.value.line) == ("test_2016_flickr.de.gz", 42)

    (folder / "test_2016_flickr.de.gz").write_bytes(b"not gzip")
    with pytest.raises(CorpusError, match="not a readable gzip file"):
        load_corpus(folder)


def test_a_missing_description_file_is_named(multi30k, tmp_path):
    raw = multi30k / "task2" / "raw"
    folder = copied(raw, tmp_path, [f"val.{k}.en.gz" for k in (1, 2, 4, 5)])
    with pytest.raises(CorpusError) as error:
        load_corpus(folder / "val.1.en.gz")
    assert error.value.path.name == "val.3.en.gz" and "file not found" in str(error.value)
    # Without image_splits beside it, groups are named by line.
    shutil.copy(raw / "val.3.en.gz", folder / "val.3.en.gz")
    assert load_corpus(folder / "val.1.en.gz").groups.names[:2] == ("image 1", "image 2")


def test_missing_data_folder_says_how_to_point_at_it(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(CorpusError, match=f"set \\${DATA_ENV}"):
        load_corpus("multi30k-parallel")
