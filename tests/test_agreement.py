"""The second-judge study shipped as data: Cohen's κ against scikit-learn, the command against data/README.md's
table, the file against the labels it samples, and bad files as one clear error."""

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from ragkit.cli import main
from ragkit.corpus import load_documents, load_queries
from ragkit.errors import RagkitError
from ragkit.labels.agreement import agreement_row, agreement_rows, cohen_kappa, load_agreement


@pytest.mark.parametrize("seed", range(20))
def test_kappa_equals_scikit_learn_with_and_without_weights(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 200))
    first = rng.random(n) < rng.uniform(0.05, 0.9)
    second = np.where(rng.random(n) < 0.8, first, ~first)  # mostly agreeing, as judges do
    weights = rng.uniform(0.1, 30, n)
    if len(set(first)) + len(set(second)) > 2:  # scikit-learn divides by zero when both give one label only
        assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
        assert cohen_kappa(first, second, weights) == pytest.approx(
            cohen_kappa_score(first, second, sample_weight=weights), abs=1e-12)


def test_kappa_is_not_raw_agreement_and_is_undefined_for_one_label():
    first, second = [True] * 9 + [False], [True] * 10
    assert cohen_kappa(first, second) == pytest.approx(0.0), "agreeing by chance alone scores 0, not 0.9"
    assert np.isnan(cohen_kappa([True, True], [True, True]))
    with pytest.raises(RagkitError, match="equally long"):
        cohen_kappa([True], [True, False])


def test_the_command_reproduces_the_data_readme_table(root, capsys):
    assert main(["data", "agreement", "--data", str(root / "data")]) == 0
    table = capsys.readouterr().out.strip()
    assert table.count("\n") >= 8
    readme = "\n".join(line.strip() for line in (root / "data" / "README.md").read_text(encoding="utf-8").splitlines())
    assert table in readme, "data/README.md's table (indented in its list) is the command's output"


def test_weighting_follows_the_strata_sizes():
    pair = {"part": "a", "first": "not relevant", "second_relevant": False, "stratum_size": 1000}
    rare = {"part": "a", "first": "relevant", "second_relevant": False, "stratum_size": 10}
    sample = [pair] * 9 + [rare] * 9 + [{**rare, "second_relevant": True}]
    plain, weighted = agreement_row("s", sample), agreement_row("s", sample, weighted=True)
    assert plain["raw agreement"] == pytest.approx(10 / 19)
    # 1000 not-relevant lines all agree; of 10 relevant lines, 10 * 1/10 agree
    assert weighted["raw agreement"] == pytest.approx((1000 + 1) / 1010)


def test_every_pair_names_a_label_of_its_stratum(root):
    pairs = load_agreement(root / "data" / "agreement.jsonl")
    queries = {q.query_id: q for q in load_queries(root / "data" / "queries.jsonl")}
    docs = {d.doc_id: d for d in load_documents(root / "data" / "corpus")}
    judged = {(j["query"], j["doc"], j["start"], j["end"])
              for j in map(json.loads, (root / "data" / "judgments.jsonl").read_text(encoding="utf-8").splitlines())}
    assert len({(p["query"], p["doc"], p["start"], p["end"]) for p in pairs}) == len(pairs), "a pair once"
    for pair in pairs:
        assert pair["query"] in queries and 0 <= pair["start"] < pair["end"] <= len(docs[pair["doc"]].text)
        if pair["first"] == "not relevant":
            assert (pair["query"], pair["doc"], pair["start"], pair["end"]) in judged, pair
        else:
            passage = docs[pair["doc"]].text[pair["start"]:pair["end"]]
            assert any(e.quote in passage or passage in e.quote for e in queries[pair["query"]].evidence
                       if e.doc == pair["doc"]), pair
    parts = {row["slice"] for row in agreement_rows(pairs)}
    assert {"rounds 1-2", "round 3", "round 4", "round 5", "written", "review"} <= parts


@pytest.mark.parametrize(("line", "message"), [
    ("not json", "not valid JSON"),
    ('{"query": "q"}', "missing doc"),
    ('{"query": "q", "doc": "d", "start": 0, "end": 5, "part": "x", "first": "maybe", "second": "no", '
     '"second_relevant": false, "stratum_size": 1}', "first must be one of"),
])
def test_a_bad_agreement_line_is_one_clear_error(tmp_path, line, message):
    (tmp_path / "agreement.jsonl").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RagkitError, match=message):
        load_agreement(tmp_path / "agreement.jsonl")
    assert main(["data", "agreement", "--data", str(tmp_path / "nowhere")]) == 2
