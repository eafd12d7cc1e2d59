"""Words for the playtest window, without Qt: log entries in plain
English, the decision due and what each answer means, the phase, the
command range of the active HQ.  Everything here reads a Runner and a
GameState and changes nothing."""
from __future__ import annotations

from runtime.actions import Advance, Attack, Done, Hold, LoseStep, Move, Retreat
from runtime.hexes import Hex
from runtime.runner import Activate, Choose, Place, Play, Runner, Withdraw
from runtime.state import GameState


def side_title(runner: Runner, side: str | None) -> str:
    if not side:
        return "—"
    s = runner.game.sides.get(side)
    return s.title if s else side


def entry_kind(e: dict) -> str:
    """roll | draw | turn | over | vp | loss | action | info: how a log line is shown."""
    if "roll" in e:
        return "roll"
    if "draw" in e:
        return "draw"
    if e.get("event") == "new turn" or e.get("event") == "setup":
        return "turn"
    if e.get("event") == "game over":
        return "over"
    if "vp" in e:
        return "vp"
    if "eliminated" in e or "destroyed" in e or ("supply" in e and e.get("result") not in (None, "skipped")):
        return "loss"
    if "action" in e:
        return "action"
    return "info"


def describe(e: dict, runner: Runner | None = None) -> str:
    """One log entry as a sentence."""
    who = (lambda s: side_title(runner, s)) if runner is not None else (lambda s: s or "—")
    if "roll" in e:
        return f"die {e['roll']} rolled {e['result']}" + (f" (for {e['for']})" if e.get("for") else "")
    if "draw" in e:
        return f"chit drawn: {e['draw']} ({e.get('left', '?')} left in the cup)"
    ev = e.get("event")
    if ev == "setup":
        return f"set-up of scenario {e.get('scenario')} (seed {e.get('seed')})"
    if ev == "new turn":
        return f"——— turn {e.get('turn')} ———"
    if ev == "game over":
        vp = ", ".join(f"{who(k)} {v}" for k, v in sorted((e.get("vp") or {}).items()))
        return f"game over after turn {e.get('turns')} ({e.get('why')}): winner {who(e.get('winner'))}" + \
            (f"; VP {vp}" if vp else "")
    if "action" in e:
        text = f"{who(e.get('side'))}: {e['action']}"
        if "path" in e:
            text += f" (path {'→'.join(e['path'])}, {e.get('mp')} MP)"
        if "odds" in e:
            text += f" — odds {e['odds']}, column {e.get('column')}, die {e.get('die')}: {e.get('result')}"
        return text
    if "chits" in e:
        return f"{who(e.get('side'))} puts chits in the cup: {', '.join(e['chits']) or 'none'}"
    if "activate" in e:
        units = e.get("units") or []
        if e.get("why"):
            return f"{e['activate']} activates nobody: {e['why']}"
        return f"{e['activate']} activates {len(units)} unit{'s' * (len(units) != 1)}: {', '.join(units)}"
    if "interrupt" in e:
        return f"{e['interrupt']} is played" + (f"; {e['returned']} goes back into the cup" if e.get("returned") else "")
    if "supply" in e:
        if e.get("result") == "skipped":
            return f"{who(e['supply'])} supply check: skipped"
        return f"supply: {e['supply']} {e.get('result')}"
    if "eliminated" in e:
        return f"{e['eliminated']} is eliminated (to {e.get('to')})"
    if "destroyed" in e:
        return f"{e['destroyed']} is destroyed: {e.get('why')} (to {e.get('to')})"
    if "vp" in e:
        return f"{who(e['vp'])} {'+' if e.get('amount', 0) >= 0 else ''}{e.get('amount')} VP" + \
            (f" for {e['for']}" if e.get("for") else "")
    if "reinforcements" in e:
        return f"{who(e['reinforcements'])} reinforcements: {e.get('placed', 0)} placed"
    if "arrival" in e:
        return f"arrival {e['arrival']}: {e.get('placed', 0)} placed"
    if "withdrawal" in e:
        rest = {k: v for k, v in e.items() if k not in ("turn", "withdrawal")}
        return f"withdrawal {e['withdrawal']} done: " + ", ".join(f"{k} {v}" for k, v in rest.items())
    return ", ".join(f"{k} {v}" for k, v in e.items() if k != "turn")


