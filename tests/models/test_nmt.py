"""The NMT encoder: it learns to translate Multi30K (beside copying the source and its
untrained network), saves and reloads bit-identically, and reads its specs and files."""

import json

import numpy as np
import pytest

from sentspace.app.base.jobs import run_job
from sentspace.app.corpora.multi30k import read_gz_lines
from sentspace.models import ModelError, load_trained, make_encoder
from sentspace.models.nmt import NMT, TranslationScore, detokenize, multi30k_files

pytest.importorskip("torch")
pytest.importorskip("sacrebleu")

SMALL = {"embedding_size": 64, "hidden_size": 128, "epochs": 3, "batch_sentences": 32}
#: Multi30K en-de training lines the learning test trains on (the last tenth held out).
N_LINES = 6000


@pytest.fixture(scope="module")
def multi30k_en_de(shared_data, tmp_path_factory):
    """The full en-de training files (counts asserted), and the first N_LINES of each
    as two aligned files."""
    english, german = (read_gz_lines(path) for path in multi30k_files("en-de", "train"))
    assert len(english) == len(german) == 29_000
    folder = tmp_path_factory.mktemp("multi30k")
    for name, lines in (("train.en", english), ("train.de", german)):
        (folder / name).write_text("\n".join(lines[:N_LINES]) + "\n", encoding="utf-8")
    return folder / "train.en", folder / "train.de"


@pytest.fixture(scope="module")
def trained(multi30k_en_de):
    source, target = multi30k_en_de
    stages = []
    encoder = run_job(
        NMT(training_file=str(source), target_file=str(target), **SMALL).iter_fit([]),
        lambda progress: stages.append(progress.stage),
    )
    return encoder, stages


def test_learns_to_translate_beyond_copying_and_its_untrained_network(trained, multi30k_en_de):
    encoder, stages = trained
    score = encoder.translation_
    assert (score.held_out, score.n_pairs) == ("the last 600 pairs of train.en,train.de", 600)
    assert encoder.n_training_sentences_ == N_LINES - 600
    assert stages[-1] == score.message()  # what the window shows last
    assert encoder.training_report == (
        f"trained on {N_LINES - 600:,} pairs, {encoder.epochs} epochs, loss "
        f"{encoder.losses_[0]:.2f} \N{RIGHTWARDS ARROW} {encoder.losses_[-1]:.2f}; "
        f"{score.message()}"
    )
    english = multi30k_en_de[0].read_text(encoding="utf-8").splitlines()[-600:]
    german = multi30k_en_de[1].read_text(encoding="utf-8").splitlines()[-600:]
    untrained = run_job(encoder.untrained().iter_score(english, german))
    # BLEU and chrF as MT papers compute them: sacrebleu's defaults (13a) on the
    # detokenised translations against the German as written, case-insensitive since
    # the model lowercases.
    from sacrebleu.metrics import BLEU, CHRF

    translations = detokenize(encoder.translate(english), "en-de")
    assert score.bleu == round(BLEU(lowercase=True).corpus_score(translations, [german]).score, 2)
    assert score.chrf == round(CHRF(lowercase=True).corpus_score(translations, [german]).score, 2)
    assert score.copy_bleu == round(BLEU(lowercase=True).corpus_score(english, [german]).score, 2)
    assert "tok:13a" in score.bleu_signature and "case:lc" in score.bleu_signature
    assert "nc:6|nw:0" in score.chrf_signature and "case:lc" in score.chrf_signature
    # Each printed with its signature, so neither reads as a case-sensitive score.
    assert f"; sacrebleu {score.bleu_signature})" in score.message()
    assert f"; sacrebleu {score.chrf_signature})" in score.message()
    # Copying English into German shares a few names and the full stop: BLEU 0.87, chrF
    # 17.5. Trained (35 s of CPU): BLEU 1.87, chrF 20.9, accuracy 30%; untrained: ~0.
    assert score.copy_bleu < 1.5 and score.bleu > 1.5 * score.copy_bleu
    assert score.chrf > score.copy_chrf + 2
    assert score.accuracy > max(3 * score.copy_accuracy, untrained.accuracy + 0.2)
    assert untrained.bleu < score.copy_bleu
    rows = [f"{source}\t{target}" for source, target in zip(english, german)]
    assert encoder.held_out_loss(rows) < encoder.untrained().held_out_loss(rows) - 2
    assert untrained.copy_bleu == score.copy_bleu
    translations = encoder.translate(["A man is riding a bike."])
    assert translations[0][:2] == ["ein", "mann"]


def test_saved_model_reloads_bit_identically(trained, tmp_path):
    encoder, _ = trained
    loaded = load_trained(encoder.save(tmp_path))
    texts = ["Two dogs play in the snow.", "A woman sings on a stage.", "", "Zürich"]
    assert np.array_equal(loaded.encode(texts), encoder.encode(texts))
    assert loaded.translate(texts) == encoder.translate(texts)
    assert loaded.translation_ == encoder.translation_
    assert loaded.training_report == encoder.training_report
    assert (loaded.name, loaded.fingerprint()) == (encoder.name, encoder.fingerprint())


