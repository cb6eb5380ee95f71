"""A family trained on a file, spelt ``FAMILY:FILE`` as the CLI and *Train on* spell it,
in the paths that fit encoders themselves: the explorer and the neighbours view, Compare
encoders, and the CLI's encode and explain. Each must train once on the file (not on the
corpus it encodes) and give the same vectors."""

import numpy as np
import pytest

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.compare import compare_encoders
from sentspace.app.analysis.explore import explore
from sentspace.app.analysis.neighbour_search import Query, search_neighbours
from sentspace.app.analysis.neighbours import top_k
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.models import make_encoder

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def speeches(shared_data, tmp_path_factory):
    """The first 1,000 lines of the State of the Union sentences, in order, with the
    blank line that ends each address (a few seconds of FastSent training)."""
    lines = (
        (shared_data / "state-union" / "sentences.txt")
        .read_text(encoding="utf-8")
        .splitlines()[:1000]
    )
    path = tmp_path_factory.mktemp("speeches") / "speeches.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_file_trained_fastsent_in_explorer_neighbours_and_compare(msrp, speeches):
    spec = f"fastsent:{speeches}"
    exploration = run_job(explore(msrp, make_encoder(spec)))
    fitted = exploration.encoder
    sentences = [line for line in speeches.read_text(encoding="utf-8").splitlines() if line]
    assert fitted.name == "fastsent:speeches.txt"
    assert fitted.n_training_sentences_ == len(sentences)  # the file, not the corpus
    assert exploration.classification.mean_accuracy > 0.5  # 274 groups: chance < 0.01

    # The neighbours view: a corpus sentence's neighbours are its nearest rows by cosine
    # (FastSent's summed vectors all lie close together, so cosine ranks poorly what the
    # SVM above separates), and the same sentence typed in is encoded on the fly to its
    # own corpus vector.
    space = (fitted.name, fitted, exploration.embeddings)
    members = set(msrp.groups.members(0).tolist())
    (by_index,), _ = run_job(search_neighbours(msrp, [space], [None], Query(msrp.texts[0], 0), 10))
    expected, _ = top_k(
        exploration.embeddings[[0]], exploration.embeddings, 10, exclude=np.array([0])
    )
    assert by_index.indices.tolist() == expected[0].tolist()
    assert by_index.same_group.tolist() == [i in members for i in by_index.indices]
    (typed,), _ = run_job(search_neighbours(msrp, [space], [None], Query(msrp.texts[0]), 10))
    assert typed.indices[0] == 0 and typed.similarities[0] == pytest.approx(1.0, abs=1e-5)

    # Compare encoders trains the spec's encoder the same way: identical vectors.
    comparison = run_job(compare_encoders(msrp, make_encoder(spec), make_encoder("bow")))
    assert comparison.names == ("fastsent:speeches.txt", "bow")
    assert 0 < comparison.change.change.mean() < 1  # some neighbours shared, not all
    matrix = run_job(encode_corpus(msrp, make_encoder(spec)))
    assert np.array_equal(matrix, exploration.embeddings)


def test_cli_encodes_and_explains_with_a_file_trained_family(msrp, speeches, tmp_path, capsys):
    spec = f"fastsent:{speeches}"
    out = tmp_path / "fastsent.npy"
    assert main(["encode", "--corpus", "msrp-grouped", "--encoder", spec, "--out", str(out)]) == 0
    expected = run_job(encode_corpus(msrp, make_encoder(spec)))
    assert np.array_equal(np.load(out), expected)
    capsys.readouterr()
    assert (
        main(
            [
                "explain",
                "--encoder",
                spec,
                "The economy grew last year.",
                "Last year the economy grew.",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert printed.startswith("cosine ") and "fastsent:speeches.txt" in printed
    assert "economy" in printed
