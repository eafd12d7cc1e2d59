"""Words for the playtest window, without Qt: log entries in plain
English, the decision due and what each answer means, the phase, the
command range of the active HQ.  Everything here reads a Runner and a
GameState and changes nothing."""
from __future__ import annotations

from runtime import attachments as A
from runtime.combat import firepower as F
from runtime.combat.dicepool.hits import firing_round
from runtime.combat.dicepool.odds import pct
from runtime.actions import Advance, Attack, Displace, Done, Hit, Hold, LoseStep, Move, Pair, Retreat, SendBack, Use
from runtime.hexes import Hex
from runtime.runner import Activate, Choose, Place, Play, Runner, Withdraw
from runtime.stacking import overstacked, placed_from
from runtime.state import GameState

MARKER_TITLES = {"disrupted": "disrupted", "out-of-supply": "out of supply", "isolated": "isolated"}


def side_title(runner: Runner, side: str | None) -> str:
    if not side:
        return "—"
    s = runner.game.sides.get(side)
    return s.title if s else side


def entry_kind(e: dict) -> str:
    """roll | draw | turn | over | vp | battle | loss | action | info: how a log line is shown."""
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
    if "battle" in e or "option" in e:
        return "battle"
    if "supply" in e and str(e.get("result", "")).startswith("supplied"):
        return "info"
    if "eliminated" in e or "destroyed" in e or "disrupted" in e or \
            ("supply" in e and e.get("result") not in (None, "skipped")):
        return "loss"
    if "action" in e:
        return "action"
    return "info"


SECRET_ACTIONS = ("choose ", "pick ")  # chit choices: secret until the chit is drawn


def _rolled(e: dict) -> str:
    """An attack's odds, column, die and result, as a log sentence ends with them."""
    drm = f" {e['drm']:+d}" if e.get("drm") else ""
    return f" — odds {e['odds']}, column {e.get('column')}, die {e.get('die')}{drm}: {e.get('result')}"


