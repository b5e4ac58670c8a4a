"""mistral-common's tool calls, tool results and thinking chunks, version by version, and
the v11 rules around them: each tool result answers a call of the assistant turn before
it, once, and a run of results is put in the order of those calls."""
from __future__ import annotations

import json
import re
from typing import Any

from .conversation import ChatError
from .pieces import Piece, joined, special
from .tokens import TEMPLATE

NEW = ("v11", "v13")   # the versions with [ARGS] tool calls and sorted tool results
ID = re.compile(r"[a-zA-Z0-9]{9}")   # mistral-common's tool call ids up to v11


def parsed(content: str) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return content


def _id_ok(cid: Any, version: str) -> bool:
    """v3 to v11 ids are 9 letters or digits; v13 takes any but '' and 'null'."""
    if version == "v13":
        return isinstance(cid, str) and cid not in ("", "null")
    return isinstance(cid, str) and ID.fullmatch(cid) is not None


def check_ids(i: int, m: dict, version: str) -> None:
    """Message ``i``'s call ids (of its tool calls, or the one a tool result answers), as
    mistral-common checks them from v3."""
    rule = ("any text but '' and 'null'" if version == "v13" else "9 letters or digits")
    for tc in m.get("tool_calls") or ():
        if not _id_ok(tc.get("id", "null"), version):
            raise ChatError(f"message {i + 1}: a tool call needs an \"id\" in {version} "
                            f"({rule}), not {tc.get('id', 'null')!r}.")
    if m.get("role") == "tool" and not _id_ok(m.get("tool_call_id"), version):
        raise ChatError(f"message {i + 1}: a tool result needs the \"tool_call_id\" of its "
                        f"call in {version} ({rule}), not {m.get('tool_call_id')!r}.")


def check_call_ids(messages: list[dict], version: str) -> None:
    """mistral-common's v11 pairing: a tool result names a call of the assistant turn
    before it, answered once; an assistant turn comes only when every call before it has
    its result (the ids themselves: check_ids)."""
    expected: set[Any] = set()
    seen: set[Any] = set()
    for i, m in enumerate(messages):
        if i == 0:   # mistral-common's pairing check starts at the second message
            continue
        if m.get("role") == "tool":
            got = m.get("tool_call_id")
            if got in seen:
                raise ChatError(f"message {i + 1}: call id {got!r} already has its result; "
                                "send one result per call.")
            if got not in expected:
                raise ChatError(f"message {i + 1}: call id {got!r} is not one of the calls of "
                                "the assistant turn before it; give the id of one of them.")
            seen.add(got)
        elif m.get("role") == "assistant":
            if len(expected) != len(seen):
                raise ChatError(f"message {i + 1}: the tool calls before this assistant "
                                "message have not all got their results; add the missing "
                                "tool messages.")
            expected, seen = set(), set()
            for tc in m.get("tool_calls") or ():
                cid = tc.get("id", "null")
                if cid in expected:
                    raise ChatError(f"message {i + 1}: two tool calls share the id {cid!r}; "
                                    "give each call its own.")
                expected.add(cid)


def sort_results(messages: list[dict]) -> None:
    """Each run of tool results in the order of the calls made since the last run (as
    mistral-common's v13 normalizer, used by v11 too); results of no such call go last,
    a repeated id sorting where its last result stood."""
    calls: list[Any] = []
    i = 0
    while i < len(messages):
        m = messages[i]
        if m["role"] == "assistant":
            calls += [c["id"] if c["id"] is not None else "null" for c in m["tool_calls"]]
        if m["role"] != "tool":
            i += 1
            continue
        j = i
        while j < len(messages) and messages[j]["role"] == "tool":
            j += 1
        run = messages[i:j]
        at_call = {cid: k for k, cid in enumerate(calls)}
        at_result = {r["tool_call_id"]: k for k, r in enumerate(run)}
        run.sort(key=lambda r: (at_call.get(r["tool_call_id"] or "null", float("inf")),
                                at_result[r["tool_call_id"]]))
        messages[i:j] = run
        calls = []
        i = j


