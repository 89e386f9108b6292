"""The course data meets its contract, the datasheet's statistics are current, and the validator reports
every problem at once, as file:line."""

import json
import shutil

from ragkit.cli import main
from ragkit.labels.datacheck import check_data
from ragkit.labels.datastats import statistics_markdown, word_count


def test_course_data_passes_the_validator(root):
    problems, stats = check_data(root / "data")
    assert problems == [], "\n".join(problems)
    assert stats["totals"]["documents"] >= 60 and stats["totals"]["characters"] >= 150_000


def test_datasheet_statistics_match_the_validator(root):
    _, stats = check_data(root / "data")
    datasheet = (root / "data" / "README.md").read_text(encoding="utf-8")
    assert statistics_markdown(stats) in datasheet, "data/README.md statistics are stale: paste `python -m ragkit data check`"


def test_validator_reports_every_problem_with_file_and_line(tmp_path, root):
    data = tmp_path / "data"
    shutil.copytree(root / "data" / "corpus", data / "corpus")
    lines = (root / "data" / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[1])
    first["evidence"] = [{"doc": first["evidence"][0]["doc"], "quote": "this sentence is in no document"}] \
        if first["evidence"] else [{"doc": "nope", "quote": "x"}]
    second["type"] = "rumour"
    lines[0], lines[1] = json.dumps(first), json.dumps(second)
    lines.append("{not json")
    (data / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (data / "corpus" / "broken.md").write_text("no front matter here\n", encoding="utf-8")
    problems, _ = check_data(data)
    joined = "\n".join(problems)
    assert "queries.jsonl:1: " in joined, joined
    assert "queries.jsonl:2: type 'rumour'" in joined, joined
    assert f"queries.jsonl:{len(lines)}: not valid JSON" in joined, joined
    assert "broken.md:1: no front matter" in joined, joined
    assert len(problems) >= 4, "all problems at once, not only the first"


def test_data_check_command_exit_codes(root, tmp_path, capsys):
    assert main(["data", "check", "--data", str(root / "data")]) == 0
    assert "data check passed: 0 problems" in capsys.readouterr().out
    (tmp_path / "corpus").mkdir()
    assert main(["data", "check", "--data", str(tmp_path)]) == 1
    assert "no .md documents" in capsys.readouterr().out


def test_word_count_counts_chinese_characters_one_by_one():
    assert word_count("TS-999 年假") == 4