def describe(e: dict, runner: Runner | None = None, hidden: set[str] | frozenset[str] = frozenset()) -> str:
    """One log entry as a sentence; the secrets of the ``hidden`` sides
    (which chits they chose or picked) are left out."""
    who = (lambda s: side_title(runner, s)) if runner is not None else (lambda s: s or "—")
    if e.get("side") in hidden:
        if str(e.get("action", "")).startswith(SECRET_ACTIONS):
            return f"{who(e['side'])} chooses a chit (hidden)"
        if "chits" in e:
            return f"{who(e['side'])} puts {len(e['chits'])} chits in the cup (hidden)"
    if "roll" in e:
        return f"die {e['roll']} rolled {e['result']}" + (f" (for {e['for']})" if e.get("for") else "")
    if "draw" in e and isinstance(e["draw"], list) and any(isinstance(x, dict) for x in e["draw"]):
        return "drawn: " + ", ".join(f"{x.get('kind')} (" + ("value hidden" if x.get("value") is None
                                                             else f"value {x['value']}") + ")"
                                      for x in e["draw"] if isinstance(x, dict)) + \
            (f" (for {e['for']})" if e.get("for") else "")
    if "draw" in e and isinstance(e["draw"], list) and e.get("for"):  # an effect's random pick (a cup)
        return f"drawn at random ({e['for']}): {', '.join(str(x) for x in e['draw'])}"
    if "draw" in e:
        return f"chit drawn: {e['draw']} ({e.get('left', '?')} left in the cup)"
    if "attach" in e:  # a counter put under a unit (runtime/attachments.py)
        return f"{e['attach']} goes under {e.get('to')}" + (f", from under {e['from']}" if e.get("from") else "") + \
            (f" ({e['for']})" if e.get("for") else "")
    if "detach" in e:
        return f"{e['detach']} leaves {e.get('from') or 'its unit'} for {e.get('to')}" + \
            (f" ({e['for']})" if e.get("for") else "")
    if "convert" in e:
        return f"{e['convert']} leaves {e.get('from')} as a unit of its own"
    if "return" in e:
        return f"{e['return']} goes back to {e.get('to')}"
    ev = e.get("event")
    if ev == "setup":
        return f"set-up of scenario {e.get('scenario')} (seed {e.get('seed')})"
    if ev == "new turn":
        return f"——— turn {e.get('turn')} ———"
    if ev == "game over":
        vp = ", ".join(f"{who(k)} {v}" for k, v in sorted((e.get("vp") or {}).items()))
        return f"game over after turn {e.get('turns')} ({e.get('ended', e.get('why'))}): " \
            f"winner {who(e.get('winner'))}" + (f"; VP {vp}" if vp else "") + \
            (f" ({e['why']})" if "ended" in e else "")
    if "battle" in e and "step" in e:  # a dice-pool battle's step: its dice and damage
        return f"battle in {e['battle']}: {e['step']}"
    if "battle" in e and "damage" in e:
        lost = ", ".join(f"{who(k)} {v}" for k, v in e.get("losses", {}).items())
        return f"battle in {e['battle']}: damage " + ", ".join(f"{who(k)} {v}" for k, v in e["damage"].items()) + \
            f"; totals {', '.join(f'{who(k)} {v}' for k, v in e.get('total', {}).items())}; {e['winner']}" + \
            (f"; steps to lose {lost}" if lost else "")
    if "support" in e and "battle" in e:
        return f"{who(e.get('side'))} uses support chit {e['support']} in {e['battle']}"
    if "battle" in e and "outcome" in e:
        return f"battle in {e['battle']}: outcome {e['outcome']}, {e.get('why')} ({who(e.get('winner'))} wins)"
    if "battle" in e:
        fire = ", ".join(f"{who(k)} {v}" for k, v in (e.get("fire") or {}).items())
        detail = str(e.get("detail", ""))
        detail = detail.split(": ", 1)[1] if detail.startswith("battle in") and ": " in detail else detail
        return f"battle in {e['battle']}: firepower {fire}" + (f" — {detail}" if detail else "")
    if "option" in e:
        title = runner.game.battle_options[e["option"]].title if runner is not None and \
            e["option"] in runner.game.battle_options else e["option"]
        gives = [f"{'+' if v >= 0 else ''}{v} {whose}" for whose, v in (("own", e.get("own", 0)),
                                                                          ("enemy", e.get("enemy", 0))) if v]
        if e.get("shift"):
            n = e["shift"]
            gives.append(f"{n} column{'s' * (abs(n) != 1)} in its favour")
        return f"{who(e.get('side'))} uses {title}" + (f" with {e['unit']}" if e.get("unit") else "") + \
            f": {', '.join(gives) or 'no effect'}"
    if "called-off" in e:
        return f"the attack on {e.get('attack')} is called off: {e['called-off']}"
    if "disrupted" in e:
        return f"{e['disrupted']} is disrupted"
    if "back" in e:
        return f"{e['back']} goes back to {e.get('to')}"
    if "effect" in e:  # what a rule's effect did, and why (runtime/effects.py)
        extra = ([", ".join(map(str, e["units"])) or "no unit had it"] if "units" in e else []) + \
            ([f"to {e['to']}"] if "to" in e else []) + ([f"{e['count']} removed"] if "count" in e else []) + \
            ([f"{e['reduced']} reduced"] if "reduced" in e else [])
        return (f"{e['why']}: " if e.get("why") else "") + str(e["effect"]) + (f" ({'; '.join(extra)})" if extra else "")
    if "marker" in e and "unit" in e:
        return f"{e.get('unit')} is {MARKER_TITLES.get(e['marker'], e['marker'])}" + \
            (f" ({e['for']})" if e.get("for") else "")
    if "recover" in e:
        return f"{e['recover']} recovers (no longer disrupted)"
    if "retreat" in e:
        return f"{e['retreat']} retreats to {e.get('to')}"
    if "cannot-enter" in e:  # stacking { judged end }: no move out of an over-stacked entry hex
        return f"{e['cannot-enter']} cannot enter from {e.get('at')}: {e.get('why')}; back to " \
            f"{str(e.get('to', '')).removeprefix('pool:')}"
    if "moves-on" in e and "path" in e:  # on from its entry hex (AVD: the units that arrive and move on)
        return f"{e['moves-on']} moves onto the map at {e.get('at')} and on to {e.get('to')} " \
            f"(path {'→'.join(map(str, e['path']))})"
    if "moves-on" in e:  # and what the entry costs in each movement mode (GJ63 7.0(2))
        modes = [m for m in runner.game.movement.modes if m.id in e] if runner is not None else []
        return f"{e['moves-on']} moves onto the map at {e.get('at')} ({e.get('mp')} MP" + \
            "".join(f"; by {m.title[0].lower() + m.title[1:]}: {e[m.id]} MP" for m in modes) + ")"
    if "deploy" in e:
        return f"{e['deploy']} is set up in {e.get('at')}"
    if "rebuilt" in e:
        return f"{e['rebuilt']} is rebuilt in {e.get('at')}"
    if "rebuild" in e:
        return f"{who(e['rebuild'])} rebuilds {e.get('placed', 0)} unit{'s' * (e.get('placed', 0) != 1)}"
    if "bought" in e:  # a reinforcement bought with points (AVD 增援 5 c-e): a unit placed, or a chit
        where = "into the cup" if e.get("into") == "cup" else f"at {e.get('at')}"
        return f"{e['bought']} is bought ({e.get('points')} point{'s' * (e.get('points') != 1)}) and put {where}"
    if "play" in e and "phase" in e:  # a phase that plays a chit as if drawn (AVD turn 1: 3PzG)
        return f"chit {e['play']} is played ({e['phase']})"
    if "event" in e and "title" in e:  # an event of the turn track
        return f"event: {e['title']}"
    if "row" in e and "attack" in e:  # a result that reads another row of the CRT (AVD 7 d)
        return f"the attack on {e['attack']}: row {e['row']} of the table gives {e.get('result')}"
    if "air" in e and "step" in e:  # a dice-pool battle's air step (GJ63)
        return f"air over {e['air']}: {e['step']}"
    if "decide" in e:
        if "answer" not in e:  # (the decision asked for: the answer is logged when given)
            return f"{who(e.get('side'))} decides: {e['decide']}" + (f" ({e['for']})" if e.get("for") else "")
        return f"decision {e['decide']}: {e.get('answer')}"
    if "table" in e:
        t = runner.game.die_tables.get(e["table"]) if runner is not None else None
        return f"{t.title if t and t.title else e['table']}: {e.get('total')} gives {e.get('result') or 'nothing'}"
    if "action" in e:
        text = f"{who(e.get('side'))}: {e['action']}"
        if "path" in e:
            text += f" (path {'→'.join(e['path'])}, {e.get('mp')} MP)"
        if "attacks" in e:
            text += f" — attacks {e['attacks']}"
        if e.get("declared"):
            text += " — declared: fought once every attack is declared"
        if "odds" in e:
            text += _rolled(e)
        if "marker" in e:  # (a unit designated: GJ63's reserve)
            text += f" — {MARKER_TITLES.get(e['marker'], e['marker'])}"
        return text
    if "reroll" in e:  # a CRT result that has the same attack rolled again (runtime/engine.py)
        return f"{who(e.get('side'))}: the attack on {e['reroll']} with {','.join(map(str, e.get('attackers', ())))} " \
            f"is rolled again" + _rolled(e)
    if "chits" in e:
        return f"{who(e.get('side'))} puts chits in the cup: {', '.join(e['chits']) or 'none'}"
    if "activate" in e:
        units = e.get("units") or []
        if e.get("group") and e.get("why"):  # a chain per tag without a commander (AVD 3 d)
            return f"{e['activate']}: {e['why']} for the {e['group']} chain"
        if e.get("commander"):
            return f"{e['activate']}: {e['commander']} commands the {e['group']} chain, activating " \
                   f"{len(units)} unit{'s' * (len(units) != 1)}: {', '.join(units)}"
        if e.get("why"):
            return f"{e['activate']} activates nobody: {e['why']}"
        return f"{e['activate']} activates {len(units)} unit{'s' * (len(units) != 1)}: {', '.join(units)}"
    if "interrupt" in e:
        return f"{e['interrupt']} is played" + (f"; {e['returned']} goes back into the cup" if e.get("returned") else "")
    if "supply" in e:
        if e.get("result") == "skipped":
            return f"{who(e['supply'])} supply check: skipped"
        return f"supply: {e['supply']} {e.get('result')}"
    if "stands" in e:
        return f"{e['stands']} does not retreat: it loses {e['steps']} step{'s' * (e['steps'] != 1)} instead"
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
    """loss | retreat | follow | displace | send-back | hold | advance | movement | combat | choose | interrupt |
    place | activate | command-hq | commander | withdraw | over | none"""
    if s.result is not None:
        return "over"
    if s.pending:
        return s.pending[0]["kind"]
    return s.step.get("decision") or "none"