def tool_calls(calls: list[dict], version: str, src: dict) -> list[Piece]:
    """The calls of one assistant message: below v11 one JSON list after [TOOL_CALLS]
    (v3, v7: with each call's id); from v11 each call as [TOOL_CALLS]name[ARGS]arguments,
    v11 with [CALL_ID]id before [ARGS]."""
    if version not in NEW:
        dumped = []
        for c in calls:
            d: dict[str, Any] = {"name": c["name"], "arguments": parsed(c["arguments"])}
            if version in ("v3", "v7") and c["id"] and c["id"] != "null":
                d["id"] = c["id"]
            dumped.append(d)
        return [special("[TOOL_CALLS]"),
                Piece(json.dumps(dumped, ensure_ascii=False), origin="tool_calls", **src)]
    out: list[Piece] = []
    for c in calls:
        out += [special("[TOOL_CALLS]"), Piece(c["name"], origin="tool_calls", **src)]
        if version == "v11" and c["id"] and c["id"] != "null":
            out += [special("[CALL_ID]"), Piece(c["id"], origin="tool_calls", **src)]
        out += [special("[ARGS]"),
                Piece(json.dumps(parsed(c["arguments"]), ensure_ascii=False),
                      origin="tool_calls", **src)]
    return out


def tool_result(m: dict, version: str, before_last_user: bool) -> list[Piece]:
    """One tool result: v2 a one-item list of name and content (dropped before the last
    user message), v3 content and call id as JSON, v7 and v11 the call id then
    [TOOL_CONTENT] and the content as sent, v13 the content alone."""
    src = dict(role="tool", message=m["index"], origin="content")
    if version != "v2" and m["tool_call_id"] is None:
        raise ChatError(f"message {m['index'] + 1}: a tool result needs its "
                        f"\"tool_call_id\" in {version}.")
    if version == "v13":
        return [special("[TOOL_RESULTS]"), Piece(m["content"], **src),
                special("[/TOOL_RESULTS]")]
    if version in ("v7", "v11"):
        return [special("[TOOL_RESULTS]"), Piece(m["tool_call_id"]),
                special("[TOOL_CONTENT]"), Piece(m["content"], **src),
                special("[/TOOL_RESULTS]")]
    if version == "v2":
        if before_last_user:
            return []
        body = json.dumps([{"name": m["name"], "content": parsed(m["content"])}],
                          ensure_ascii=False)
    else:
        body = json.dumps({"content": parsed(m["content"]), "call_id": m["tool_call_id"]},
                          ensure_ascii=False)
    return [special("[TOOL_RESULTS]"), Piece(body, **src), special("[/TOOL_RESULTS]")]


def add_chunks(segments: list[list], chunks: list, index: int) -> None:
    """Appends a message's chunks to ``segments`` as mistral-common aggregates them:
    texts in a row are one segment joined by blank lines (a segment is a list of
    (text, message) parts), a thinking chunk ['think', text, closed, message] ends it."""
    for c in chunks:
        if isinstance(c, str):
            if not c:
                continue
            last = segments[-1] if segments else None
            if last is not None and last[0] != "think":
                last += [("\n\n", None), (c, index)]
            else:
                segments.append([(c, index)])
        else:
            segments.append(["think", c[0], c[1], index])


def chunk_pieces(segments: list[list], role: str) -> list[Piece]:
    """Content with thinking chunks: each text segment encoded on its own, each thinking
    chunk between [THINK] and [/THINK] (no [/THINK] while it is open)."""
    out: list[Piece] = []
    for seg in segments:
        if seg and seg[0] == "think":
            out += [special("[THINK]"),
                    Piece(seg[1], role=role, message=seg[3], origin="reasoning_content")]
            if seg[2]:
                out.append(special("[/THINK]"))
        else:
            out.append(joined(*[(t, TEMPLATE if k is None else role, k, "content")
                                for t, k in seg]))
    return out
