"""Air missions outside a battle (Prokhorovka 16.0, 16.1(1)2-3): the air
window the engine opens at the start of each movement and combat phase
(``air { window move combat }``, a reconstructed moment): a ground attack at
a face-up enemy counter on the map through AA fire, interception and
counter-interception; recon in the side's own turn only; what a side sees of
it; the greedy bot flying both in a whole game; save and replay."""
from __future__ import annotations

from runtime import attachments as A
from runtime.bots import GreedyBot, play
from runtime.observe import observe
from runtime.replay import SavedGame, Timeline, digest

from test_dicepool_air import _game, _legal, _stack, _steps



def _window(runner, s, active="german", pools=(), when="move", title="Movement (8.0)"):
    """``active``'s phase of ``when`` begins with the chits in their side's support pool."""
    for c in pools:
        s.place(c, None, f"pool:{runner.game.counters[c].side}-support")
    s.phase, s.active, s.activated, s.pending = "movement" if when == "move" else "combat", active, set(), []
    s.step = {"decision": "movement" if when == "move" else "combat"}
    runner.engine.dicepool.air.open_window(s, when, title)
    return s


def test_a_ground_attack_outside_a_battle_runs_aa_fire_interception_and_counter_interception(dice):
    """16.1(1)2: a ground attack at a face-up counter, at any time; 16.1(2)-(5):
    the AA gun in range fires first, then the interceptor, whom the raider's
    fighter shoots at first; 16.3(3): a hit sends the target back to its cup,
    no damage track outside a battle."""
    runner, s = _game()
    eng = runner.engine
    _stack(runner, s, "LAH+Tiger1", "0710")
    _stack(runner, s, "52G+T34-1+AA1", "0505")
    A.face_up(runner.game, s, ["52G"], only="T34-1")   # it fought: face up (3.5(5))
    s = _window(runner, s, pools=("Ju87-1", "Bf109-1", "La5-1"))
    p = s.pending[0]
    assert p["window"] == "move" and p["stage"] == "air" and p["side"] == "german"   # the phasing side first
    assert _legal(runner, s) == {"use Ju87-1 T34-1", "done"}   # face down (AA1) is no target (16.1(1)2)
    assert "Movement (8.0)" in eng.dicepool.why(s, p, None, eng.legal_actions(s))
    dice["faces"] = [5]                      # AA fire misses
    s = eng.apply(s, "use Ju87-1 T34-1")
    assert _steps(s)[-2:] == ["Ju87-1 (german) flies a ground-attack mission at T34-1 in 0505 (16.1(1))",
                              "AA fire: AA1 (soviet) at Ju87-1 (3 or less): 5, missed"]
    assert "face-up:AA1" in s.done           # it fired: face up (3.5(6))
    assert s.pending[0]["stage"] == "intercept" and s.pending[0]["side"] == "soviet"
    s = eng.apply(s, "use La5-1")
    assert s.pending[0]["stage"] == "counter" and _legal(runner, s) == {"use Bf109-1", "done"}
    dice["faces"] = [6, 6, 1]                # counter-interception misses, interception misses, the shot hits
    s = eng.apply(s, "use Bf109-1")
    assert _steps(s)[-4:] == [
        "Bf109-1 (german) counter-intercepts La5-1",
        "counter-interception: Bf109-1 (german) at La5-1 (4 or less): 6, missed",
        "interception: La5-1 (soviet) at Ju87-1 (3 or less): 6, missed",
        "ground attack: Ju87-1 (german) at T34-1 (◆ (1, or die + 1 <= 4)): 1, hit: it goes back to its cup (16.3(3))"]
    assert A.host_of(s, "T34-1") is None and s.units["T34-1"].box.startswith("pool:")
    # what flew goes back to its cup; nobody has a mission left: the window closes, the phase goes on
    assert {s.units[c].box for c in ("Ju87-1", "Bf109-1")} == {"pool:german-support-cup"}
    assert s.units["La5-1"].box == "pool:soviet-support-cup"
    assert s.pending == [] and s.step["decision"] == "movement"