def phase_title(runner: Runner, s: GameState) -> str:
    if s.result is not None:
        return "game over"
    if s.step.get("decision") == "deploy":
        return f"set-up by the players ({runner.scenario.title})"
    if 0 <= s.pc < len(runner.program):
        ph = runner.program[s.pc].phase
        return ph.title or ph.id
    return ""


def prompt(runner: Runner, s: GameState) -> str:
    """What the player to move is asked, in a sentence."""
    k = decision_kind(s)
    who = side_title(runner, runner.to_move(s))
    st = s.step
    ask = runner.effect_asks(s)
    if ask is not None and s.result is None:  # an effect asks (runtime.effects)
        if ask["decision"] == "fire":
            kinds = ", ".join(runner.game.fire_attacks[k].title for k in ask["kinds"])
            return f"{who} may make {ask['left']} fire attack{'s' * (ask['left'] != 1)} ({kinds}): click an enemy " \
                   "hex in reach to see the odds, then Fire (or pick one in the list); Done stops."
        if ask["decision"] == "choose":
            return f"{who}: {ask.get('question') or 'choose an option'} Pick one in the list."
        if ask["decision"] == "relocate":
            return f"{who} may relocate {', '.join(ask['units'])} ({s.effects[0]['why']}): click one, then a " \
                   "highlighted hex (or select one in the list); 'Leave the rest' keeps the others where they are."
        return f"{who} picks a unit in the list ({ask.get('verb', '')})."
    if k == "over":
        r = s.result
        return f"The game is over: {r.get('ended', r.get('why'))}. Winner: {side_title(runner, r.get('winner'))}" + \
            (f" ({r['why'].partition(': ')[2]})." if "ended" in r else ".")
    if k == "loss":
        p = s.pending[0]
        alive = runner.engine.loss_takers(s, p["units"])
        return f"{who} loses {p['steps']} step{'s' * (p['steps'] != 1)}: choose the unit ({', '.join(alive)})."
    if k == "retreat":
        p = s.pending[0]
        return f"{p['unit']} retreats {p['hexes']} hex{'es' * (p['hexes'] != 1)}: click a highlighted hex " \
               "(or pick a path in the list)."
    if k == "displace":
        p = s.pending[0]
        n = len(p["hexes"])
        where = f" from {p['from']}" if p.get("from") else ""
        return f"{p['unit']} is displaced{where} (outlined) toward its supply: {who} puts it on one of {n} " \
               f"highlighted hex{'es' * (n != 1)}, each at least {runner.game.movement.displace} hexes nearer " \
               "its supply, in supply and outside enemy ZOC: click one (or pick one in the list)."
    if k == "send-back":  # stacking { judged end }: no unit in the hex can move out (GJ63 3.4(4))
        p = s.pending[0]
        return f"{p['hex']} (outlined) is over the stacking limit at the end of movement ({p['why']}) and no unit " \
               f"there can move out: {who} chooses which of {', '.join(p['units'])} (ringed) goes back to where it " \
               "came from, with the counters it carries, to come again later: pick one in the list."
    if k == "follow":
        p = s.pending[0]
        went = [f"{mover} to {path[-1]}" for mover, path in p["paths"]
                if s.units[mover].hex is not None and runner.board.hex_id(s.units[mover].hex) == path[-1]]
        return f"{p['unit']} (ringed) retreats with a unit it stacked with ({', '.join(went)}): click a " \
               "highlighted hex (or pick one in the list)."
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
        return movement_prompt(runner, s, who)
    if k == "combat" and runner.game.combat.procedure == "firepower":
        if Done() in runner.legal_actions(s):
            return f"{who}'s combat: no battle is left. End combat goes on."
        return f"{who} fights every battle (outlined in red: where {who}'s units moved in with enemy units): " \
               "click one or pick it in the list to see the firepower, then Fight."
    if k == "combat" and runner.game.dice_pool is not None and runner.game.dice_pool.order_battles:
        sup = side_title(runner, runner.game.dice_pool.superior)
        declared = ", ".join(h for h, _ in s.step.get("declared", []))
        return f"{who} declares attacks: click an enemy hex, adjust the attackers (their equipment comes with " \
               f"them), check the dice pools and the chance to win, Declare. {done_label(s)} when every attack is " \
               f"declared: {sup} then chooses the order of the battles (9.2(3))." + \
               (f" Declared: {declared}." if declared else "")
    if k == "combat" and runner.game.dice_pool is not None:
        return f"{who} attacks: click an enemy hex, adjust the attackers (their equipment comes with them), check " \
               "the dice pools and the chance to win, Fight. Done ends combat."
    if k == "dice-pool":
        return dice_pool_prompt(runner, s, who)
    if k == "combat" and runner.game.combat.declare_first:
        declared = ", ".join(h for h, _ in s.step.get("declared", []))
        return f"{who} declares attacks: click an enemy hex, adjust the attackers, check the odds, Declare. " \
               f"{done_label(s)} when every attack is declared: {who} then fights them in the order it " \
               "chooses." + (f" Declared: {declared}." if declared else "")
    if k == "combat":
        return f"{who} attacks: click an enemy hex, adjust the attackers, check the odds, Roll. Done ends combat."
    if k == "crt-order":
        return f"Every attack is declared: {who} chooses the battle fought next (listed below, with its odds as " \
               "they stand now)."
    if k == "battle":
        return battle_prompt(runner, s, who)
    if k == "declare":
        p = s.pending[0]
        return f"Before the roll on {p['hex']}: {who} may use battle options (each shifts the column in " \
               f"{who}'s favour): pick one in the list, or {done_label(s)}."
    if k == "decide":
        return f"{who}: {st.get('question') or st.get('option')} Choose Yes in the list, or press No."
    if k == "deploy":
        return f"{who} sets up: select a unit in the list, click a highlighted hex (the area the scenario gives " \
               "it). Place the rest puts the units left where the scenario's default puts them."
    if k == "rebuild":
        rules = [r.title or r.id for r in runner.game.rebuilds.values() if r.side == st.get("side")]
        return f"{who} rebuilds units ({'; '.join(rules)}): select a unit in the list, click a highlighted hex; " \
               "Stop rebuilding when done."
    if k == "choose":
        return f"{who} chooses chits for the cup ({len(st.get('chosen', []))} of {st.get('count')} chosen)."
    if k == "interrupt":
        drawn = st.get("chit")
        when = "at the end of the turn" if st.get("at-end") else f"instead of the drawn {drawn}"
        return f"{who} may play {', '.join(st.get('playable', []))} {when}, or pass."
    if k == "place":
        quota = st.get("quota")
        which = f"; still to choose: {', '.join(f'{n} of {f}' for f, n in sorted(quota.items()))}" if quota else ""
        areas = st.get("areas", {})  # each unit's own entry area (GJ63 7.0(1))
        by_area: dict[str, list[str]] = {}
        for u in st.get("units", []):
            by_area.setdefault(areas.get(u, st.get("area", "")), []).append(u)
        where = "; ".join(f"{', '.join(us)} in {a}" for a, us in sorted(by_area.items()) if a) if areas else \
            (f"in {st['area']}" if st.get("area") else "")
        return f"{who} places {'arriving units' if st.get('arrival') else 'reinforcements'} " \
               f"({st.get('placed', 0)} of up to {st.get('n')}{', ' + where if where else ''}" \
               f"{which}): select a unit in the list, click a highlighted hex."
    if k == "activate":
        return f"{who} activates up to {st.get('n')} units with {st.get('chit')}: click units or pick in the list."
    if k == "command-hq":
        return f"{who} chooses the HQ {st.get('chit')} activates: {', '.join(st.get('candidates', []))}."
    if k == "commander":  # a chain per tag (AVD 抽取 3 d)
        chit = runner.game.chits.get(st.get("chit", ""))
        tag, left = st.get("group"), st.get("groups") or []
        return f"{who}: {chit.title if chit else st.get('chit')} activates its units by command chains, one per " \
               f"{' / '.join([tag, *left]) if left else tag} group. Pick the {tag} unit that commands the {tag} " \
               f"chain (click a ringed unit, or pick in the list: each line says whom it activates): it activates " \
               f"the {tag} units linked to it by gaps of at most {runner.game.activation.chain} hexes. " \
               f"{done_label(s)} activates no {tag} unit."
    if k == "withdraw":
        w = runner.game.withdrawals.get(st.get("withdrawal", ""))
        need = f" ({w.factor} {st.get('sum', 0)} of {w.total})" if w else ""
        return f"{who} withdraws units{need}: click a unit or pick in the list."
    return "Nothing to decide."