def test_same_seed_same_weights_and_a_process_trains_a_file_once(multi30k_en_de, tmp_path):
    source, target = multi30k_en_de
    tsv = tmp_path / "pairs.tsv"
    lines = zip(*(path.read_text(encoding="utf-8").splitlines()[:300] for path in (source, target)))
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in lines), encoding="utf-8")
    tiny = {"embedding_size": 16, "hidden_size": 16, "epochs": 1, "seed": 3}
    first = NMT(**tiny).fit(
        [
            f"{s}\t{t}"
            for s, t in zip(
                source.read_text(encoding="utf-8").splitlines()[:300],
                target.read_text(encoding="utf-8").splitlines()[:300],
            )
        ]
    )
    from_file = NMT(training_file=str(tsv), **tiny)
    from_file.fit(["ignored: it trains on its file"])
    assert first.losses_ == from_file.losses_
    assert first.encode(["A dog."]).tolist() == from_file.encode(["A dog."]).tolist()
    assert from_file.name == "nmt:pairs.tsv(embedding_size=16, hidden_size=16, epochs=1, seed=3)"
    job = from_file.clone().iter_fit([])
    assert next(job, None) is None  # remembered: no reading, no training


def test_cancelling_leaves_the_encoder_untrained():
    rows = [f"a dog runs {i}\tein hund läuft {i}" for i in range(200)]
    encoder = NMT(embedding_size=8, hidden_size=8, batch_sentences=16)
    job = encoder.iter_fit(rows)
    for progress in job:
        if progress.done == 3:
            job.close()
    assert not encoder.is_fitted and encoder.translation_ is None


def test_specs_name_a_multi30k_pair_a_tsv_or_two_aligned_files(tmp_path, shared_data):
    cs_en = make_encoder("nmt:cs-en")
    assert (cs_en.pair, cs_en.training_file, cs_en.name) == ("cs-en", None, "nmt:cs-en")
    assert not cs_en.learns_from_data and NMT().learns_from_data
    assert cs_en.clone().params() == cs_en.params()
    assert [path.name for path in cs_en._files()] == [
        "train.cs.gz",
        "train.en.gz",
        "val.cs.gz",
        "val.en.gz",
    ]
    for bad in ("nmt:en-en", "nmt:en-xx"):
        with pytest.raises(ModelError, match="not a Multi30K pair"):
            make_encoder(bad)
    with pytest.raises(ModelError, match="no such training file"):
        make_encoder(f"nmt:{tmp_path / 'missing.tsv'}")
    (tmp_path / "a.en").write_text("A dog.\nA cat.\n", encoding="utf-8")
    (tmp_path / "a.de").write_text("Ein Hund.\n", encoding="utf-8")
    (tmp_path / "bad.tsv").write_text("A dog.\tEin Hund.\nA cat.\n", encoding="utf-8")
    aligned = make_encoder(f"nmt:{tmp_path / 'a.en'},{tmp_path / 'a.de'}")
    assert aligned.name == "nmt:a.en,a.de" and aligned.target_file.endswith("a.de")
    with pytest.raises(ModelError, match="do not align"):
        aligned.fit([])
    with pytest.raises(ModelError, match=r"bad.tsv, line 2: expected source<TAB>target"):
        make_encoder(f"nmt:{tmp_path / 'bad.tsv'}").fit([])
    with pytest.raises(ModelError, match="training row 1: expected source<TAB>target"):
        NMT().fit(["A sentence of a corpus, not a pair."])


def test_score_message():
    score = TranslationScore(
        "Multi30K val en-de",
        1014,
        20.5,
        0.3,
        0.45,
        0.03,
        48.2,
        20.1,
        "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0",
        "nrefs:1|case:lc|eff:yes|nc:6|nw:0|space:no|version:2.6.0",
    )
    assert score.message() == (
        "translates Multi30K val en-de (1,014 pairs): BLEU 20.5 (copying the source 0.3; "
        "sacrebleu nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0), chrF 48.2 "
        "(copying 20.1; sacrebleu nrefs:1|case:lc|eff:yes|nc:6|nw:0|space:no|version:2.6.0), "
        "next-word accuracy 45.0% (copying 3.0%)"
    )
    # A model saved before chrF was kept still reads and says what it has.
    old = TranslationScore("Multi30K val en-de", 1014, 20.5, 0.3, 0.45, 0.03)
    assert "chrF" not in old.message() and old.bleu_signature == ""
    assert "sacrebleu" not in old.message()


def test_max_pairs_trains_on_the_first_pairs_and_the_cli_reports_the_translation(
    multi30k_en_de, tmp_path, capsys
):
    from sentspace.app.cli import main

    source, target = multi30k_en_de
    spec = f"nmt:{source},{target}?embedding_size=8&hidden_size=8&epochs=1&max_pairs=120"
    encoder = run_job(make_encoder(spec).iter_fit([]))
    assert encoder.n_training_sentences_ == 120 and encoder.translation_.n_pairs == 600
    out = tmp_path / "vectors.npy"
    assert main(["encode", "--corpus", "msrp-grouped", "--encoder", spec, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{encoder.name}: {encoder.training_report}" in printed
    sidecar = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert sidecar["encoder"]["training"]["translation"]["bleu"] == encoder.translation_.bleu
    assert (
        main(
            ["eval", "classification", "--corpus", "msrp-grouped", "--encoder", spec, "--json", "-"]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["training"][encoder.name]["translation"]["chrf"] == (encoder.translation_.chrf)
