"""The language-model layer against a real OpenAI-compatible HTTP server on 127.0.0.1, started by the test
(a small fake that answers /v1/chat/completions); no test touches any other address."""

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ragkit.errors import RagkitError
from ragkit.llm.client import LanguageModel, load_recordings
from ragkit.llm.prompts import prompt_key, situate_prompt


class FakeServer:
    """Answers chat completions on loopback: `behaviour` is "normal", "slow" or "flaky" (one 500, then fine)."""

    def __init__(self, behaviour="normal"):
        self.behaviour, self.requests = behaviour, []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the name http.server calls
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append((self.path, body))
                if owner.behaviour == "slow":
                    time.sleep(1.5)
                if owner.behaviour == "flaky" and len(owner.requests) == 1:
                    self.send_response(500)
                    self.end_headers()
                    return
                answer = f"Context for: {body['messages'][0]['content'][-20:]}"
                payload = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                      "choices": [{"index": 0, "finish_reason": "stop",
                                                   "message": {"role": "assistant", "content": answer}}]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the slow case: the client gave up waiting, as the test wants; no traceback in the log

            def log_message(self, *args):  # keep the test output quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server(request):
    fake = FakeServer(getattr(request, "param", "normal"))
    yield fake
    fake.close()


def test_live_answer_and_record_then_replay(server, tmp_path):
    prompt = situate_prompt("Tessellate's 2025 price book.", "Annual plans are refunded within 30 days.")
    live = LanguageModel("record", server.url, "fake-model", recordings=tmp_path, timeout=5)
    answer = live.complete(prompt, "a situating context")
    assert answer == f"Context for: {prompt[-20:]}"
    path, body = server.requests[0]
    assert path == "/v1/chat/completions" and body["model"] == "fake-model"
    assert body["messages"] == [{"role": "user", "content": prompt}], "the prompt is sent as it is, alone"
    assert load_recordings(tmp_path) == {prompt_key(prompt): answer}, "record mode files the answer by prompt key"
    assert LanguageModel("replay", recordings=tmp_path).complete(prompt) == answer, "and replay finds it offline"
    assert len(server.requests) == 1, "replay sends nothing"


@pytest.mark.parametrize("server", ["slow"], indirect=True)
def test_a_slow_answer_past_the_timeout_is_a_clear_error(server, tmp_path):
    model = LanguageModel("live", server.url, "fake-model", recordings=tmp_path, timeout=0.5, retries=1)
    with pytest.raises(RagkitError, match=r"did not answer within 0.5 s \(1 retries\)"):
        model.complete("hello", "a situating context")
    assert len(server.requests) == 2, "one retry, then it gives up"


@pytest.mark.parametrize("server", ["flaky"], indirect=True)
def test_a_500_is_retried_and_then_succeeds(server, tmp_path):
    model = LanguageModel("live", server.url, "fake-model", recordings=tmp_path, timeout=5, retries=2)
    assert model.complete("hello").startswith("Context for:")
    assert len(server.requests) == 2, "the 500, then the answer"


def test_an_unreachable_server_is_a_clear_error(tmp_path):
    with socket.socket() as probe:  # a port on loopback that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = LanguageModel("live", f"http://127.0.0.1:{port}/v1", "fake-model", recordings=tmp_path, timeout=2,
                          retries=0)
    with pytest.raises(RagkitError, match=f"cannot reach a language model server at http://127.0.0.1:{port}/v1"):
        model.complete("hello")


def test_replay_misses_and_bad_settings_are_explained(tmp_path, monkeypatch):
    with pytest.raises(RagkitError, match=r"nothing recorded for this prompt \(a situating context, key .* record it with a server"):
        LanguageModel("replay", recordings=tmp_path).complete("never recorded", "a situating context")
    with pytest.raises(RagkitError, match="unknown language-model mode 'cloud'"):
        LanguageModel("cloud")
    monkeypatch.delenv("RAGKIT_LLM_URL", raising=False)
    with pytest.raises(RagkitError, match="live mode needs a server: set RAGKIT_LLM_URL"):
        LanguageModel("live", recordings=tmp_path).complete("hello")
    (tmp_path / "broken.jsonl").write_text("{not json\n")
    with pytest.raises(RagkitError, match=r"broken.jsonl:1: not a recorded response"):
        load_recordings(tmp_path)