def movement_prompt(runner: Runner, s: GameState, who: str) -> str:
    """The movement decision: how to move, the phase's modes and limit, and
    whether moving into an enemy hex attacks it (move-in attacks)."""
    st = s.step
    modes = phase_modes(runner, s)
    text = f"{who} moves: select a unit, then click a shaded hex (its MP cost is printed)."
    if (st.get("modes") and modes != [""]) or st.get("limit"):
        text += " This phase allows " + ", ".join(mode_title(runner, m) for m in modes) + \
            (f", at most {st['limit']} units" if st.get("limit") else "") + "."
    if len(modes) > 1:
        text += " Blue hexes are reached by another movement mode: a click there uses it."
    no_attack = {m.id: m.no_attack for m in runner.game.movement.modes}
    if runner.game.combat.attack == "move-in" and any("all" not in no_attack.get(m, ()) for m in modes):
        text += " Moving into an enemy hex (outlined in red) attacks it."
    over = overstacked(runner.game, s, s.active)
    if over:  # stacking { judged end }: reinforcements placed together on one entry hex (GJ63 3.4(4), 7.0(2))
        hid = runner.board.hex_id
        text += " Over the stacking limit, judged where moves end: " + "; ".join(
            f"{hid(h)} ({', '.join(s.occupants[h])}: {why})" for h, why in over.items()) + \
            ": move units out before movement ends (a unit that cannot move out goes back where it came from)."
    return text + " Done ends movement."


def dice_pool_prompt(runner: Runner, s: GameState, who: str) -> str:
    """The decisions of a dice-pool battle: support chits, pairs, retreat."""
    p = s.pending[0]
    if p["stage"] == "order":
        return f"Every attack is declared: {who} chooses the battle fought next (listed below, with the " \
               "attacker's chance to win it as the battle stands now, before any support chit)."
    if p.get("window"):
        return window_prompt(runner, s, who)
    where = f"Battle in {p['hex']}"
    if p["stage"] == "equipment":
        how = " or choose how it fights" if runner.game.dice_pool.roles else ""
        return f"{where}: {who} declares the equipment that fights (11.2(1)): leave any out{how} (listed below), " \
               f"then press {done_label(s)}; what fights turns face up."
    if p["stage"] == "support":
        n = runner.game.dice_pool.support
        return f"{where}: {who} allocates support chits face down (at most {n}) and equipment in range " \
               f"(listed below), then presses {done_label(s)}."
    if p["stage"] == "cancel":
        return f"{where}: {who} says what {p['cancel'][0][1]} cancels (listed below), or presses Done for nothing."
    if p["stage"] == "at-once":
        held = p["held"]
        return f"{where}: {held['action'][0]} acts ({' '.join(held['action'][1:])}); {who} may play at once a " \
               f"chit from the support pool that cancels it first (listed below), or press {done_label(s)}."
    if p["stage"] == "choose":
        return f"{where}: {who} picks what {p['cancel'][0][1]} does (one of the options listed below)."
    if p["stage"] == "pairs":
        return f"{where}: {who} pairs the tank weapons for the duel, one of {who}'s with one of the enemy's " \
               "(the Combat panel shows each weapon's chance to survive)."
    if p["stage"] == "retreat":
        n = p["losses"][p["side"]]
        return f"{where}: {who} loses {n} steps: hold and lose them all, or retreat one hex and lose {n // 2}."
    if p["stage"] == "reroll":
        return f"{where}: the dice are rolled (the log lists them); {who} may roll one of them again with " \
               f"{p['reroll'][0][1]} (listed below), or press {done_label(s)}."
    if p["stage"] == "strike-reroll":
        _, chit, target, roll, hit = runner.engine.dicepool.struck(p)
        return f"{where}: {chit} at {target} rolled {roll} ({'destroyed' if hit else 'missed'}); {who} may roll " \
               f"that die again with {p['reroll'][0][1]} (listed below), or press {done_label(s)}."
    m = (p.get("air") or {}).get("mission") or {}
    if p["stage"] == "air-reroll":
        th = p["air"]["throw"]
        return f"{where}, air combat: {runner.engine.dicepool.air.throw_why(p)} rolled " \
               f"{', '.join(map(str, th['faces']))}; {who} may roll a die again with {p['reroll'][0][1]} (a commander " \
               f"rolls one die again, once; listed below), or press {done_label(s)}."
    if p["stage"] == "air" and (p.get("air") or {}).get("back") == "support":
        return f"{where}, air combat before {who}'s support chits: {who} may fly recon to turn the enemy's chits, " \
               f"allocated face down, face up (16.1(6)3; listed below), or press {done_label(s)}."
    if p["stage"] == "air" and (p.get("air") or {}).get("after"):
        return f"{where}, air combat after {p['air']['after']} (16.0(1)): {who} may fly a mission (listed " \
               f"below); {done_label(s)}: the dice go on."
    if p["stage"] == "air":
        return f"{where}, air combat: {who} may fly a mission with an aircraft from the support pool (listed " \
               f"below; not counted against the support-chit limit), or press {done_label(s)}."
    if p["stage"] == "intercept":
        return f"{where}, air combat: {m.get('chit')} flies over the battle: {who} may send a fighter to " \
               f"intercept it (listed below), or press {done_label(s)}."
    if p["stage"] == "counter":
        return f"{where}, air combat: {m.get('interceptor')} intercepts: {who} may send a fighter at it first " \
               f"(listed below), or press {done_label(s)}."
    if p["stage"] == "air-target" and m.get("role") == "bomb":
        left = (p.get("air") or {}).get("left", {}).get(p["side"], 0)
        return f"{where}: {who} allots {left} bombing hit{'s' * (left != 1)} (16.2(3)): neutralising a tank " \
               f"weapon costs its armour, at least 1. {done_label(s)}: for a later bomber."
    if p["stage"] == "air-target":
        what = "a face-down enemy counter to turn face up" if m.get("role") == "recon" else \
            "the enemy equipment it shoots at (a hit: 1 damage, and the counter goes back to its cup)"
        return f"{where}, air combat: {who} picks {m.get('chit')}'s {what} ({m.get('shots')} left), or presses " \
               f"{done_label(s)}."
    return f"{where}: {who} decides."


