"""`check` ok ⇒ the game plays as written (issue 12 item 1).

* every folder in games/ and docs/examples/: check refuses it with a reason,
  or `hexforge play FOLDER --agents random,random` finishes;
* the vocabulary the compiler accepts is what the runtime reads (an audit of
  phase properties, procedures and chit kinds);
* each construct nothing enforces is refused at its place, `... is not used by
  any rule`."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from dsl.compiler import UNRUN_CHIT_KINDS, compile_game
from dsl.diagnostics import DslError
from editor.cli import main
from runtime.runner import IMPLEMENTED
from runtime.vocabulary import ACTIVATION_KINDS, PHASE_PROPERTIES, PROCEDURES

from helpers import MINI_GAME, MINI_MAP, ROOT, make_game

FOLDERS = sorted(p for base in (ROOT / "games", ROOT / "docs" / "examples") for p in base.iterdir() if p.is_dir())
RUNTIME = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "runtime").glob("*.py")))


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_check_refuses_with_a_reason_or_the_game_plays_to_the_end(folder: Path, capfd):
    code = main(["check", str(folder)])
    out = capfd.readouterr()
    if code != 0:
        errors = [line for line in out.err.splitlines() if ": error: " in line]
        assert errors and all(line.split(": error: ", 1)[1].strip() for line in errors), out.err
        return
    assert main(["play", str(folder), "--agents", "random,random"]) == 0
    assert "game over after turn" in capfd.readouterr().out


def test_a_dice_pool_game_without_its_battle_block_is_refused_located(tmp_path, capfd):
    folder = tmp_path / "prokhorovka"
    shutil.copytree(ROOT / "docs" / "examples" / "prokhorovka", folder)
    rules = (folder / "game.hxr").read_text(encoding="utf-8")
    (folder / "game.hxr").write_text(re.sub(r"\ndice-pool \{.*?\n\}\n", "\n", rules, flags=re.S), encoding="utf-8")
    assert main(["check", str(folder)]) != 0
    err = capfd.readouterr().err
    assert "error: combat { procedure dice-pool } needs a dice-pool { ... } block" in err


# ---------------------------------------------------------------- the audit

def test_every_phase_property_the_checker_accepts_is_read_by_the_runtime():
    """A property accepted on a phase is one the runtime reads from the phase
    (``params.get("x")``, ``params["x"]``, ``"x" in ph.params``; ``side``: ph.side)."""
    read = set(re.findall(r'params(?:\.get\(|\[)"([a-z-]+)"', RUNTIME)) | \
        set(re.findall(r'"([a-z-]+)" in (?:ph|self\.program\[[^]]*\]\.phase)\.params', RUNTIME))
    accepted = {p for ps in PHASE_PROPERTIES.values() for p in ps} - {"side"}
    assert accepted <= read, f"accepted but never read: {sorted(accepted - read)}"
    assert "ph.side" in RUNTIME


def test_every_procedure_is_run_or_refused_by_check():
    assert set(PHASE_PROPERTIES) == set(PROCEDURES)
    for proc in PROCEDURES:
        if proc in IMPLEMENTED:
            assert f"def _proc_{proc.replace('-', '_')}(" in RUNTIME
    assert set(PROCEDURES) == IMPLEMENTED          # a procedure added to the vocabulary but not run: see sequence_problems


def test_every_chit_kind_is_run_or_refused_by_check():
    for kind in ACTIVATION_KINDS:
        if kind not in UNRUN_CHIT_KINDS:
            assert f'"{kind}"' in (ROOT / "runtime" / "chitpull.py").read_text(encoding="utf-8"), kind


# ---------------------------------------------------------------- located refusals

def errors(tmp_path, old: str, new: str, game: str = MINI_GAME) -> list[str]:
    assert old in game, old
    folder = make_game(tmp_path, game.replace(old, new, 1), MINI_MAP)
    with pytest.raises(DslError) as e:
        compile_game(folder)
    return [d.format(e.value.sources) for d in e.value.diagnostics]


SEQ = 'phase movement "Movement" { procedure move; side a }'


@pytest.mark.parametrize("old,new,expected", [
    (SEQ, 'phase movement "Movement" { procedure move; side a; hq-class inf }',
     "'hq-class' is not used by any rule of a move phase"),
    (SEQ, SEQ + '\n  phase sup "Supply" { procedure supply; side a }',
     "'side' is not used by any rule of a supply phase"),
    (SEQ, 'phase act "Activation" { procedure activate; mode command-chain; limit 3 }\n  ' + SEQ,
     "'mode' is not used by any rule of an activate phase"),
    (SEQ, 'phase movement "Movement" { procedure move fast; side a }',
     "'fast' after the procedure is not used by any rule"),
])
def test_phase_properties_and_procedures_nothing_runs_are_refused_at_their_place(tmp_path, old, new, expected):
    errs = errors(tmp_path, old, new)
    assert any(expected in e and "mini/game.hxr:" in e for e in errs), errs


def test_a_special_result_and_an_exchange_are_refused(tmp_path):
    errs = errors(tmp_path, """    code  attacker  defender  retreat
    A1    1         0         0""", """    code  attacker  defender  retreat  special  exchange
    A1    1         0         0        -        yes
    DS    0         0         0        surrender  no""")
    assert any(":27:" in e and "the exchange of A1 is not used by any rule" in e for e in errs), errs
    assert any("the special result 'surrender' of DS is not used by any rule" in e for e in errs), errs


@pytest.mark.parametrize("limit", ["per-class", "equipment"])
def test_stacking_limits_the_engine_does_not_enforce_are_refused(tmp_path, limit):
    errs = errors(tmp_path, "scenario basic", f"stacking {{\n  units 2\n  {limit} 1\n}}\nscenario basic")
    assert any(f"the stacking limit '{limit}' is not used by any rule" in e for e in errs), errs


def test_an_hq_limit_without_hq_classes_is_refused(tmp_path):
    # hq N is enforced (tests/test_results_and_stacking.py); it counts classes with the flag hq
    errs = errors(tmp_path, "scenario basic", "stacking {\n  units 2\n  hq 1\n}\nscenario basic")
    assert any("the stacking limit 'hq' counts units whose class has the flag hq, and no class has it" in e
               for e in errs), errs


def test_chit_kinds_that_do_nothing_are_refused(tmp_path):
    errs = errors(tmp_path, "scenario basic", "chits {\n  table {\n    id  side  kind  always\n"
                  "    LW  a     air   yes\n  }\n}\nscenario basic")
    assert any("a chit of kind 'air' is not used by any rule: drawing it does nothing" in e for e in errs), errs


def test_retreat_and_advance_choices_the_engine_does_not_make_are_refused(tmp_path):
    errs = errors(tmp_path, "scenario basic", "retreat { toward away }\nadvance { ignores-zoc no }\nscenario basic")
    assert any("retreat toward away is not used by any rule" in e for e in errs), errs
    assert any("ignores-zoc no is not used by any rule" in e for e in errs), errs


def test_a_scenario_without_a_sequence_of_play_is_refused(tmp_path):
    game = MINI_GAME[:MINI_GAME.index("sequence {")]
    folder = make_game(tmp_path, game, MINI_MAP)
    with pytest.raises(DslError) as e:
        compile_game(folder)
    msgs = [d.format(e.value.sources) for d in e.value.diagnostics]
    assert any("error: scenario basic cannot be played: the game has no sequence of play" in m for m in msgs), msgs


# ------------------------------------------------------------------ audit: what no rule reads

def test_a_die_table_nothing_rolls_is_refused(tmp_path):
    errs = errors(tmp_path, "scenario basic", 'die-table wx "Weather" { table { die w; 1-6 dry } }\nscenario basic')
    assert any(re.search(r"game.hxr:\d+:11: error: die-table wx is not used by any rule: nothing rolls it", e)
               for e in errs), errs


def test_a_die_table_rolled_by_a_phase_or_an_effect_is_accepted(tmp_path):
    game = MINI_GAME.replace("scenario basic", 'die-table wx "Weather" { table { die w; 1-6 dry } }\n'
                             'die-table ev "Events" { table { die e; 1-6 x } }\n'
                             'event e "E" { do { roll ev } }\nscenario basic', 1)
    game = game.replace(SEQ, SEQ + '\n  phase wx "Weather" { procedure roll; die-table wx }', 1)
    compile_game(make_game(tmp_path, game, MINI_MAP))


def test_a_turn_track_column_nothing_reads_is_refused(tmp_path):
    old = "turn-track {\n  table {\n    turn  date      a.chits\n    1     \"June 1\"  2\n    2     \"June 8\"  2"
    new = ("turn-track {\n  column elite number\n  column pvo number\n  table {\n    turn  date      a.chits  elite  pvo\n"
           "    1     \"June 1\"  2        1      1\n    2     \"June 8\"  2        1      1")
    game = MINI_GAME.replace(old, new, 1) + 'trigger t "T" at turn-end when track("pvo") > 0 { award a 1 }\n'
    folder = make_game(tmp_path / "b", game, MINI_MAP)
    with pytest.raises(DslError) as e:
        compile_game(folder)
    errs = [d.format(e.value.sources) for d in e.value.diagnostics]
    assert any("the turn-track column 'elite' is not used by any rule" in x and "track(\"elite\")" in x
               for x in errs), errs
    assert not any("'pvo'" in x for x in errs), errs


def test_system_properties_are_the_games_defaults(tmp_path):
    game = 'system ser "Series" { note "series note"; rounding up; designer "D" }\n' + \
        MINI_GAME.replace('game mini "Mini" { map "map.hxm" }', 'game mini "Mini" { map "map.hxm"; note "game note" }')
    g = compile_game(make_game(tmp_path, game, MINI_MAP))
    assert (g.info.series, g.info.rounding, g.info.designer, g.info.notes) == \
        ("ser", "up", "D", ("series note", "game note"))
    errs = errors(tmp_path / "c", 'game mini', 'system ser "Series" { rounding sideways }\ngame mini')
    assert any("rounding" in e and "sideways" in e for e in errs), errs


def test_a_counter_the_setup_leaves_out_starts_where_it_arrives(tmp_path):
    from runtime.runner import Runner
    game = MINI_GAME.replace("    B1   inf    2-4\n", "    B1   inf    2-4\n    B2   inf    2-4    -        2\n", 1)
    game = game.replace("    id   class  full\n    B1", "    id   class  full   reduced  arrives\n    B1", 1)
    game = game.replace("    B1   inf    2-4\n", "    B1   inf    2-4    -        -\n", 1)
    g = compile_game(make_game(tmp_path, game, MINI_MAP))
    s = Runner(g, "basic").new_game(1)
    assert g.counters["B2"].arrives == "turn:2" and (s.units["B2"].hex, s.units["B2"].box) == (None, "turn:2")