# ------------------------------------------------------------------ the decision due

def decision_kind(s: GameState) -> str:
    """loss | retreat | hold | advance | movement | combat | choose | interrupt |
    place | activate | withdraw | over | none"""
    if s.result is not None:
        return "over"
    if s.pending:
        return s.pending[0]["kind"]
    return s.step.get("decision") or "none"


def phase_title(runner: Runner, s: GameState) -> str:
    if s.result is not None:
        return "game over"
    if 0 <= s.pc < len(runner.program):
        ph = runner.program[s.pc].phase
        return ph.title or ph.id
    return ""


def prompt(runner: Runner, s: GameState) -> str:
    """What the player to move is asked, in a sentence."""
    k = decision_kind(s)
    who = side_title(runner, runner.to_move(s))
    st = s.step
    if k == "over":
        r = s.result
        return f"The game is over: {r.get('why')}. Winner: {side_title(runner, r.get('winner'))}."
    if k == "loss":
        p = s.pending[0]
        alive = [u for u in p["units"] if s.units[u].hex is not None]
        return f"{who} loses {p['steps']} step{'s' * (p['steps'] != 1)}: choose the unit ({', '.join(alive)})."
    if k == "retreat":
        p = s.pending[0]
        return f"{p['unit']} retreats {p['hexes']} hex{'es' * (p['hexes'] != 1)}: click a highlighted hex " \
               "(or pick a path in the list)."
    if k == "hold":
        p = s.pending[0]
        return f"{who} may hold ({p['hexes']} step loss{'es' * (p['hexes'] != 1)} instead of the retreat) " \
               "or retreat."
    if k == "advance":
        p = s.pending[0]
        left = [u for u in p["units"] if u not in p["advanced"] and s.units[u].hex is not None]
        return f"{who} may advance into {p['hex']} ({', '.join(left)}): click a highlighted hex " \
               "(select the unit first to choose who), or Done."
    if k == "movement":
        return f"{who} moves: select a unit, then click a shaded hex (its MP cost is printed). Done ends movement."
    if k == "combat":
        return f"{who} attacks: click an enemy hex, adjust the attackers, check the odds, Roll. Done ends combat."
    if k == "choose":
        return f"{who} chooses chits for the cup ({len(st.get('chosen', []))} of {st.get('count')} chosen)."
    if k == "interrupt":
        drawn = st.get("chit")
        when = "at the end of the turn" if st.get("at-end") else f"instead of the drawn {drawn}"
        return f"{who} may play {', '.join(st.get('playable', []))} {when}, or pass."
    if k == "place":
        return f"{who} places {'arriving units' if st.get('arrival') else 'reinforcements'} " \
               f"({st.get('placed', 0)} of up to {st.get('n')}): select a unit in the list, click a highlighted hex."
    if k == "activate":
        return f"{who} activates up to {st.get('n')} units with {st.get('chit')}: click units or pick in the list."
    if k == "withdraw":
        w = runner.game.withdrawals.get(st.get("withdrawal", ""))
        need = f" ({w.factor} {st.get('sum', 0)} of {w.total})" if w else ""
        return f"{who} withdraws units{need}: click a unit or pick in the list."
    return "Nothing to decide."


def done_label(s: GameState) -> str:
    """What 'done' means now, for its button."""
    return {"movement": "End movement", "combat": "End combat", "advance": "No (more) advance",
            "hold": "Retreat", "choose": "Stop choosing", "interrupt": "Pass", "place": "Stop placing",
            "activate": "Stop activating"}.get(decision_kind(s), "Done")