def window_prompt(runner: Runner, s: GameState, who: str) -> str:
    """An air window outside a battle (Prokhorovka 16.0: at the start of each
    movement and combat phase, reconstructed)."""
    p = s.pending[0]
    m = (p.get("air") or {}).get("mission") or {}
    where = f"Air missions at the start of {p['phase']}"
    if p["stage"] == "air":
        recon = " or, in its own turn, recon at face-down ones (turning up to 3 face up)" \
            if who and s.active and p["side"] == s.active else ""
        return f"{where} (16.0: outside a battle): {who} may fly a ground attack at a face-up enemy counter on " \
               f"the map{recon}, with an aircraft from the support pool (listed below); the enemy's AA guns in " \
               f"range fire first, then its fighters may intercept. Or press {done_label(s)}."
    if p["stage"] == "intercept":
        return f"{where}: {m.get('chit')} flies at {p['hex']}: {who} may send a fighter to intercept it (listed " \
               f"below), or press {done_label(s)}."
    if p["stage"] == "counter":
        return f"{where}: {m.get('interceptor')} intercepts: {who} may send a fighter at it first (listed below), " \
               f"or press {done_label(s)}."
    what = "a face-down enemy counter to turn face up" if m.get("role") == "recon" else \
        f"the next face-up enemy counter in {p['hex']} it shoots at (a hit sends it back to its cup)"
    return f"{where}: {who} picks {m.get('chit')}'s {what} ({m.get('shots')} left), or presses {done_label(s)}."


def battle_prompt(runner: Runner, s: GameState, who: str) -> str:
    """The decision of a firepower battle: options, absorbing firepower, retreats."""
    p = s.pending[0]
    if p["stage"] == "order":
        return f"Every attack is declared: {who} chooses the battle fought next (listed below; the Combat panel " \
               "shows a battle's odds when its hex is clicked)."
    where = f"Battle in {p['hex']}"
    if p["stage"] == "options":
        role = "attacker" if p["side"] == p["attacker"] else "defender"
        return f"{where}: {who} (the {role}) may use battle options (listed below; the Combat panel shows the " \
               f"firepower), then presses {done_label(s)}."
    if p["stage"] == "absorb":
        enemy = side_title(runner, p["attacker"] if p["side"] == p["defender"] else p["defender"])
        n = p["points"]
        return f"{where}: {who} takes {n} point{'s' * (n != 1)} of {enemy} firepower, one at a time: click one of " \
               f"{who}'s units in {p['hex']} (on the map, in the list or in the Combat panel)."
    if p["stage"] == "retreat" and p["retreats"]:
        return f"{where}, outcome {p.get('outcome')}: {p['retreats'][0]} retreats one hex into a hex {who} " \
               "controls: click a highlighted hex (or pick it in the list)."
    return f"{where}: {who} decides."


def done_label(s: GameState) -> str:
    """What 'done' means now, for its button."""
    if s.effects and s.effects[0].get("ask", {}).get("decision") == "relocate":
        return "Leave the rest"
    k = decision_kind(s)
    if k == "battle":
        return "No (more) options" if s.pending[0]["stage"] == "options" else "Done"
    if k == "dice-pool":
        stage = s.pending[0]["stage"]
        return "No (more) support chits" if stage == "support" else "Done" if stage in ("cancel", "pairs", "order") else \
            "Let it act" if stage == "at-once" else \
            "Keep the dice" if stage == "reroll" else "Keep the die" if stage in ("strike-reroll", "air-reroll") else "The rest fights" if stage == "equipment" else "No (more) missions" if stage == "air" else "No interception" if stage in ("intercept", "counter") \
            else ("Keep the rest" if (s.pending[0].get("air") or {}).get("mission", {}).get("role") == "bomb" else "Stop") \
            if stage == "air-target" else "Retreat (halve the losses)"
    if k == "combat" and s.step.get("declared"):
        return "End combat: fight the declared battles"
    return {"declare": "No (more) options", "movement": "End movement", "combat": "End combat", "advance": "No (more) advance",
            "hold": "Retreat", "choose": "Stop choosing", "interrupt": "Pass", "place": "Stop placing",
            "activate": "Stop activating", "commander": "No commander", "decide": "No", "rebuild": "Stop rebuilding",
            "deploy": "Place the rest"}.get(k, "Done")


