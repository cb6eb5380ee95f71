import pytest

from sentspace.app.corpora import detect_format, load_corpus
from sentspace.app.corpora.model import Corpus


@pytest.mark.parametrize(
    "relative, expected",
    [
        ("msrp", "MSRP"),
        ("msrp/msr_paraphrase_train.txt", "MSRP"),
        ("msrp/msr_paraphrase_data.txt", "MSRP"),
        ("sick", "SICK"),
        ("sick/SICK_test_annotated.txt", "SICK"),
        ("sts", "STS"),
        ("sts/STS2013-test", "STS"),
        ("sts/STSBenchmark", "STS"),
        ("sts/STSBenchmark/sts-test.csv", "STS"),
        ("sts/STS2012-test/STS.input.MSRvid.txt", "STS"),
        ("opinosis", "Opinosis"),
        ("opinosis/topics", "Opinosis"),
        ("senteval-transfer/SUBJ", "SentEval"),
        ("senteval-transfer/MPQA/mpqa.pos", "SentEval"),
        ("senteval-transfer/raw-harvardnlp/TREC.test", "SentEval"),
        ("white2015-paraphrase-grouped/msrp_distribute", "paraphrase-grouped"),
        ("white2015-paraphrase-grouped/opinosis_distribute/phrases.txt", "paraphrase-grouped"),
        ("latent-relatedness/soup.tsv", "table"),
    ],
)
def test_real_paths_are_detected_and_load(shared_data, relative, expected):
    path = shared_data / relative
    assert detect_format(path).name == expected
    assert isinstance(load_corpus(path), Corpus)
