#!/usr/bin/env python3
"""A scripted model server on 127.0.0.1 for the real hosts' scenarios.

It speaks the two wire formats the hosts use: Anthropic's Messages API
(`POST /v1/messages`, streamed or not: Claude Code) and OpenAI's Responses API
(`POST /v1/responses`, streamed: Codex). Every request body is appended, whole,
as one JSON line to the log, so that a scenario can read what the host sent
back to the model after its hooks ran.

The script is a JSON list of turns: the k-th request that offers tools gets
the k-th turn, either
  {"tools": [{"name": "Bash", "input": {...}}, ...]}   tool calls, in order
  {"text": "..."}                                      a final answer
and once the script is used up, and for any request without tools (a title,
a summary), the answer is the text "done".

Usage: model_server.py SCRIPT LOG PORTFILE
It binds an ephemeral port on 127.0.0.1, writes the port to PORTFILE, and
serves until it is killed, or at most ten minutes (a bound, so that a runner
that dies leaves nothing running for long).
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LIFETIME_S = 600

SCRIPT, LOG, PORTFILE = sys.argv[1], sys.argv[2], sys.argv[3]
with open(SCRIPT) as f:
    TURNS = json.load(f)
lock = threading.Lock()
served = [0]
log = open(LOG, "a", buffering=1)


def next_turn():
    """The next scripted turn, or the closing text once they are used up."""
    with lock:
        k = served[0]
        served[0] += 1
    return k, (TURNS[k] if k < len(TURNS) else {"text": "done"})


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        self.reply(200, json.dumps({"object": "list", "data": [], "models": []}).encode())

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            req = {}
        if "count_tokens" in self.path:
            self.reply(200, json.dumps({"input_tokens": 10}).encode())
            return
        offers_tools = bool(req.get("tools"))
        k, turn = next_turn() if offers_tools else (-1, {"text": "done"})
        log.write(json.dumps({"path": self.path, "turn": k, "body": req}) + "\n")
        if "/responses" in self.path:
            self.responses_api(k, turn)
        else:
            self.messages(k, turn, req)

    def messages(self, k, turn, req):
        usage = {"input_tokens": 10, "output_tokens": 5,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if "tools" in turn:
            blocks = [{"type": "tool_use", "id": f"toolu_{k:03d}_{i:03d}", "name": t["name"],
                       "input": t["input"]} for i, t in enumerate(turn["tools"])]
            stop = "tool_use"
        else:
            blocks = [{"type": "text", "text": turn["text"]}]
            stop = "end_turn"
        model = req.get("model", "claude-sonnet-4-5")
        mid = f"msg_{k:03d}_{time.monotonic_ns()}"
        if not req.get("stream"):
            self.reply(200, json.dumps({"id": mid, "type": "message", "role": "assistant", "model": model,
                                        "content": blocks, "stop_reason": stop, "stop_sequence": None,
                                        "usage": usage}).encode())
            return
        out = [sse("message_start", {"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": b["text"]}
            else:
                start = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            out.append(sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
            out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        out.append(sse("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 5}}))
        out.append(sse("message_stop", {"type": "message_stop"}))
        self.reply(200, b"".join(out), "text/event-stream")

    def responses_api(self, k, turn):
        rid = f"resp_{k}_{time.monotonic_ns()}"
        events = [{"type": "response.created", "response": {"id": rid}}]
        if "tools" in turn:
            for i, t in enumerate(turn["tools"]):
                if isinstance(t["input"], str):
                    # A freeform tool (Codex's `apply_patch`): its input is raw text.
                    item = {"type": "custom_tool_call", "id": f"ctc_{k}_{i}", "call_id": f"call_{k}_{i}",
                            "name": t["name"], "input": t["input"]}
                else:
                    item = {"type": "function_call", "id": f"fc_{k}_{i}", "call_id": f"call_{k}_{i}",
                            "name": t["name"], "arguments": json.dumps(t["input"])}
                events.append({"type": "response.output_item.done", "output_index": i, "item": item})
        else:
            events.append({"type": "response.output_item.done", "output_index": 0, "item": {
                "type": "message", "role": "assistant", "id": f"msg_{k}",
                "content": [{"type": "output_text", "text": turn["text"]}]}})
        events.append({"type": "response.completed", "response": {"id": rid, "usage": {
            "input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
            "output_tokens_details": None, "total_tokens": 15}}})
        self.reply(200, b"".join(sse(e["type"], e) for e in events), "text/event-stream")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(PORTFILE + ".tmp", PORTFILE)
timer = threading.Timer(LIFETIME_S, server.shutdown)
timer.daemon = True
timer.start()
server.serve_forever()