def phase_modes(runner: Runner, s: GameState) -> list[str]:
    """The movement modes the phase allows ("" for normal moves)."""
    modes = s.step.get("modes") or ["normal", *(m.id for m in runner.game.movement.modes)]
    return ["" if m == "normal" else m for m in modes]


def mode_title(runner: Runner, mode: str) -> str:
    """A movement mode's title ("" or "normal": normal moves)."""
    if mode in ("", "normal"):
        return "normal moves"
    m = next((x for x in runner.game.movement.modes if x.id == mode), None)
    return m.title if m is not None and m.title else mode


def mode_abbr(runner: Runner, mode: str) -> str:
    """A movement mode's initials, for map labels: "Forced march (6.2)" -> "FM"."""
    words = mode_title(runner, mode).split("(")[0].split()
    return "".join(w[0].upper() for w in words) or mode[:2]


def unit_note(s: GameState, uid: str) -> str:
    """The markers a unit carries, for lists: " (disrupted)"."""
    marks = [MARKER_TITLES.get(m, m) for m in sorted(s.units[uid].markers)]
    return f" ({', '.join(marks)})" if marks else ""


def hit_note(runner: Runner, s: GameState, uid: str) -> str:
    """How much more firepower disrupts (or, disrupted, eliminates) a unit in
    the battle being fought."""
    p = s.pending[0] if s.pending and s.pending[0]["kind"] == "battle" else {}
    taken = p.get("taken", {}).get(uid, 0)
    disrupted = "disrupted" in s.units[uid].markers
    at = F.threshold(runner.game, s, uid, "eliminate-at" if disrupted else "disrupt-at", runner.env(s))
    need = max(1, at - taken)
    verb = "eliminate" if disrupted else "disrupt"
    return f"{'disrupted: ' if disrupted else ''}{need} more point{'s' * (need != 1)} " \
           f"{verb}{'s' * (need == 1)} it"


def _air_role(runner: Runner, chit: str) -> str:
    """What an aircraft's mission does, for its line in the decisions list."""
    eff = runner.engine.dicepool.air.role(chit) if runner.engine.dicepool and runner.engine.dicepool.air else None
    if eff is None:
        return "air mission"
    return {"bomb": "bombing (its dice as artillery; the hits neutralise tank weapons)",
            "ground-attack": f"bombing, {eff.args.get('shots', 1)} shot{'s' * (eff.args.get('shots', 1) != 1)} at "
                             "enemy equipment",
            "recon": f"recon (turns up to {eff.args.get('count')} face-down enemy counters face up)"}.get(eff.verb,
                                                                                                    eff.verb)


def _window_mission(runner: Runner, s: GameState, a: Use) -> str:
    """An air mission outside a battle, for its line: its target and where."""
    air = runner.engine.dicepool.air
    eff = air.role(a.option)
    if eff is not None and eff.verb == "recon":
        host, _, n = a.unit.partition("#")
        where = f" in {runner.board.hex_id(s.units[host].hex)}" if host in s.units and s.units[host].hex else ""
        return f"recon, turning up to {eff.args.get('count')} face-down enemy counters face up, first the " \
               f"face-down counter #{n} under {host}{where}"
    host = A.host_of(s, a.unit)
    if host is None or s.units[host].hex is None:
        return f"ground attack at {a.unit}"
    t = runner.game.counters.get(a.unit)
    tname = f" ({t.name})" if t is not None and t.name else ""
    try:
        q = air.ground_test(s, s.pending[0], a.option, a.unit).probability(
            runner.game.dice[runner.game.dice_pool.die].sides)
        odds = f": hits {pct(q)}, and it goes back to its cup"
    except (KeyError, ValueError):
        odds = ""
    return f"ground attack at {a.unit}{tname} under {host} in {runner.board.hex_id(s.units[host].hex)}{odds}"


def _bomb_cost(runner: Runner, s: GameState, wid: str) -> int:
    """The bombing hits that neutralise a tank weapon in the battle (16.2(3))."""
    dp = runner.engine.dicepool
    try:
        return dp.air.cost(dp.setup(s, s.pending[0], []).weapon(wid))
    except (StopIteration, KeyError):
        return 1


def pair_note(runner: Runner, s: GameState, a: Pair) -> str:
    """What a pairing means in the duel: who hits on what, and a weapon that
    takes part without firing (Prokhorovka 5.1(6)1)."""
    if not (s.pending and s.pending[0]["kind"] == "dice-pool"):
        return ""
    try:
        st = runner.engine.dicepool.setup(s, s.pending[0])
        mine, theirs = st.weapon(a.unit), st.weapon(a.target)
    except (StopIteration, KeyError, ValueError):
        return ""
    out = []
    for w, t in ((mine, theirs), (theirs, mine)):
        out.append(f"{w.id} does not fire" if w.round < 0 else
                   f"{w.id} hits {pct(st.shot_probability(firing_round(w.fire, t.guard), w.id, t.id))}")
    return ": " + ", ".join(out)


