"""Saved games are untrusted input: every malformed one gives one clear
sentence (ReplayError), in the runtime, the command line and the editor —
never a raw exception.  A bounded hypothesis mutation test covers the
shapes a save can take."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime.replay import ReplayError, SavedGame

ROOT = Path(__file__).resolve().parent.parent
GOOD = {"format": "hexforge-game", "version": 1, "game": "games/barbarossa-postcard", "scenario": "standard",
        "variants": [], "seed": 3, "agents": {"axis": "human", "soviet": "random"}, "by-bots": [1],
        "actions": ["done", "done"], "digest": ""}

MALFORMED = {
    "version text": json.dumps(dict(GOOD, version="2")),
    "version null": json.dumps(dict(GOOD, version=None)),
    "version newer": json.dumps(dict(GOOD, version=3)),
    "state list": json.dumps(dict(GOOD, version=2, state=[1, 2])),
    "agents list": json.dumps(dict(GOOD, agents=[1, 2])),
    "agents numbers": json.dumps(dict(GOOD, agents={"axis": 1})),
    "seed 5000 digits": json.dumps(GOOD).replace('"seed": 3', '"seed": ' + "7" * 5000),
    "seed 4000 digits": json.dumps(GOOD).replace('"seed": 3', '"seed": ' + "7" * 4000),
    "seed text": json.dumps(dict(GOOD, seed="3")),
    "seed float": json.dumps(dict(GOOD, seed=3.5)),
    "seed true": json.dumps(dict(GOOD, seed=True)),
    "nested 100k deep": '{"format": "hexforge-game", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "game number": json.dumps(dict(GOOD, game=7)),
    "scenario list": json.dumps(dict(GOOD, scenario=["a"])),
    "actions text": json.dumps(dict(GOOD, actions="done")),
    "actions numbers": json.dumps(dict(GOOD, actions=[1, 2])),
    "variants dict": json.dumps(dict(GOOD, variants={"a": 1})),
    "by-bots out of range": json.dumps(dict(GOOD, **{"by-bots": [99]})),
    "digest number": json.dumps(dict(GOOD, digest=5)),
    "params list": json.dumps(dict(GOOD, params=["bid", 5])),
    "params text": json.dumps(dict(GOOD, params={"bid": "5"})),
    "params 40 digits": json.dumps(dict(GOOD, params={"bid": 10 ** 40})),
    "truncated": json.dumps(GOOD)[:57],
    "empty": "",
    "a list": "[1, 2]",
    "not utf-8": None,
}


def write(tmp_path: Path, name: str, text: str | None) -> Path:
    p = tmp_path / f"{name.replace(' ', '-')}.hxgame"
    if text is None:
        p.write_bytes(b'{"format": "hexforge-game", "game": "\xff\xfe"}')
    else:
        p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_save_gives_one_clear_sentence(tmp_path, name):
    p = write(tmp_path, name, MALFORMED[name])
    with pytest.raises(ReplayError) as e:
        SavedGame.load(p)
    msg = str(e.value)
    assert "\n" not in msg and len(msg) < 300 and "Traceback" not in msg
    assert msg.startswith(p.name + ": ") or msg.startswith(f"cannot read {p}")


def test_the_messages_say_what_is_wrong(tmp_path):
    def why(name):
        with pytest.raises(ReplayError) as e:
            SavedGame.loads(MALFORMED[name])
        return str(e.value)
    assert why("version text") == '"version" must be a whole number such as 2, not "2"'
    assert why("version newer") == "saved by a newer hexforge (format version 3; this one reads 2)"
    assert why("state list") == '"state" must be the saved game\'s state (a JSON object), not [1, 2]'
    assert why("agents list").startswith('"agents" must map each side to human, random or greedy')
    assert why("seed 5000 digits") == "not a saved game: a number in it is too long"
    assert why("seed 4000 digits").startswith('"seed" must be a whole number of at most 19 digits')
    assert why("nested 100k deep") == "not a saved game: its JSON is nested too deeply"
    assert why("params text") == '"params" must map each number\'s name to a whole number, such as {"bid": 5}'
    with pytest.raises(ReplayError, match="it is a folder"):
        SavedGame.load(tmp_path)


def test_a_good_save_round_trips():
    s = SavedGame.loads(json.dumps(GOOD))
    assert SavedGame.loads(s.dumps()) == s and s.by_bots == [1] and s.agents["soviet"] == "random"
    assert s.params == {} and "params" not in s.dumps()  # (written only where the rules ask for numbers)
    bid = SavedGame.loads(json.dumps(dict(GOOD, params={"bid": 5})))
    assert bid.params == {"bid": 5} and SavedGame.loads(bid.dumps()) == bid


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                  max_size=3), max_leaves=6)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(GOOD) + ["extra"]), value=JSON, drop=st.booleans(), cut=st.integers(0, 400))
def test_mutated_saves_load_or_say_why(key, value, drop, cut):
    """Change, drop or add one field, or cut the text short: the save loads
    (and then dumps and loads again the same) or raises ReplayError."""
    d = dict(GOOD)
    if drop:
        d.pop(key, None)
    else:
        d[key] = value
    for text in (json.dumps(d), json.dumps(d)[:cut]):
        try:
            s = SavedGame.loads(text)
        except ReplayError as e:
            assert "\n" not in str(e)
            continue
        assert SavedGame.loads(s.dumps()) == s


def test_the_editor_says_why_a_save_does_not_load(qtbot, tmp_path, monkeypatch):
    """Game > Load game… on each malformed save: the message, no exception."""
    pytest.importorskip("pytestqt")
    from editor.document import GameDocument
    from editor.play import open_playtest

    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(ROOT / "games" / "barbarossa-postcard")
    try:
        w = open_playtest(doc, "standard", (), 3, {"axis": "human", "soviet": "human"})
        w.interactive = False
        qtbot.addWidget(w)
        for name, text in MALFORMED.items():
            p = write(tmp_path, name, text)
            problem = w.load_from(p)
            assert problem and "\n" not in problem, name
            assert w.decision.message.text() == problem
        w.close()
    finally:
        doc.close()
