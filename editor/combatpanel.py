"""The playtest's combat panel, as HTML: the odds of an attack on a CRT
(every factor, shift and result chance), the firepower of a battle
(Barbarossa 7.0: each side's units, modifiers and options, then A-D) and
the dice pools of a dice-pool battle with the exact chance of each damage
total and of winning (Prokhorovka 11.0)."""
from __future__ import annotations

from html import escape

from runtime.combat.odds import OddsReport, fmt_num
from runtime.definition import GameDefinition
from runtime.combat.firepower import BattleReport
from runtime.runner import Runner
from runtime.state import GameState

from . import playtext as T


def odds_html(game: GameDefinition, board, rep: OddsReport) -> str:
    """The odds of an attack before the roll: every factor, every shift with
    its reason, the final column, the chance of every result."""
    tid = board.hex_id(rep.target)
    fa = game.fire_attacks.get(rep.fire) if rep.fire else None
    out = [f"<h3 style='margin:0'>{fa.title} fires on {tid}</h3>" if fa else f"<h3 style='margin:0'>Attack on {tid}</h3>"]
    if fa is not None:
        ignored = "; the target's retreats are ignored" if "retreats" in fa.ignore else ""
        out.append(f"<p style='margin:2px 0'>A fire attack on the fixed column {rep.crt.columns[fa.column].label}: "
                   f"the firer's results never apply{ignored}.</p>")
    def row(uid, v, why):
        detail = why[len(uid):].strip() if why.startswith(uid) else why
        if detail.endswith(f": {fmt_num(v)}"):
            detail = detail[: -len(f": {fmt_num(v)}")]
        if detail == fmt_num(v):
            detail = ""
        return f"<tr><td>{uid}</td><td style='color:#555'>{detail}</td><td align='right'><b>{fmt_num(v)}</b></td></tr>"
    sides = (("Defence", rep.defence_parts, rep.defence, rep.defence_exact),)
    if fa is None:
        sides = (("Attack", rep.attack_parts, rep.attack, rep.attack_exact),) + sides
    for title, parts, total, exact in sides:
        out.append(f"<b>{title}</b><table width='100%'>")
        for uid, v, why in parts:
            out.append(row(uid, v, why))
        rounded = "" if total == exact else f" (exactly {fmt_num(exact)})"
        out.append(f"<tr><td colspan='2'><i>total</i>{rounded}</td><td align='right'><b>{fmt_num(total)}</b></td>"
                   "</tr></table>")
    out.append("<b>Column shifts</b><br>")
    if rep.shifts:
        out.append("<br>".join(f"{'+' if n > 0 else ''}{n} ({'right' if n > 0 else 'left'}): {why}"
                               for n, why in rep.shifts))
    else:
        out.append("none")
    out.append("<br><b>Column</b><br>" + "<br>".join(rep.column.steps or [rep.column.reason]))
    if rep.drms:
        out.append("<br><b>Die roll modifiers</b><br>" + "<br>".join(f"{n:+d}: {why}" for n, why in rep.drms))
    if rep.errors:
        out.append("<p style='color:#b00000'><b>Not allowed:</b><br>" + "<br>".join(rep.errors) + "</p>")
        return "".join(out)
    out.append(f"<p><b>Final column: {rep.column.label}</b> on {rep.crt.title or rep.crt.id}"
               f"{f' — die {rep.die.name}' if rep.die else ''}{f' {rep.drm:+d}' if rep.drm else ''}</p>")
    codes = game.results.get(rep.crt.results, {})
    out.append("<table border='1' cellspacing='0' cellpadding='2'><tr><th>result</th><th>chance</th><th></th></tr>")
    for code, p in rep.probabilities.items():
        rc = codes.get(code)
        title = rc.title if rc and rc.title else ""
        out.append(f"<tr><td><b>{code}</b></td><td align='right'>{float(p) * 100:.1f}%</td><td>{title}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _signed(v: int) -> str:
    return f"{'+' if v >= 0 else ''}{v}"


def _fire_table(heading: str, rows: list[tuple[str, str, str, str]], total: str) -> str:
    """One side's firepower: rows of (unit, what, value, colour), then the total."""
    out = [f"<b>{heading}</b><table width='100%' cellspacing='0'>"]
    for unit, what, value, colour in rows:
        cells = f"<td>{unit}</td><td style='color:{colour}'>{what}</td>" if unit else \
            f"<td colspan='2' style='color:{colour}'>{what}</td>"
        out.append(f"<tr>{cells}<td align='right'><b>{value}</b></td></tr>")
    out.append(f"<tr><td colspan='2'><i>total</i></td><td align='right' style='font-size:13pt'><b>{total}</b></td>"
               "</tr></table>")
    return "".join(out)


def _live_rows(rep: BattleReport, side: str, units: list[str]) -> list[tuple[str, str, str, str]]:
    """What a side fires now: its units (disrupted ones do not fire), the
    modifiers with their titles, the battle options used."""
    f = rep.fire[side]
    fired = dict(f.base)
    rows = [(uid, "strength", str(fired[uid]), "#555") if uid in fired else
            (uid, "disrupted: does not fire", "—", "#888") for uid in units]
    rows += [("", title, _signed(v), "#555") for title, v in f.modifiers]
    rows += [("", f"{title} (option)", _signed(v), "#0b3d91") for title, v in f.options]
    return rows


def _fired_rows(items: dict) -> list[tuple[str, str, str, str]]:
    """What a side fired (runtime.combat.firepower.Fire.items()): its units'
    factors, then the modifiers and options with their titles."""
    rows = [(unit, "strength", str(v), "#555") for unit, v in items.get("base", ())]
    if not rows:
        rows.append(("", "no unit fires", "", "#555"))
    for title, v in list(items.get("modifiers", ())) + list(items.get("options", ())):
        rows.append(("", title, f"{'+' if v >= 0 else ''}{v}", "#555"))
    return rows


def battle_html(runner: Runner, s: GameState, rep: BattleReport, p: dict | None) -> str:
    """A firepower battle (Barbarossa 7.0), before it is fought (``p`` None)
    or while it is (``p``: the pending battle): what is being decided, each
    side's firepower item by item and its total (after the fire: what it
    fired), the damage each unit taking fire can still take, the outcomes A-D."""
    g, board = runner.game, runner.board

    def side(sid: str) -> str:
        return T.side_title(runner, sid)
    mh = g.map.hexes.get(rep.hex)
    name = f" ({mh.name})" if mh is not None and mh.name else ""
    terrain = g.terrain.get(board.terrain(rep.hex))
    crossed = [g.terrain[k].title if k in g.terrain else k for k in rep.across]
    across = f"; every attacker crossed: {', '.join(crossed)}" if crossed else ""
    out = [f"<h3 style='margin:0'>Battle in {board.hex_id(rep.hex)}{name}</h3>",
           f"<p style='margin:2px 0'>{side(rep.attacker)} attacks, {side(rep.defender)} defends · "
           f"{terrain.title if terrain else board.terrain(rep.hex)}{across}</p>"]
    stage = p["stage"] if p is not None else ""
    if p is None:
        out.append("<p style='margin:2px 0'><i>Not fought yet.</i> <b>Fight</b> opens it: the attacker, then the "
                   "defender, may add battle options; then each side's firepower hits the other side's units, "
                   "and their owner takes it point by point.</p>")
    elif stage == "options":
        role = "attacker" if p["side"] == p["attacker"] else "defender"
        out.append(f"<p style='margin:2px 0'><b>Now:</b> {side(p['side'])} ({role}) chooses battle options "
                   "(Decision list); options used are in the totals.</p>")
    elif stage == "absorb":
        fire = p.get("fire", {})
        out.append(f"<p style='margin:2px 0'><b>Fire:</b> {side(rep.attacker)} {fire.get(rep.attacker, 0)} on "
                   f"{side(rep.defender)}'s units, {side(rep.defender)} {fire.get(rep.defender, 0)} on "
                   f"{side(rep.attacker)}'s units.<br><b>Now:</b> {side(p['side'])} takes {p['points']} "
                   f"point{'s' * (p['points'] != 1)} left: click a unit.</p>")
    elif stage == "retreat" and p["retreats"]:
        out.append(f"<p style='margin:2px 0'><b>Outcome {p.get('outcome')}.</b> <b>Now:</b> {p['retreats'][0]} "
                   "retreats one hex (highlighted) or is eliminated.</p>")
    fired = fired_lines(s, p) if p is not None and p.get("fire") else None
    for sid, units, role in ((rep.attacker, rep.attackers, "attacker"), (rep.defender, rep.defenders, "defender")):
        if fired is not None:  # after the fire: what each side fired, not what it could fire now
            out.append(_fire_table(f"{side(sid)} fired ({role})", _fired_rows(fired[sid]), str(p["fire"][sid])))
        else:
            f = rep.fire[sid]
            below = sum(v for _, v in f.base + f.modifiers + f.options) < 0
            out.append(_fire_table(f"{side(sid)} firepower ({role})", _live_rows(rep, sid, units),
                                   f"{f.total}{' (never below 0)' if below else ''}"))
    if stage == "absorb":
        out.append(f"<b>Damage to {side(p['side'])}'s units</b><br>" + "<br>".join(
            f"{u.id}: {T.hit_note(runner, s, u.id)}" for u in s.units_at(rep.hex) if u.side == p["side"]))
    outcome = p.get("outcome") if p is not None else None
    first = " (disrupted attackers go back first)" if g.combat.disrupted_back else ""
    out.append(f"<br><b>Outcome{first}</b><table cellspacing='0' cellpadding='1'>")
    for code, why in ((o.id, o.title) for o in runner.game.battle_outcomes):
        bg = " style='background:#ffe08a'" if code == outcome else ""
        out.append(f"<tr{bg}><td><b>{code}</b>&nbsp;</td><td>{why}</td></tr>")
    out.append("</table>")
    return "".join(out)


def fired_lines(s: GameState, p: dict) -> dict[str, dict]:
    """What each side fired in the battle ``p`` (after its fire), item by
    item: runtime.combat.firepower.Fire.items(), kept in the pending battle."""
    return p.get("fired") or {p["attacker"]: {}, p["defender"]: {}}


def last_battle_html(runner: Runner, s: GameState) -> str:
    """The latest battle of the log, in words (the panel between battles)."""
    lines = []
    for e in reversed(s.log):
        if "battle" in e:
            lines.append(T.describe(e, runner))
            if "fire" in e:
                break
    return "<p><b>Last battle:</b><br>" + "<br>".join(reversed(lines)) + "</p>" if lines else ""


def dice_pool_html(game: GameDefinition, tid: str, setup, odds, fighting: bool = False) -> str:
    """A dice-pool battle before the dice (Prokhorovka 11.0): each side's
    pools with their hit numbers, the tank duels with each weapon's chance
    to survive, tank support, the bonuses of the damage step, then the exact
    chance of each damage total and of each side winning."""
    from runtime.combat.dicepool.odds import mean, pct
    side_title = lambda s: game.sides[s].title if s in game.sides else s  # noqa: E731
    out = [f"<h3 style='margin:0'>{side_title(setup.attacker)} attacks {side_title(setup.defender)}"
           f"{' in ' + tid if tid else ''}</h3>"]
    out.append("<table width='100%' cellspacing='0' cellpadding='2'><tr><th align='left'>step</th><th align='left'>side</th>"
               "<th align='left'>dice</th><th align='left'>hit on</th><th align='right'>avg</th></tr>")
    head = len(out)
    for pool, dist in odds.pools:
        if not pool.dice:
            continue
        items = ", ".join(f"{i} {n}" for i, n in pool.items)
        out.append(f"<tr><td>{pool.title}</td><td>{side_title(pool.side)}</td><td>{pool.dice} ({items})</td>"
                   f"<td>{escape(pool.test.text())}</td><td align='right'>{mean(dist):.2f}</td></tr>")
    for w in setup.supporting():
        out.append(f"<tr><td>Tank support</td><td>{side_title(w.side)}</td><td>{w.id}</td>"
                   f"<td>{escape(setup.support_test(w).text())}</td><td></td></tr>")
    for w in setup.weapons:
        if w.round < 0:  # it takes part, may be paired and shot at, and never fires (Prokhorovka 5.1(6)1)
            out.append(f"<tr><td>Does not fire</td><td>{side_title(w.side)}</td><td>{w.id}</td>"
                       "<td>takes part: may be shot at</td><td></td></tr>")
    if len(out) == head:  # nothing left to roll but the duel (between two rolls)
        out.pop()
    else:
        out.append("</table>")
    if setup.pairs:
        out.append("<b>Tank duels</b>" + ("" if fighting else " (as the superior side pairs by default)") + "<br>")
        out.append("<br>".join(f"{a} ({pct(odds.survives[a])} survives) against {d} ({pct(odds.survives[d])} survives)"
                               for a, d in setup.pairs))
    if setup.rerolls:
        out.append("<br>" + ", ".join(sorted(setup.rerolls)) + ": a shot by or at it may be rolled again once")
    if setup.notes:
        out.append("<br><b>Support chits</b><br>" + "<br>".join(setup.notes))
    extra = [n for n in odds.notes if n not in setup.notes]  # what the odds count beyond the battle (19.5)
    if extra:
        out.append("<br>" + "<br>".join(extra))
    so_far = [(side, n) for side, what, n in setup.track if what == "so far"]  # between two rolls (battle.rest)
    if so_far:
        out.append("<br><b>Rolled so far</b>: " + ", ".join(f"{side_title(side)} {n} damage" for side, n in so_far)
                   + "; the figures are of the rolls still to come")
    if game.dice_pool is not None and game.dice_pool.air is not None:
        out.append(f"<br><i>{game.dice_pool.air.title}: air missions not yet flown are not counted.</i>")
    bonus = [f"defence level {setup.level} ({side_title(setup.defender)})"] if setup.level else []
    bonus += [f"{what} +{n} ({side_title(side)})" for side, what, n in setup.extra]
    out.append("<br><b>Damage step</b>: the best surviving armour" + (", " + ", ".join(bonus) if bonus else "")
               + " added to the track" + ("; the winner loses too" if setup.both_lose else ""))
    ks = sorted(set(odds.damage[setup.attacker]) | set(odds.damage[setup.defender]))
    out.append("<table border='1' cellspacing='0' cellpadding='2'><tr><th>damage</th>"
               f"<th>{side_title(setup.attacker)}</th><th>{side_title(setup.defender)}</th></tr>")
    for k in ks:
        cells = "".join(f"<td align='right'>{pct(odds.damage[s][k]) if k in odds.damage[s] else ''}</td>"
                        for s in (setup.attacker, setup.defender))
        out.append(f"<tr><td align='right'>{k}</td>{cells}</tr>")
    out.append("</table>")
    out.append(f"<p><b>{side_title(setup.attacker)} wins {pct(odds.win[setup.attacker])}</b> · "
               f"{side_title(setup.defender)} wins {pct(odds.win[setup.defender])} · "
               f"tie, both lose {pct(odds.tie)}</p>")
    return "".join(out)


def last_dice_pool_html(runner: Runner, s: GameState) -> str:
    """The latest dice-pool battle as the log has it: every step's dice and
    damage, the totals, the winner and the losses."""
    end = next((i for i in range(len(s.log) - 1, -1, -1) if "winner" in s.log[i] and "battle" in s.log[i]), None)
    if end is None:
        return ""
    r = s.log[end]
    start = next((i for i in range(end - 1, -1, -1)
                  if str(s.log[i].get("action", "")).startswith(f"attack {r['battle']} ")), 0)
    steps = [escape(e["step"]) for e in s.log[start:end] if e.get("battle") == r["battle"] and "step" in e]
    losses = ", ".join(f"{T.side_title(runner, k)} {v}" for k, v in r.get("losses", {}).items())
    return (f"<p><b>Last battle in {r['battle']}</b> (turn {r.get('turn', '')}): {r['winner']}; "
            f"steps lost before any retreat: {losses}</p><p>" + "<br>".join(steps) + "</p>")