def action_label(a, runner: Runner, s: GameState) -> str:
    """A legal action as a line of the decisions list."""
    g = runner.game
    if isinstance(a, Done):
        return done_label(s)
    if isinstance(a, Hold) and s.pending and s.pending[0]["kind"] == "dice-pool":
        n = s.pending[0]["losses"][s.pending[0]["side"]]
        return f"Hold: lose all {n} steps and stay"
    if isinstance(a, Pair):
        return f"Pair {a.unit} with {a.target} (tank duel{pair_note(runner, s, a)})"
    if isinstance(a, Use) and s.pending and s.pending[0]["kind"] == "dice-pool":
        c = g.counters.get(a.option)
        name = f" ({c.name})" if c is not None and c.name else ""
        stage = s.pending[0]["stage"]
        if stage == "equipment":
            host = A.host_of(s, a.option)
            role = next((r for r in g.dice_pool.roles if r.id == a.unit), None)
            if role is not None:  # 19.3: the SU-152 as an anti-tank gun
                return f"{a.option}{name} fights {role.title[0].lower() + role.title[1:]} (under {host}; " \
                       f"{role.unit_class} {'-'.join(str(v) for v in role.factors.values())})"
            return f"Leave {a.option}{name} out of the battle (under {host}; it stays face down)"
        if stage == "reroll":
            return f"{a.option}{name} rolls again die {a.unit}: " + runner.engine.dicepool.rerolls.label(s.pending[0], a.unit)
        if stage == "strike-reroll":
            _, chit, target, roll, _ = runner.engine.dicepool.struck(s.pending[0])
            return f"{a.option}{name} rolls again the die of {chit} at {target} (it showed {roll})"
        if stage == "air" and s.pending[0].get("window"):  # outside a battle: the mission's target
            return f"Fly {a.option}{name}: {_window_mission(runner, s, a)}"
        if stage == "air":
            return f"Fly {a.option}{name}: {_air_role(runner, a.option)}"
        if stage == "air-reroll":
            p = s.pending[0]
            face = p["air"]["throw"]["faces"][int(a.unit) - 1]
            return f"{a.option}{name} rolls again die {a.unit} of {runner.engine.dicepool.air.throw_why(p)} " \
                   f"(it showed {face})"
        if stage in ("intercept", "counter"):
            return f"{'Intercept with' if stage == 'intercept' else 'Counter-intercept with'} {a.option}{name}"
        if stage == "air-target" and a.unit.startswith("#"):   # a support chit the enemy allocated face down
            return f"{a.option} turns face up the enemy's support chit {a.unit} (allocated face down to this battle)"
        if stage == "air-target" and "#" in a.unit:   # a counter face down under an enemy unit: its place
            host, _, n = a.unit.partition("#")
            where = f" in {runner.board.hex_id(s.units[host].hex)}" if host in s.units and s.units[host].hex else ""
            return f"{a.option} turns face up the face-down counter #{n} under {host}{where}"
        if stage == "air-target":
            t = g.counters.get(a.unit)
            tname = f" ({t.name})" if t is not None and t.name else ""
            host = A.host_of(s, a.unit)
            where = f" under {host} in {runner.board.hex_id(s.units[host].hex)}" if host else ""
            role = (s.pending[0].get("air") or {}).get("mission", {}).get("role")
            if role == "bomb":
                cost = _bomb_cost(runner, s, a.unit)
                return f"Neutralise {a.unit}{tname}{where} ({cost} bombing hit{'s' * (cost != 1)})"
            verb = "turns face up" if role == "recon" else "shoots at"
            return f"{a.option} {verb} {a.unit}{tname}{where}"
        if stage == "at-once":   # a chit played at once from the support pool (签一览 (2))
            return f"Play {a.option}{name} at once: it cancels {a.unit} before it acts"
        if stage == "choose":   # which option of its choose the chit's side picks
            from runtime.combat.dicepool.chits import choices
            title = next((t or n for n, t, _ in choices(g, a.option) if n == a.unit), a.unit)
            return f"{a.option}{name}: {title}"
        if a.unit and stage == "cancel" and A.host_of(s, a.unit) is not None and a.unit in \
                runner.engine.dicepool.sent_back(s, s.pending[0]):   # an engineer removes a position
            host = A.host_of(s, a.unit)
            return f"{a.option}{name} sends {a.unit} (under {host} in {runner.board.hex_id(s.units[host].hex)}) " \
                   f"back to {A.returns_box(g, a.unit).removeprefix('pool:')}"
        if a.unit:   # the cancel stage: a sniper or a commander names its target
            return f"{a.option}{name} cancels {a.unit}"
        host = A.host_of(s, a.option)
        if host is not None and s.units[host].hex is not None:   # ranged equipment of another stack
            return f"Support with {a.option}{name} from {host} in {runner.board.hex_id(s.units[host].hex)}"
        return f"Use support chit {a.option}{name}"
    if isinstance(a, SendBack):  # its factors and how many counters it carries (its owner sees them)
        under = len(s.attached.get(a.unit, ()))
        box = placed_from(s).get(a.unit, "").removeprefix("pool:")
        return f"Send {a.unit} ({factors_text(runner, s, a.unit)}" + \
            (f", carrying {under} counter{'s' * (under != 1)}" if under else "") + ") back to " + \
            (box or "where it came from")
    if isinstance(a, Hold):
        p = s.pending[0]
        return f"Hold: take {p['hexes']} step loss{'es' * (p['hexes'] != 1)} instead of retreating"
    if isinstance(a, LoseStep):
        u = s.units[a.unit]
        steps = g.counters[a.unit].steps
        after = "eliminated" if u.step + 1 >= len(steps) else "reduced"
        return f"Lose a step from {a.unit} ({after})"
    if isinstance(a, Retreat) and s.pending and s.pending[0]["kind"] == "follow":  # with whom (AVD 6 c)
        movers = [m for m, path in s.pending[0]["paths"] if tuple(path) == tuple(a.path)]
        return f"Retreat {a.unit} with {' or '.join(movers) or '?'} → " + " → ".join(a.path)
    if isinstance(a, Retreat):
        return f"Retreat {a.unit} " + ("→ destroyed (no retreat possible)" if not a.path else "→ " + " → ".join(a.path))
    if isinstance(a, Advance):
        return f"Advance {a.unit} → " + " → ".join(a.path)
    if isinstance(a, Displace):  # an overrun HQ (AVD 4 f) or one relocated at the supply check (4 j)
        mh = g.map.hexes.get(runner.board.parse(a.to)) if g.map is not None else None
        verb = "Relocate" if s.effects and s.effects[0].get("ask", {}).get("decision") == "relocate" else "Displace"
        return f"{verb} {a.unit} to {a.to}" + (f" ({mh.name})" if mh is not None and mh.name else "")
    if isinstance(a, Use):
        opt = g.battle_options.get(a.option)
        title = opt.title if opt is not None else a.option
        return f"{a.unit}: {title}" if a.unit else f"Use {title}"
    if isinstance(a, Hit):
        return f"Take a point on {a.unit} ({hit_note(runner, s, a.unit)})"
    if isinstance(a, Choose) and s.step.get("decision") == "decide":
        return f"Yes: {s.step.get('question') or a.chit}"
    if isinstance(a, Place) and s.step.get("decision") == "rebuild":
        return f"Rebuild {a.unit} in {a.at}"
    if isinstance(a, Place) and s.step.get("decision") == "deploy":
        return f"Set up {a.unit} in {a.at}"
    if isinstance(a, Choose):
        c = g.chits.get(a.chit)
        return f"Choose {a.chit}" + (f" ({c.title})" if c and c.title and c.title != a.chit else "")
    if isinstance(a, Play):
        return f"Play {a.chit}"
    if isinstance(a, Place):
        return f"Place {a.unit} in {a.at}"
    if isinstance(a, Activate) and s.step.get("decision") == "commander":
        chain = sorted(runner.command_chain(s, s.step["hq"], a.unit, s.step["group"]))
        return f"{a.unit} commands the {s.step['group']} chain: activates {len(chain)} ({', '.join(chain)})"
    if isinstance(a, Activate):
        return f"Activate {a.unit}"
    if isinstance(a, Withdraw):
        return f"Withdraw {a.unit}"
    if isinstance(a, Attack) and g.combat.procedure == "firepower":
        target = runner.board.parse(a.target)
        defenders = sorted(u.id for u in s.units_at(target) if u.side != s.active)
        return f"Fight the battle in {a.target}: {', '.join(a.attackers)} against {', '.join(defenders)}"
    if isinstance(a, Attack) and s.pending and s.pending[0].get("stage") == "order":
        att = s.pending[0]["attacker"]
        chance = runner.engine.dicepool.side_chance(s, att, list(a.attackers), a.target)
        return f"Fight the battle in {a.target} next ({', '.join(a.attackers)}; {side_title(runner, att)} " \
               f"wins {chance * 100:.0f}%, a tie counted half)"
    if isinstance(a, Attack) and s.pending and s.pending[0]["kind"] == "crt-order":
        rep = runner.engine.declarations.odds(s, a)
        odds = f"odds {rep.attack}-{rep.defence}, column {rep.column.label}" if rep.legal else "no attack now"
        return f"Fight the battle in {a.target} next ({', '.join(a.attackers)}; {odds})"
    if isinstance(a, Attack):
        return f"Attack {a.target} with {', '.join(a.attackers)}"
    if isinstance(a, Move):
        return f"Move {a.unit} to {a.to}" + (f" by {mode_title(runner, a.mode)}" if a.mode else "")
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
    if hq is None or "range" not in runner.game.chits[hq[0]].command:  # it commands by chain only (AVD 3 d)
        return set()
    centre = s.units[hq[1]].hex
    return {h for h in centre.within(hq[2]) if h in runner.board}