def action_label(a, runner: Runner, s: GameState) -> str:
    """A legal action as a line of the decisions list."""
    g = runner.game
    if isinstance(a, Done):
        return done_label(s)
    if isinstance(a, Hold):
        p = s.pending[0]
        return f"Hold: take {p['hexes']} step loss{'es' * (p['hexes'] != 1)} instead of retreating"
    if isinstance(a, LoseStep):
        u = s.units[a.unit]
        steps = g.counters[a.unit].steps
        after = "eliminated" if u.step + 1 >= len(steps) else "reduced"
        return f"Lose a step from {a.unit} ({after})"
    if isinstance(a, Retreat):
        return f"Retreat {a.unit} " + ("→ destroyed (no retreat possible)" if not a.path else "→ " + " → ".join(a.path))
    if isinstance(a, Advance):
        return f"Advance {a.unit} → " + " → ".join(a.path)
    if isinstance(a, Choose):
        c = g.chits.get(a.chit)
        return f"Choose {a.chit}" + (f" ({c.title})" if c and c.title and c.title != a.chit else "")
    if isinstance(a, Play):
        return f"Play {a.chit}"
    if isinstance(a, Place):
        return f"Place {a.unit} in {a.at}"
    if isinstance(a, Activate):
        return f"Activate {a.unit}"
    if isinstance(a, Withdraw):
        return f"Withdraw {a.unit}"
    if isinstance(a, Attack):
        return f"Attack {a.target} with {', '.join(a.attackers)}"
    if isinstance(a, Move):
        return f"Move {a.unit} to {a.to}" + (f" ({a.mode})" if a.mode else "")
    return str(a)


# ------------------------------------------------------------------ command and chits

def active_hq(runner: Runner, s: GameState) -> tuple[str, str, int] | None:
    """(chit, HQ unit, command range) of the chit being carried out, when it
    activates an HQ that is on the map."""
    cid = s.step.get("chit")
    if not cid:
        return None
    chit = runner.game.chits.get(cid)
    if chit is None or chit.kind not in ("hq", "interrupt") or not chit.hq:
        return None
    u = s.units.get(chit.hq)
    if u is None or u.hex is None:
        return None
    c = runner.game.counters[chit.hq]
    rng = c.steps[min(u.step, len(c.steps) - 1)].get(runner.game.activation.range_factor, 0)
    return cid, chit.hq, int(rng)


def command_hexes(runner: Runner, s: GameState) -> set[Hex]:
    hq = active_hq(runner, s)
    if hq is None:
        return set()
    centre = s.units[hq[1]].hex
    return {h for h in centre.within(hq[2]) if h in runner.board}


def drawn_this_turn(s: GameState) -> list[str]:
    """Chits drawn since the turn began (interrupts played included)."""
    out: list[str] = []
    for e in reversed(s.log):
        if e.get("event") in ("new turn", "setup"):
            break
        if "draw" in e:
            out.append(e["draw"])
        elif "interrupt" in e:
            out.append(e["interrupt"])
    return out[::-1]


def factors_text(runner: Runner, s: GameState, uid: str) -> str:
    """The factors a counter shows now (its current step), in printed order."""
    g = runner.game
    c = g.counters[uid]
    step = c.steps[min(s.units[uid].step, len(c.steps) - 1)]
    cls = g.unit_classes.get(c.unit_class)
    names = cls.factors if cls else tuple(step)
    return "-".join(str(step[n]) for n in names if n in step)


def boxes(s: GameState) -> dict[str, list[str]]:
    """Units off the map, by box ("pool:available", "eliminated", "turn:3"...)."""
    out: dict[str, list[str]] = {}
    for u in s.units.values():
        if u.hex is None and u.box:
            out.setdefault(u.box, []).append(u.id)
    return {k: sorted(v) for k, v in sorted(out.items())}


def box_title(runner: Runner, box: str) -> str:
    kind, _, name = box.partition(":")
    if kind == "pool":
        p = runner.game.pools.get(name)
        return p.title if p and p.title else f"pool {name}"
    if kind == "turn":
        return f"arriving on turn {name}"
    return box


def progress(runner: Runner, s: GameState) -> float:
    """How far through the scenario's turns the game is, 0..1."""
    if s.result is not None:
        return 1.0
    first, last = runner.scenario.first_turn, runner.scenario.last_turn
    n = max(1, last - first + 1)
    within = s.pc / max(1, len(runner.program))
    return max(0.0, min(1.0, (s.turn - first + within) / n))