def test_no_window_opens_when_nobody_has_a_mission(dice):
    runner, s = _game()
    _stack(runner, s, "LAH+Tiger1", "0710")
    _stack(runner, s, "52G+T34-1", "0505")      # face down: no ground-attack target
    s = _window(runner, s, pools=("Ju87-1", "Il2-1"))
    assert s.pending == []
    A.face_up(runner.game, s, ["LAH"])            # the Tiger face up: the Soviets' Il-2 may fly at it
    s = _window(runner, s)
    assert s.pending and s.pending[0]["side"] == "soviet"   # the Germans, with nothing to fly, are not asked
    assert _legal(runner, s) == {"use Il2-1 Tiger1", "done"}
    s = runner.engine.apply(s, "done")
    assert s.pending == []


def test_recon_outside_a_battle_flies_in_the_sides_own_turn_only_and_what_it_turns_up_is_seen(dice):
    """16.1(1)3: recon only in the side's own turn; 16.1(6)3: up to 3 counters
    face up, named by unit and place (3.5(5): the enemy sees how many, not
    which); face up, a counter is seen by both sides (3.5(5): once face up it
    stays so), so the recon side's view shows it from then on."""
    runner, s = _game()
    eng, g = runner.engine, runner.game
    _stack(runner, s, "LAH+Tiger1", "0710")
    _stack(runner, s, "31TK+T34-2+PakFront2", "0808")
    s = _window(runner, s, active="soviet", pools=("Fw189",))
    assert s.pending == []                       # not in the Soviet turn (16.1(1)3)
    s = _window(runner, s, active="german", when="combat", title="Normal attack (5.1(4))")
    assert _legal(runner, s) == {"use Fw189 31TK#1", "use Fw189 31TK#2", "done"}
    seen = observe(g, s, "german")
    assert "PakFront2" not in seen.attached.get("31TK", ()) and "T34-2" not in seen.attached.get("31TK", ())
    s = eng.apply(s, "use Fw189 31TK#2")         # no AA, no fighter: it turns PakFront2 up, then picks on
    assert "Fw189 (german) turns PakFront2 under 31TK face up" in _steps(s)
    assert _legal(runner, s) == {"use Fw189 31TK#1", "done"}
    seen = observe(g, s, "german")
    assert "PakFront2" in seen.attached["31TK"] and "T34-2" not in seen.attached["31TK"]
    assert any("turns PakFront2" in str(e.get("step")) for e in seen.log)
    s = eng.apply(s, "done")
    assert s.units["Fw189"].box == "pool:german-support-cup" and s.pending == []
    # the Soviet recon aircraft does not fly in the German turn
    runner, s = _game()
    _stack(runner, s, "LAH+Tiger1", "0710")
    s = _window(runner, s, active="german", pools=("Po2R",))
    assert s.pending == []
    s = _window(runner, s, active="soviet")
    assert _legal(runner, s) == {"use Po2R LAH#1", "done"}


def test_a_greedy_game_flies_missions_outside_the_battles_and_replays_from_its_save():
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime.runner import Runner
    game = compile_game(ROOT / "games" / "prokhorovka")
    runner = Runner(game)
    actions, recons = [], []

    def seen(st, side, a):
        actions.append(str(a))
        m = (st.pending[0].get("air") or {}).get("mission") if st.pending and st.pending[0].get("window") else None
        if m and m["role"] == "recon":
            recons.append((m["side"], st.active))
    final, n = play(runner, runner.new_game(1), {side: GreedyBot(1) for side in game.sides}, on_action=seen)
    assert final.result is not None
    steps = [e["step"] for e in final.log if "air" in e]
    assert any("flies a ground-attack mission" in x for x in steps)
    assert any("flies a recon mission" in x for x in steps)      # the greedy bot flies recon (16.1(1)3)
    assert recons and all(side == active for side, active in recons)   # in its own turn only
    saved = SavedGame.loads(SavedGame("games/prokhorovka", "campaign", 1, actions, digest=digest(final)).dumps())
    t, problem = Timeline.replay(runner, saved)
    assert problem == "" and digest(t.latest) == digest(final)


def test_check_refuses_an_air_window_it_cannot_open(tmp_path, capfd):
    from test_dicepool_air import _check_fails
    err = _check_fails(tmp_path, capfd, "    window move combat", "    window move supply")
    assert "'supply' is not a phase procedure an air window opens at: move, combat" in err
    err = _check_fails(tmp_path, capfd, "    window move combat", "    window move combat",
                       "    ground-attack column ground-attack  ", "    # ")
    assert "an air window outside a battle needs 'ground-attack column C'" in err