def drawn_this_turn(s: GameState) -> list[str]:
    """Chits drawn since the turn began (interrupts played included)."""
    out: list[str] = []
    for e in reversed(s.log):
        if e.get("event") in ("new turn", "setup"):
            break
        if "draw" in e and not isinstance(e["draw"], list):  # a list: an effect's pick from a pool, not a chit
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
        if u.hex is None and u.box and not u.box.startswith("under:"):  # under a unit: drawn beside it
            out.setdefault(u.box, []).append(u.id)
    return {k: sorted(v) for k, v in sorted(out.items())}


def box_title(runner: Runner, box: str) -> str:
    kind, _, name = box.partition(":")
    if kind == "pool":
        p = runner.game.pools.get(name)
        return p.title if p and p.title else f"pool {name}"
    if kind == "turn":
        return f"arriving on turn {name}"
    if kind == "deploy":
        return f"to set up in {name}"
    return box


def progress(runner: Runner, s: GameState) -> float:
    """How far through the scenario's turns the game is, 0..1."""
    if s.result is not None:
        return 1.0
    first, last = runner.scenario.first_turn, runner.scenario.last_turn
    n = max(1, last - first + 1)
    within = s.pc / max(1, len(runner.program))
    return max(0.0, min(1.0, (s.turn - first + within) / n))


def hex_tooltip(runner: Runner, s: GameState, h: Hex, hidden: set[str] | frozenset[str] = frozenset(),
                reach: str = "") -> str:
    """What a player hovering over a hex wants to know: terrain and its
    cost for each unit class, who holds it, whose ZOC it is in, and each
    unit there with its factors and supply.  ``reach``: the selected unit's
    route there, if it can go.  Units of ``hidden`` sides show as counters
    only (no factors)."""
    from runtime.movement import ALL, NO, class_costs, show_mp
    from runtime.supply import supply_status
    from runtime.zoc import zoc_of

    g, board = runner.game, runner.board
    mh = g.map.hexes.get(h)
    hid = g.map.grid.format_id(h)
    if mh is None:
        return f"{hid}: not in play"
    terrain = g.terrain.get(mh.terrain)
    parts = [terrain.title if terrain else mh.terrain]
    parts += [g.terrain[f].title if f in g.terrain else f for f in mh.features]
    head = f"{hid}" + (f" {mh.name}" if mh.name else "") + ": " + ", ".join(parts) + (f"; {mh.vp} VP" if mh.vp else "")
    lines = [head]
    owner = s.control.get(h)
    if owner:
        lines.append(f"held by {side_title(runner, owner)}")
    by_cost: dict[str, list[str]] = {}
    for cid, cls in g.unit_classes.items():
        if "immobile" in cls.flags:
            continue
        c = class_costs(g, board, cid).enter.get(h)
        text = "prohibited" if c is NO else "all MP" if c == ALL else f"{show_mp(c)} MP"
        by_cost.setdefault(text, []).append(cls.title or cid)
    if len(by_cost) == 1:
        lines.append(f"to enter: {next(iter(by_cost))} for every unit")
    elif by_cost:
        lines.append("to enter: " + "; ".join(f"{k} ({', '.join(v)})" for k, v in by_cost.items()))
    zocs = [side_title(runner, side) for side in g.sides if h in zoc_of(g, board, s, side)]
    if zocs:
        lines.append("in the ZOC of " + " and ".join(zocs))
    if reach:
        lines.append(reach)
    units = s.units_at(h)
    if units:
        supplied: dict[str, dict[str, bool]] = {}
        for u in units:
            if u.side in hidden:
                lines.append(f"• a {side_title(runner, u.side)} counter")
                continue
            if u.side not in supplied:
                supplied[u.side] = supply_status(g, board, s, u.side)
            sup = supplied[u.side].get(u.id)
            c = g.counters.get(u.id)
            name = f" {c.name}" if c is not None and c.name and c.name != u.id else ""
            lines.append(f"• {u.id}{name}: {factors_text(runner, s, u.id)}"
                         + ("" if sup is None else ", in supply" if sup else ", OUT OF SUPPLY")
                         + unit_note(s, u.id))
    return "\n".join(lines)
