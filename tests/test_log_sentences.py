"""The playtest's log and panels tell each log entry as a sentence
(editor/playtext.py ``describe``), never as the entry's raw data: a list
shown as ['110RD', '17TD'], a field shown as None."""
from __future__ import annotations

import pytest

from editor.playtext import describe
from runtime.bots import make_bot, play
from runtime.runner import Runner
from dsl.compiler import compile_game
from helpers import GAMES


def raw(e: dict) -> str:
    """What ``describe`` falls back to for an entry it has no sentence for."""
    return ", ".join(f"{k} {v}" for k, v in e.items() if k != "turn")


@pytest.mark.parametrize("entry,sentence", [
    ({"turn": 4, "side": "soviet", "reroll": "2410", "attackers": ["110RD", "17TD"], "odds": "15-2", "column": "7-1",
      "die": 6, "result": "2DR2"},
     "soviet: the attack on 2410 with 110RD,17TD is rolled again — odds 15-2, column 7-1, die 6: 2DR2"),
    ({"turn": 1, "side": "german", "action": "designate 168ID", "marker": "reserve"},
     "german: designate 168ID — reserve"),
    ({"turn": 1, "effect": "unmark held", "why": "1TA and R released (17.1(3))", "units": ["2GTK", "31TK"]},
     "1TA and R released (17.1(3)): unmark held (2GTK, 31TK)"),
    ({"turn": 1, "effect": "unmark out-of-supply", "why": "Supply drawn", "units": []},
     "Supply drawn: unmark out-of-supply (no unit had it)"),
    ({"turn": 1, "decide": "release", "side": "german", "for": "Reinforcements drawn"},
     "german decides: release (Reinforcements drawn)"),
    ({"turn": 1, "moves-on": "26ID", "at": "3106", "to": "2901", "path": ["3106", "3105", "2901"]},
     "26ID moves onto the map at 3106 and on to 2901 (path 3106→3105→2901)"),
    ({"turn": 2, "bought": "PVO8", "at": "2327", "points": 0}, "PVO8 is bought (0 points) and put at 2327"),
    ({"turn": 2, "bought": "24A", "into": "cup", "points": 1}, "24A is bought (1 point) and put into the cup"),
    ({"turn": 1, "play": "3PzG", "phase": "first-3pzg-activation"}, "chit 3PzG is played (first-3pzg-activation)"),
    ({"turn": 5, "event": "distracted", "title": "Hitler Distracted"}, "event: Hitler Distracted"),
    ({"turn": 3, "attack": "3208", "row": 9, "result": "DR"}, "the attack on 3208: row 9 of the table gives DR"),
    ({"turn": 2, "air": "0802", "step": "interception: Yak at Ju87-3: 3, shot down"},
     "air over 0802: interception: Yak at Ju87-3: 3, shot down"),
])
def test_each_kind_of_entry_is_a_sentence(entry, sentence):
    assert describe(entry) == sentence


def test_a_whole_game_is_told_in_sentences():
    """Prokhorovka: air steps, designations, effects with the units they
    touched (each had fallen back to its raw data)."""
    game = compile_game(GAMES / "prokhorovka")
    runner = Runner(game, None)
    bots = {side: make_bot("greedy", 1000 + i + 1) for i, side in enumerate(game.sides)}
    end, _ = play(runner, runner.new_game(1), bots)
    told = [(e, describe(e, runner)) for e in end.log]
    assert [e for e, text in told if text == raw(e) or "['" in text or "None" in text] == []
