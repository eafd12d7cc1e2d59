"""The ``hexforge`` command."""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from runtime.bot_options import examples

from .diagnostics import DslError
from .outputs import CliError, check_writable, say_error


def _print_diagnostics(items, sources, game: str = "", out=None) -> None:
    """Located diagnostics as ``file:line:col: error: ...``; those about the
    whole game in the one CLI format, ``hexforge: GAME: error: ...``; the
    first 50 in full, then a count (dsl.diagnostics.format_diagnostics)."""
    from .diagnostics import MAX_SHOWN, format_diagnostics

    out = out or sys.stderr  # the stream now, not the one at import
    shown = list(items)[:MAX_SHOWN]
    for d in shown:
        if d.span is None:
            print(f"hexforge: {game + ': ' if game else ''}{d.severity}: {d.message}"
                  + (f"\n  hint: {d.hint}" if d.hint else ""), file=out)
        else:
            print(d.format(sources), file=out)
    rest = list(items)[MAX_SHOWN:]
    if rest:
        print(format_diagnostics(rest, sources, limit=0), file=out)


def print_dsl_error(e: DslError, game: str = "") -> None:
    _print_diagnostics(e.diagnostics, e.sources, game)


def game_path(text: str) -> Path:
    """The game folder (or rules file) named on the command line; CliError if there is none."""
    path = Path(text)
    if not path.exists():
        raise CliError("no such game folder or file", text)
    return path


def cmd_check(args: argparse.Namespace) -> int:
    return 0 if check_and_report(args.path) is not None else 1


def check_and_report(path_text: str):
    """Check a game and print the verdict (the ``ok`` line or the
    diagnostics); the compiled game, or None when it does not compile."""
    from .compiler import check_game

    path = Path(path_text)
    if not path.exists():
        say_error("no such game folder or file", path_text)
        return None
    game, diags, sources = check_game(path)
    _print_diagnostics(diags.items, sources, path_text)
    if game is None or diags.errors:
        n = len(diags.errors)
        print(f"{n} error{'s' * (n != 1)}", file=sys.stderr)
        return None
    n = len(game.variants)
    extra = f", {n} variant{'s' * (n != 1)}" if n else ""
    print(f"ok {game.summary()}{extra}")
    return game


def cmd_odds(args: argparse.Namespace) -> int:
    """Odds, column shifts and the chance of every result for one attack."""
    import json

    from runtime.combat import odds as combat

    from .compiler import compile_game
    from .diagnostics import did_you_mean

    def number(text: str, what: str):
        """A strength from the command line: 12, 7.5 or 15/2."""
        from fractions import Fraction

        # (digits, not exponents: Fraction('1e999999999') builds the number, for ever)
        if not re.fullmatch(r"\s*-?(\d{1,9}(\.\d{1,9})?|\.\d{1,9}|\d{1,9}/\d{1,9})\s*", text):
            too_long = re.fullmatch(r"\s*-?(\d+(\.\d+)?|\.\d+|\d+/\d+)\s*", text) is not None
            return None, f"{what} must be a number such as 12, 7.5 or 15/2" + \
                (f", each part at most 9 digits, not '{text[:40]}'" if too_long else
                 f", not '{text[:40]}'")
        try:
            value = Fraction(text.strip())
        except (ValueError, ZeroDivisionError):
            return None, f"{what} must be a number such as 12, 7.5 or 15/2, not '{text}'"
        if value < 0:
            return None, f"{what} cannot be negative ({text})"
        return value, ""

    def fail(msg: str, hint: str = "") -> int:
        say_error(msg, args.game, hint)
        return 1

    fire_id = getattr(args, "fire", "") or ""
    if args.attack is None and not fire_id:
        return fail("--attack is required (or --fire KIND, a fire attack on its fixed column)")
    if args.attack is not None and fire_id:
        return fail("--fire fires on a fixed column: it takes no --attack")
    attack, err = number(args.attack or "0", "--attack")
    if err:
        return fail(err)
    defence, err = number(args.defense, "--defense")
    if err:
        return fail(err)
    try:
        shift = int(args.shift)
    except ValueError:
        return fail(f"--shift must be a whole number of columns (negative: left), not '{args.shift}'")
    path = game_path(args.game)
    try:
        game = compile_game(path)
    except DslError as e:
        print_dsl_error(e, args.game)
        n = len([d for d in e.diagnostics if d.severity == "error"])
        return fail(f"the game does not compile ({n} error{'s' * (n != 1)})")
    if not game.crts:
        hint = "it fights by firepower: try hexforge battle" if game.combat.procedure == "firepower" else ""
        return fail(f"{game.info.id} has no combat results table", hint)
    turns = [t.number for t in game.turn_track.turns]
    if args.turn is not None and turns and args.turn not in turns:  # (it was a KeyError's traceback)
        return fail(f"--turn {args.turn} is not on the turn track ({turns[0]}-{turns[-1]})")
    fa = None
    if fire_id:
        fa = game.fire_attacks.get(fire_id)
        if fa is None:
            return fail(f"{game.info.id} has no fire attack '{fire_id}'",
                        did_you_mean(fire_id, game.fire_attacks) or
                        ("fire attacks: " + ", ".join(game.fire_attacks) if game.fire_attacks else ""))
        if args.side and args.side != fa.side:
            return fail(f"{fa.title} is {fa.side}'s, not {args.side}'s")
        if args.use:
            return fail("a fire attack takes no battle options (--use)")
        if args.crt and args.crt != fa.crt:
            return fail(f"{fa.title} fires on crt {fa.crt}, not {args.crt}")
    crt_id = (fa.crt if fa else "") or args.crt or game.combat.crt or next(iter(game.crts))
    if crt_id not in game.crts:
        return fail(f"{game.info.id} has no CRT '{crt_id}'", did_you_mean(crt_id, game.crts))
    crt = game.crts[crt_id]
    side = (fa.side if fa else "") or args.side or ""
    if side and side not in game.sides:
        return fail(f"{game.info.id} has no side '{side}'", did_you_mean(side, game.sides))
    die = combat.die_named(game, fa.die) if fa and fa.die else combat.die_for(game, crt, side or "*")
    if die is None:
        return fail(f"crt {crt.id} rolls a different die for each side: give --side",
                    "one of: " + ", ".join(k for k in crt.dice if k != "*"))
    # terrain shifts
    terrain = [t.strip() for t in (args.terrain or "").split(",") if t.strip()]
    notes: list[str] = []
    prohibited = ""
    for t in terrain:
        if t not in game.terrain:
            return fail(f"unknown terrain '{t}' in --terrain", did_you_mean(t, game.terrain))
        kind = game.terrain[t].kind
        if kind == "link":
            return fail(f"'{t}' is a {kind}, not terrain: --terrain takes hex terrain, features and hexsides")
        eff = game.chart.effects.get(t)
        if eff is not None and eff.combat_prohibited:
            prohibited = f"attacks {'across' if kind == 'hexside' else 'into'} {t} are prohibited"
        if kind == "hexside" and eff is not None and eff.attack == "half":
            notes.append(f"{t}: units attacking across it are halved (give --attack already halved)")
    shifts = [(-n, r) for n, r in combat.terrain_shift_parts(game, [t for t in terrain
                                                                  if game.terrain[t].kind != "hexside"])]
    for t in terrain:
        eff = game.chart.effects.get(t)
        if game.terrain[t].kind == "hexside" and eff is not None and eff.left_shifts and fa is None:
            shifts.append((-eff.left_shifts, f"across {t}: {eff.left_shifts} left"))
    if args.chit and args.chit not in game.chits:
        return fail(f"{game.info.id} has no chit '{args.chit}'", did_you_mean(args.chit, game.chits))
    mod_shifts, drms, not_counted = _odds_modifiers(game, crt, args, side, terrain)
    notes += not_counted
    shifts += [(n, f"{title}: {abs(n)} {'left' if n < 0 else 'right'}") for n, title in mod_shifts]
    used: set[tuple[str, str]] = set()
    for use in args.use:
        oid, _, role = use.partition(":")
        if (oid, role or "attacker") in used:  # (a battle option is used once in a battle)
            return fail(f"--use {use} is given twice")
        used.add((oid, role or "attacker"))
        opt = game.battle_options.get(oid)
        if opt is None:
            return fail(f"{game.info.id} has no battle option '{oid}'", did_you_mean(oid, game.battle_options))
        if role not in ("", "attacker", "defender"):
            return fail(f"--use {use}: who uses it is 'attacker' or 'defender', not '{role}'",
                        f"write: --use {oid}:defender")
        role = role or "attacker"
        if not opt.shift:
            return fail(f"battle option {oid} shifts no column")
        user = side if role == "attacker" else next((x for x in game.sides if side and x != side), "")
        if opt.side not in ("both", role) and (opt.side != user if user else False):
            return fail(f"the {role} cannot use {oid}: it is {opt.side}'s" +
                        (f" (the attacker is {side})" if side else ""))
        n = opt.shift if role == "attacker" else -opt.shift
        shifts.append((n, f"{opt.title} ({role}): {abs(n)} {'left' if n < 0 else 'right'}"))
    if shift:
        shifts.append((shift, f"--shift {shift:+d}: {abs(shift)} {'left' if shift < 0 else 'right'}"))
    total = sum(n for n, _ in shifts)
    drm = sum(n for n, _ in drms)
    if fa is not None:
        col = combat.fixed_column(crt, fa.column, total, f"{fa.title} fires on")
        if "retreats" in fa.ignore:
            notes.append(f"{fa.title}: the target's retreats are ignored (losses only)")
        notes.append("a fire attack: the firer's results never apply")
    else:
        col = combat.column_for(crt, attack, defence, total)
    reason = prohibited or col.reason
    probs = combat.probabilities(game, crt, col.index, die, drm) if col.column is not None and not prohibited \
        else {}
    codes = game.results.get(crt.results, {})
    if args.json:
        out = {
            "game": game.info.id, "crt": crt.id, "method": crt.method, "die": die.name, "fire": fire_id or None,
            "attack": float(attack), "defence": float(defence),
            "ratio": None if col.ratio is None else float(col.ratio),
            "rounded": col.rounded,
            "shifts": [{"columns": n, "reason": r} for n, r in shifts],
            "shift": total,
            "drms": [{"amount": n, "reason": r} for n, r in drms], "drm": drm,
            "column": None if reason else col.label,
            "no_attack": reason or None,
            "results": {c: float(p) for c, p in probs.items()},
            "fractions": {c: str(p) for c, p in probs.items()},
            "steps": col.steps, "notes": notes,
        }
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(f"{game.info.title}: {crt.title} ({crt.method}, {die.name})")
    steps = [x for x in col.steps if not x.startswith("final column") and not x.endswith(": no attack")]
    for line in steps[:1]:
        print(line)
    for n, r in shifts:
        print(f"shift: {r}")
    for line in steps[1:]:
        print(line)
    for line in notes:
        print(f"note: {line}")
    if reason:
        print(f"no attack: {reason}")
        return 0
    for n, r in drms:
        print(f"die roll modifier: {n:+d} {r}")
    print(f"final column: {col.label}" + (f", die {drm:+d}" if drm else ""))
    width = max(len(c) for c in probs)
    for c, p in probs.items():
        title = codes[c].title if c in codes else ""
        pct = f"{float(p) * 100:.1f}%"
        print(f"  {c:<{width}}  {pct:>6}  {str(p):>5}  {title}".rstrip())
    return 0


def _odds_modifiers(game, crt, args, side: str, terrain: list[str]):
    """The CRT's column shift and die roll modifiers (``modifier CRT.shift``,
    ``modifier CRT``) whose conditions hold for what the command line gives:
    --side (attacker), --turn, --chit, --terrain.  A modifier that needs
    anything else (a name no option gives, a function of a game in play) is
    not counted and is named in a note."""
    from runtime import expr as E

    names: dict = dict(game.declared_ids())
    if args.turn is not None:
        names["turn"] = args.turn
        weather = game.turn_track.turn(args.turn).values.get("weather") if game.turn_track.turns else None
        names["weather"] = weather or ""
    if side:
        names.update({"attacker": side, "side": side})
        others = [x for x in game.sides if x != side]
        if len(others) == 1:
            names.update({"defender": others[0], "enemy": others[0]})
    hex_terrain = [t for t in terrain if game.terrain[t].kind == "terrain"]
    if hex_terrain:
        names["terrain"] = hex_terrain[0]
    names["all-attackers-across"] = tuple(t for t in terrain if game.terrain[t].kind == "hexside")
    names["chit"] = args.chit or ""
    names["fire-attack"] = getattr(args, "fire", "") or ""
    fns = {"variant": lambda v: v in game.active_variants}
    option = {"turn": "--turn", "weather": "--turn", "attacker": "--side", "side": "--side", "defender": "--side",
              "enemy": "--side", "terrain": "--terrain"}
    out: dict[str, list] = {"shift": [], "drm": []}
    notes = []

    def known(x) -> bool:
        return all(n in names for n in E.free_names(x)) and \
            all(f in fns or f in E.BUILTINS for f in E.called_functions(x))

    def ruled_out(cond) -> bool:
        """A part of the condition's 'and' chain that the command line decides is false
        (a Soviet attack never takes 'attacker == german and marker-at(...)')."""
        parts, pending = [], [cond]
        while pending:
            x = pending.pop()
            if isinstance(x, E.Binary) and x.op == "and":
                pending += [x.left, x.right]
            else:
                parts.append(x)
        try:
            return any(known(x) and E.evaluate(x, names, fns) is False for x in parts)
        except E.ExprError:
            return False

    for kind, target in (("shift", f"{crt.id}.shift"), ("drm", crt.id)):
        for m in game.modifiers.get(target, ()):
            title = m.title or f"modifier {target}"
            used = [x for x in (m.condition, m.amount) if x is not None]
            missing = sorted({n for x in used for n in E.free_names(x) if n not in names})
            calls = sorted({f for x in used for f in E.called_functions(x) if f not in fns and f not in E.BUILTINS})
            if (missing or calls) and m.condition is not None and ruled_out(m.condition):
                continue  # it does not apply whatever the rest says
            if missing or calls:
                need = sorted({option.get(n, f"'{n}'") for n in missing}) + [f"{f}()" for f in calls]
                notes.append(f"not counted: {title} (it needs {', '.join(need)}"
                             f"{'' if not calls else ': a game in play'})")
                continue
            try:
                if m.condition is not None and E.evaluate(m.condition, names, fns) is not True:
                    continue
                v = int(E.evaluate(m.amount, names, fns))
            except E.ExprError as e:
                notes.append(f"not counted: {title} ({e})")
                continue
            if v:
                out[kind].append((v, title))
    return out["shift"], out["drm"], notes


def cmd_battle(args: argparse.Namespace) -> int:
    """The firepower of one battle as set up on the command line (Barbarossa
    7.1): each side's units, modifiers and total, what it takes to disrupt and
    eliminate each unit, and the battle options each side could use."""
    import json

    from runtime import attachments as A

    from runtime.runner import Runner

    from .compiler import compile_game
    from .diagnostics import did_you_mean

    def fail(msg: str, hint: str = "") -> int:
        say_error(msg, args.game, hint)
        return 1

    path = game_path(args.game)
    try:
        game = compile_game(path, args.variant or ())
    except DslError as e:
        print_dsl_error(e, args.game)
        return fail("the game does not compile")
    if game.combat.procedure not in ("firepower", "dice-pool"):
        return fail(f"{game.info.id} fights on a CRT, not by firepower: try hexforge odds")
    try:
        runner = Runner(game, args.scenario or None)
    except (NotImplementedError, ValueError) as e:
        return fail(str(e))
    board, s = runner.board, runner.new_game(0)
    on_map = {uid for uid, u in s.units.items() if u.hex is not None}  # (the scenario's units: no support chits)
    for uid in list(s.units):
        s.place(uid, None, "removed")
    s.step = {}
    try:
        target = board.parse(args.hex)
    except ValueError as e:
        return fail(f"--hex: {e}")
    if target not in board:
        return fail(f"--hex: {args.hex} is not in play")
    turns = [t.number for t in game.turn_track.turns]
    if turns and args.turn not in turns:
        return fail(f"--turn {args.turn} is not on the turn track ({turns[0]}-{turns[-1]})")
    s.turn = args.turn
    sides: list[str] = []

    named: dict[str, str] = {}  # counter -> the flag that named it (a counter is in the battle once)

    def carry(label: str, uid: str, carried: list[str]) -> tuple[str, str]:
        """Put the counters a unit carries under it (UNIT+CHIT+CHIT): ("", "") or (error, hint)."""
        for cid in carried:
            if cid not in game.counters:
                return f"{label}: no counter '{cid}'", did_you_mean(cid, game.counters)
            if cid in named:
                return f"{label}: {cid} is named twice ({named[cid]} too)", ""
            named[cid] = label.split()[0]
            why = A.why_not_attach(game, s, cid, uid)
            if why:
                return f"{label}: {why}", ""
            A.attach(game, s, cid, uid, "set up for the battle")
        return "", ""
    for flag, text in (("--attack", args.attack), ("--defend", args.defend)):
        for item in (x.strip() for x in text.split(",") if x.strip()):
            head, _, origin = item.partition("@")
            uid, *carried = head.split("+")  # UNIT+CHIT+CHIT: the counters it carries (attachments)
            if uid not in game.counters:
                return fail(f"{flag}: no counter '{uid}'", did_you_mean(uid, game.counters))
            if uid in named:
                return fail(f"{flag}: {uid} is named twice" + ("" if named[uid] == flag else f" (in {named[uid]} too)"))
            named[uid] = flag
            s.place(uid, target)
            error, hint = carry(f"{flag} {item}", uid, carried)
            if error:
                return fail(error, hint)
            if flag == "--attack" and game.dice_pool is not None and not origin:
                return fail(f"{flag} {item}: a dice-pool attacker stands next to the battle hex: write {uid}@HEX")
            if flag == "--attack" and origin:
                try:
                    h = board.parse(origin)
                except ValueError as e:
                    return fail(f"{flag} {item}: {e}")
                if h.distance(target) != 1:
                    return fail(f"{flag} {item}: {origin} is not next to {args.hex}")
                s.attack_from[uid] = h
                if game.dice_pool is not None:
                    s.place(uid, h)
            sides.append(game.counters[uid].side if flag == "--attack" else "")
    for item in (x.strip() for x in getattr(args, "near", "").split(",") if x.strip()):
        head, _, where = item.partition("@")  # a stack beside the battle whose ranged equipment supports it
        uid, *carried = head.split("+")
        if game.dice_pool is None or not game.dice_pool.ranged:
            return fail("--near: this game has no ranged support (dice-pool { ranged FACTOR })")
        if uid not in game.counters:
            return fail(f"--near: no counter '{uid}'", did_you_mean(uid, game.counters))
        if uid in named:
            return fail(f"--near: {uid} is named twice" + ("" if named[uid] == "--near" else f" ({named[uid]} too)"))
        named[uid] = "--near"
        try:
            h = board.parse(where)
        except ValueError as e:
            return fail(f"--near {item}: write UNIT+EQUIPMENT@HEX ({e})")
        if h == target or h not in board:
            return fail(f"--near {item}: {where} is not a hex beside the battle")
        s.place(uid, h)
        error, hint = carry(f"--near {item}", uid, carried)
        if error:
            return fail(error, hint)
    attackers = {game.counters[x.split("@")[0].split("+")[0].strip()].side for x in args.attack.split(",") if x.strip()}
    defenders = {game.counters[x.split("+")[0].strip()].side for x in args.defend.split(",") if x.strip()}
    if len(attackers) != 1 or len(defenders) != 1 or attackers == defenders:
        return fail("--attack names units of one side and --defend units of the other")
    for uid in (x.strip() for x in args.disrupted.split(",") if x.strip()):
        if named.get(uid) not in ("--attack", "--defend") or A.kind_of(game, uid) is not None:
            return fail(f"--disrupted: {uid} is not in the battle" + (" (--near stacks support it from beside)"
                                                                      if named.get(uid) == "--near" else ""))
        s.mark(uid, "disrupted")
    s.control[target] = next(iter(defenders))
    attacker = next(iter(attackers))
    s.active = attacker
    if game.dice_pool is not None:
        return _dice_pool_battle(args, game, runner, s, target, named, on_map)
    if args.role:
        return fail(f"--role {args.role[0]}: roles are a dice-pool battle's (dice-pool {{ role }}); "
                    f"{game.info.title} fights by firepower")
    rep = runner.engine.battle_report(s, target=target)
    env = runner.engine.env(s)
    from runtime.combat import firepower as F
    options = {}
    for side in (rep.attacker, rep.defender):
        p = {"hex": args.hex, "attacker": rep.attacker, "defender": rep.defender, "side": side, "used": []}
        options[side] = [{"option": a.option, "unit": a.unit, "title": game.battle_options[a.option].title,
                          "average": round(runner.engine.battles.option_value(a.option), 3)}
                         for a in runner.engine.battles.option_actions(s, p)]
    damage = {uid: {"disrupted": "disrupted" in s.units[uid].markers,
                    "disrupt-at": F.threshold(game, s, uid, "disrupt-at", env),
                    "eliminate-at": F.threshold(game, s, uid, "eliminate-at", env)}
              for uid in rep.attackers + rep.defenders}
    if args.json:
        print(json.dumps({"hex": args.hex, "turn": args.turn, "attacker": rep.attacker, "defender": rep.defender,
                          "across": list(rep.across),
                          "fire": {sd: dict(f.items(), total=f.total) for sd, f in rep.fire.items()},
                          "damage": damage, "options": options}, ensure_ascii=False, indent=2))
        return 0
    weather = (game.turn_track.turn(s.turn).values.get("weather") or "") if turns else ""
    print(f"{game.info.title}: battle in {args.hex}, turn {s.turn}" + (f" ({weather})" if weather else "")
          + (f"; every attacker crosses {', '.join(rep.across)}" if rep.across else ""))
    for side, role in ((rep.attacker, "attacker"), (rep.defender, "defender")):
        f = rep.fire[side]
        print(f"{game.sides[side].title} ({role}) firepower {f.total}")
        for line in f.lines():
            print(f"  {line}")
        for o in options[side]:
            print(f"  option: {o['title']}" + (f" ({o['unit']})" if o["unit"] else "") +
                  f", on average {o['average']:+g}")
    for uid, d in damage.items():
        state = "disrupted: eliminated by" if d["disrupted"] else "disrupted by"
        n = d["eliminate-at"] if d["disrupted"] else d["disrupt-at"]
        print(f"{uid}: {state} {n} point{'s' * (n != 1)}" +
              ("" if d["disrupted"] else f", then eliminated by {d['eliminate-at']} more"))
    return 0


def _not_support(game, runner, s, cid: str, named: dict[str, str], on_map: set[str]) -> str:
    """Why ``cid`` cannot be a support chit of the battle ``hexforge battle``
    sets up ('' if it can): named already, one of the scenario's units,
    equipment, an aircraft (its mission is not in the odds), or a counter
    that adds to no pool (runtime.combat.dicepool: ``supports``)."""
    from runtime import attachments as A

    air = game.dice_pool.air.aircraft if game.dice_pool.air is not None else frozenset()
    if cid in named:
        return f"is named twice ({named[cid]} too)"
    if cid in on_map:
        return "is one of the scenario's units, not a support chit"
    if A.kind_of(game, cid) is not None:
        return "is equipment a unit carries, not a support chit"
    if air and game.matches(cid, air):
        return "is an aircraft: air missions are not in these odds"
    if not runner.engine.dicepool.supports(s, cid):
        return "adds nothing to a battle's dice pools as a support chit"
    return ""


def _dice_pool_battle(args, game, runner, s, target, named: dict[str, str], on_map: set[str]) -> int:
    """``hexforge battle`` for a dice-pool game: each side's pools and hit
    numbers, the tank duel's pairs (as the superior side pairs by default)
    and the exact probability of each damage total and of winning."""
    import json

    from runtime import attachments as A

    from runtime.combat.dicepool.odds import pct

    from .diagnostics import did_you_mean
    near = {x.strip().split("@")[0].split("+")[0] for x in args.near.split(",") if x.strip()}
    attackers = sorted(u.id for u in s.units.values() if u.hex is not None and u.hex != target and u.id not in near)
    from runtime.combat.dicepool.setup import factor
    from runtime.hexes import hex_distance
    ranged: dict[str, list[str]] = {}
    for uid in sorted(near):
        for cid in A.under(s, uid):
            r, d = factor(game, s, cid, game.dice_pool.ranged), hex_distance(s.units[uid].hex, target)
            if r < d:
                say_error(f"--near: {cid}'s {game.dice_pool.ranged} {r} does not reach {args.hex} "
                          f"({d} hex{'es' * (d != 1)} from {runner.board.hex_id(s.units[uid].hex)})", args.game)
                return 1
            ranged.setdefault(game.counters[cid].side, []).append(cid)
    roles = _battle_roles(args, game, s, target, near)
    if roles is None:
        return 1
    chits: dict[str, list[str]] = {}
    for cid in (x.strip() for x in args.support.split(",") if x.strip()):
        if cid not in game.counters:
            say_error(f"--support: no counter '{cid}'", args.game, did_you_mean(cid, game.counters))
            return 1
        why = _not_support(game, runner, s, cid, named, on_map)
        if why:
            say_error(f"--support: {cid} {why}", args.game)
            return 1
        named[cid] = "--support"
        chits.setdefault(game.counters[cid].side, []).append(cid)
    for side, used in chits.items():
        if len(used) > game.dice_pool.support:
            say_error(f"--support: {side} allocates at most {game.dice_pool.support} support chits to a battle",
                      args.game)
            return 1
    st = runner.engine.dicepool.preview(s, attackers, target, chits, (), ranged)
    odds = runner.engine.dicepool.preview_odds(s, attackers, target, chits, (), ranged)  # 19.5 counted
    if args.json:
        print(json.dumps({
            "hex": args.hex, "turn": args.turn, "attacker": st.attacker, "defender": st.defender,
            "pools": [{"step": p.step, "side": p.side, "dice": p.dice, "items": [list(x) for x in p.items],
                       "hit": p.test.text()} for p in st.pools],
            "pairs": [list(x) for x in st.pairs], "defence-level": st.level, "chits": list(odds.notes),
            **({"roles": {cid: r.id for cid, r in roles.items()}} if roles else {}),
            "damage": {side: {str(k): str(v) for k, v in d.items()} for side, d in odds.damage.items()},
            "win": {side: str(v) for side, v in odds.win.items()}, "tie": str(odds.tie),
            **({"air": "not included"} if game.dice_pool.air is not None else {})},
            ensure_ascii=False, indent=2))
        return 0
    print(f"{game.info.title}: battle in {args.hex}, turn {s.turn}: {st.attacker} attacks {st.defender}"
          + (f" (defence level {st.level})" if st.level else ""))
    for cid, r in roles.items():
        print(f"  {cid} fights {r.title[0].lower() + r.title[1:]}: as {r.unit_class} "
              f"{', '.join(f'{k} {v}' for k, v in r.factors.items())}")
    for pool in st.pools:
        if pool.dice:
            print(f"  {pool.title}: {pool.side} {pool.dice} dice ({', '.join(f'{i} {n}' for i, n in pool.items)}), "
                  f"hit on {pool.test.text()}")
    for a, d in st.pairs:
        print(f"  duel: {a} against {d} (paired by {game.dice_pool.superior}, strongest first)")
    for w in st.unpaired():
        print(f"  tank support: {w.id} ({w.side}), hit on {st.support_test(w).text()}")
    for side, ids in ranged.items():
        for cid in ids:
            print(f"  {cid} ({side}) supports from {runner.board.hex_id(s.units[A.host_of(s, cid)].hex)} (ranged)")
    for note in odds.notes:
        print(f"  {note}")
    for wid in sorted(st.rerolls):
        print(f"  {wid}: a shot by or at it may be rolled again once")
    for side in (st.attacker, st.defender):
        print(f"{game.sides[side].title} damage: " +
              ", ".join(f"{k} {pct(v)}" for k, v in odds.damage[side].items()))
    print(f"{game.sides[st.attacker].title} wins {pct(odds.win[st.attacker])}, "
          f"{game.sides[st.defender].title} wins {pct(odds.win[st.defender])}, tie (both lose) {pct(odds.tie)}")
    if game.dice_pool.air is not None:
        print(f"  ({game.dice_pool.air.title}: the air missions are not in these figures; they are flown after the "
              "support chits are turned up and between two rolls, and the odds shown after them count their damage "
              "and the weapons they neutralised)")
    return 0


def _battle_roles(args, game, s, target, near: set[str]) -> dict | None:
    """``hexforge battle --role COUNTER=ROLE``: mark each named counter as
    fighting the battle in that role (``dice-pool { role }``; Prokhorovka
    19.3: ``SU152=anti-tank``), as the side's declaration of the equipment
    that fights would.  The roles set (counter -> BattleRole), or None after
    an error (printed)."""
    from runtime import attachments as A
    from runtime.combat.dicepool.setup import ROLE

    from .diagnostics import did_you_mean
    out: dict = {}
    declared = {r.id: r for r in game.dice_pool.roles}
    for item in args.role:
        cid, eq, rid = (x.strip() for x in item.partition("="))
        if not eq or not cid or not rid:
            say_error(f"--role {item}: write COUNTER=ROLE (SU152=anti-tank)", args.game)
            return None
        if not declared:
            hint = _variant_with_role(args, rid)
            say_error(f"--role {item}: {game.info.title} declares no battle role (dice-pool {{ role }})"
                      + (" without a variant" if hint else ""), args.game,
                      f"the role '{rid}' is the variant {hint}'s: add --variant {hint}" if hint else "")
            return None
        if rid not in declared:
            say_error(f"--role {item}: no role '{rid}' (the roles: {', '.join(sorted(declared))})", args.game,
                      did_you_mean(rid, declared))
            return None
        if cid not in game.counters:
            say_error(f"--role {item}: no counter '{cid}'", args.game, did_you_mean(cid, game.counters))
            return None
        r = declared[rid]
        if not (cid in r.units or game.matches(cid, r.units)):
            say_error(f"--role {item}: {cid} has no role '{rid}': {r.title} is for {', '.join(sorted(r.units))}",
                      args.game)
            return None
        host = A.host_of(s, cid)
        stack = host if host is not None else cid
        if s.units[stack].hex is None or stack in near:
            say_error(f"--role {item}: {cid} is not in the battle: a counter fights in a role in its own stack's "
                      f"battle (carry it: --defend UNIT+{cid} or --attack UNIT+{cid}@HEX)", args.game)
            return None
        if cid in out:
            say_error(f"--role {item}: {cid} already fights as {out[cid].id}", args.game)
            return None
        s.mark(cid, ROLE + rid)
        out[cid] = r
    return out


def _variant_with_role(args, rid: str) -> str:
    """The id of the game's first variant that declares the battle role ``rid`` (for a hint), or ""."""
    from .compiler import compile_game
    path = game_path(args.game)
    base = compile_game(path, args.variant or ())
    for vid in sorted(base.variants):
        if vid in (args.variant or ()):
            continue
        try:
            with_it = compile_game(path, [*(args.variant or ()), vid])
        except DslError:
            continue
        if with_it.dice_pool is not None and any(r.id == rid for r in with_it.dice_pool.roles):
            return vid
    return ""


def cmd_play(args: argparse.Namespace) -> int:
    """Play a scenario to the end with bots, headless."""
    import json

    from runtime.bots import make_bot, play
    from runtime.runner import Runner
    from runtime.victory import UnreadParam

    from .compiler import compile_game
    from .diagnostics import did_you_mean

    where = args.game
    path = game_path(where)
    if args.log_side and not args.log:
        raise CliError(f"--log-side {args.log_side} says whose view the log holds: give the file with --log FILE",
                       where, f"e.g. --log {args.log_side}.jsonl --log-side {args.log_side}")
    if args.log:
        check_writable(args.log)  # before the game is played, not after
    if args.save:
        if Path(args.save).suffix != ".hxgame":
            raise CliError(f"--save writes a saved game: write --save {Path(args.save).stem}.hxgame", where)
        if args.log and Path(args.log).resolve() == Path(args.save).resolve():  # (the save overwrote the log)
            raise CliError(f"--log and --save name the same file ({args.save}): give each its own", where)
        check_writable(args.save)
    game = compile_game(path, args.variant or ())
    if args.log_side and args.log_side not in game.sides:
        raise CliError(f"--log-side: no side '{args.log_side}' (the sides: {', '.join(game.sides)})", where,
                       did_you_mean(args.log_side, game.sides))
    scenario = args.scenario or next(iter(game.scenarios), None)
    if scenario not in game.scenarios:
        raise CliError(f"no scenario '{scenario}'", where, did_you_mean(str(scenario), game.scenarios))
    names = [a.strip() for a in args.agents.split(",")]
    sides = list(game.sides)
    from runtime.search import think_error
    why = think_error(args.think)
    if why:  # (whichever bots play)
        raise CliError(why, where)
    for n in names:
        try:
            make_bot(n, 0, args.think)
        except ValueError as e:
            raise CliError(str(e), where) from None
    if len(names) == 1 and len(sides) > 1:
        print(f"note: --agents {names[0]}: {names[0]} plays every side ({', '.join(sides)})", file=sys.stderr)
        names = names * len(sides)
    if len(names) != len(sides):
        raise CliError(f"--agents takes one bot per side, in side order ({', '.join(sides)}): "
                       f"{len(names)} given", where, "e.g. --agents " + ",".join(["greedy"] + ["random"] * (len(sides) - 1)))
    params = {}
    for item in args.param or ():
        key, eq, val = item.partition("=")
        if not eq or not val.lstrip("-").isdigit() or len(val) > 30:
            raise CliError(f"--param takes NAME=NUMBER, not '{item}'", where)
        params[key] = int(val)
    try:
        runner = Runner(game, scenario, params=params)
    except UnreadParam as e:
        raise CliError(f"--param {e.name}: {e}", where, param_hint(path, game, e.name)) from None
    except (NotImplementedError, ValueError) as e:
        raise CliError(str(e), where) from None
    agents = {side: make_bot(n, args.seed * 1000 + i + 1, args.think) for i, (side, n) in enumerate(zip(sides, names))}
    try:
        state = runner.new_game(args.seed)
    except ValueError as e:  # a set-up that does not fit the map
        raise CliError(f"the scenario cannot be set up: {e}", where) from None
    turn_seen = [state.turn]
    out = sys.stdout
    from runtime.observe import hides_anything
    hidden = hides_anything(game)
    taken: list[str] = []  # every decision, in its text notation (--save)

    def on_action(st, side, action):
        taken.append(str(action))
        if st.turn != turn_seen[0] and not args.json:
            line = f"turn {turn_seen[0]} done: VP " + ", ".join(f"{k} {v}" for k, v in sorted(st.vp.items()))
            # most games count their places at the end only: the VP each side would have if it ended now
            # (where the count reads nothing a side cannot see: AVD's face-down VP chits stay face down)
            apart = None if hidden else runner.standing_apart(st)
            if apart:
                line += " (if the game ended now: " + ", ".join(f"{k} {v}" for k, v in sorted(apart.items())) + ")"
            print(line, file=out)
        turn_seen[0] = st.turn

    from runtime.expr import ExprError
    from runtime.runner import SequenceError
    try:
        state, n = play(runner, state, agents, on_action=on_action)
    except (ExprError, SequenceError) as e:
        raise CliError(str(e), where) from None
    except ValueError as e:  # (units placed in an area with no room left for them: 'no room in area ...')
        raise CliError(f"the game cannot go on after {len(taken)} decisions (turn {turn_seen[0]}): {e}",
                       where) from None
    result = dict(state.result, actions=n, scenario=scenario, seed=args.seed,
                  agents=dict(zip(sides, names)), variants=list(args.variant or ()), params=dict(params))
    if args.log:
        from runtime.observe import observe_log
        entries = observe_log(game, state.log, args.log_side) if args.log_side else state.log
        try:
            with open(args.log, "w", encoding="utf-8") as f:
                for e in entries:
                    f.write(json.dumps(e, sort_keys=True, default=str) + "\n")
        except OSError as e:
            raise CliError(f"cannot write {args.log}: {(e.strerror or str(e)).lower()}") from None
    if args.save:  # (the editor's playtest loads it: Game > Play…, then Load game…, to step through it)
        from runtime.replay import SavedGame, digest, snapshot
        saved = SavedGame(str(path), scenario, args.seed, taken, list(args.variant or ()), digest(state),
                          dict(zip(sides, names)), list(range(len(taken))), snapshot(runner, state), params)
        try:
            saved.save(args.save)
        except OSError as e:
            raise CliError(f"cannot write {args.save}: {(e.strerror or str(e)).lower()}") from None
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"turn {state.turn} done: VP " + ", ".join(f"{k} {v}" for k, v in sorted(state.vp.items())))
        print(f"game over after turn {state.turn} ({state.result['ended']}): winner {state.result['winner']}, "
              f"{n} decisions")
        print(state.result["why"])
    for written_file in (args.log, args.save):
        if written_file:
            print(f"wrote {written_file}", file=sys.stderr)  # stdout stays the game's own output
    return 0


def param_sources(path: Path, game) -> dict[str, list[str]]:
    """Each number the game's rules ask for with ``param("NAME")``, with
    what asks for it: "scenario ID" (its victory rules), "the rules" (any
    other rule), or "variant ID" where only with that variant on (``game``:
    compiled from ``path`` without variants)."""
    from runtime.victory import params_of, params_read

    from .compiler import compile_game

    params: dict[str, list[str]] = {}
    for sc in game.scenarios.values():
        for name in params_of(game.victory.get(sc.victory, ())):
            params.setdefault(name, []).append(f"scenario {sc.id}")
    for name in sorted(params_read(game, outside_victory=True) or ()):
        params.setdefault(name, []).append("the rules")
    for v in game.variants:
        try:
            g = compile_game(path, [v])
        except DslError:
            continue
        # (a name read with the variant where nothing without it reads it: scenario by scenario, and elsewhere)
        news = [(n, f"scenario {sc.id}") for sc in g.scenarios.values()
                for n in params_of(g.victory.get(sc.victory, ()))]
        news += [(n, "the rules") for n in sorted(params_read(g, outside_victory=True) or ())]
        for name, base in news:
            if base not in params.get(name, []) and f"variant {v}" not in params.setdefault(name, []):
                params[name].append(f"variant {v}")
    return params


def variants_reading(name: str, game, compile_with, errors: tuple = (DslError,)) -> list[str]:
    """The variants not switched on in ``game`` whose rules read the number
    ``name`` with ``param("NAME")``, as ``compile_with(variants)`` compiles
    the game with them on (a compile that raises one of ``errors`` is skipped):
    what to say of a number no rule in play reads."""
    from runtime.victory import params_read

    found = []
    for vid in game.variants:
        if vid in game.active_variants:
            continue
        try:
            g = compile_with([*game.active_variants, vid])
        except errors:
            continue
        if name in (params_read(g) or ()):  # (any rule of the game with the variant: its scenarios' too)
            found.append(vid)
    return found


def param_hint(path: Path, game, name: str) -> str:
    """What to say of a --param NAME no rule in play reads (``game``: as
    compiled for play): which variants read it, or the names it may be a
    misspelling of."""
    from .compiler import compile_game
    from .diagnostics import did_you_mean

    variants = variants_reading(name, game, lambda v: compile_game(path, v))
    if variants:
        return f"{' and '.join(f'variant {v}' for v in variants)} reads it: add " + \
            " or ".join(f"--variant {v}" for v in variants)
    try:
        return did_you_mean(name, param_sources(path, compile_game(path))) or ""
    except DslError:
        return ""


def cmd_info(args: argparse.Namespace) -> int:
    """What a game holds: sides, scenarios, variants, parameters, counts."""
    import json

    from .compiler import compile_game

    where = args.game
    game = compile_game(game_path(where))
    params = param_sources(game_path(where), game)
    counts = {"sides": len(game.sides), "unit classes": len(game.unit_classes), "counters": len(game.counters),
              "hexes": len(game.map.hexes) if game.map else 0, "turns": len(game.turn_track.turns),
              "scenarios": len(game.scenarios), "variants": len(game.variants)}
    info = {
        "game": game.info.id, "title": game.info.title, "series": game.info.series,
        "sides": [{"id": s.id, "title": s.title} for s in game.sides.values()],
        "scenarios": [{"id": s.id, "title": s.title, "turns": [s.first_turn, s.last_turn],
                       "victory": s.victory} for s in game.scenarios.values()],
        "variants": [{"id": v.id, "title": v.title, "kind": v.kind} for v in game.variants.values()],
        "parameters": [{"name": k, "asked by": v} for k, v in params.items()],
        "counts": counts,
    }
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
        return 0
    print(f"{game.info.title} ({game.info.id})" + (f", series {game.info.series}" if game.info.series else ""))
    print("sides: " + ", ".join(f"{s.id} ({s.title})" for s in game.sides.values()))
    print("scenarios:")
    width = max((len(s.id) for s in game.scenarios.values()), default=0)
    for s in game.scenarios.values():
        turns = f"turn {s.first_turn}" if s.first_turn == s.last_turn else f"turns {s.first_turn}-{s.last_turn}"
        print(f"  {s.id:<{width}}  {turns:<11}  {s.title}")
    if game.variants:
        print("variants (--variant NAME):")
        width = max(len(v) for v in game.variants)
        for v in game.variants.values():
            print(f"  {v.id:<{width}}  {v.title}" + (f" [{v.kind}]" if v.kind != "optional" else ""))
    else:
        print("variants: none")
    if params:
        print("parameters (--param NAME=N):")
        for k, v in params.items():
            print(f"  {k}  asked by {', '.join(v)}")
    else:
        print("parameters: none")
    print("counts: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 0


def add_commands(sub) -> None:
    """The headless commands (no Qt): the editor's command adds its own."""
    c = sub.add_parser("check", help="check a game folder or rules file")
    c.add_argument("path")
    c.set_defaults(func=cmd_check)
    from .scaffold import add_new_command
    add_new_command(sub)
    i = sub.add_parser("info", help="a game's sides, scenarios, variants, parameters and counts")
    i.add_argument("game", help="a game folder")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.set_defaults(func=cmd_info)
    o = sub.add_parser("odds", help="odds, column shifts and result chances of one attack on a game's CRT")
    o.add_argument("game", help="a game folder")
    o.add_argument("--attack", default=None, help="total attack strength (required unless --fire)")
    o.add_argument("--defense", "--defence", dest="defense", required=True, help="total defence strength")
    o.add_argument("--shift", default="0", help="extra column shifts: negative left, positive right (default: 0)")
    o.add_argument("--terrain", default="", help="defender's terrain and features, comma separated (light-forest,town)")
    o.add_argument("--crt", default="", help="the CRT to use (default: the game's)")
    o.add_argument("--side", default="", help="the attacking side (picks its die; binds attacker in modifiers)")
    o.add_argument("--turn", type=int, default=None, help="the turn (for the CRT's modifiers)")
    o.add_argument("--chit", default="", help="the chit that activated the attack (for the CRT's modifiers)")
    o.add_argument("--use", action="append", default=[], metavar="OPTION[:defender]",
                   help="a battle option used before the roll (repeatable): the attacker's, or with :defender "
                        "the defender's")
    o.add_argument("--fire", default="", metavar="KIND",
                   help="a fire attack of this kind (fire-attack): its side, die and fixed column, no --attack")
    o.add_argument("--json", action="store_true", help="print one JSON object")
    o.set_defaults(func=cmd_odds)
    b = sub.add_parser("battle", help="one battle in a firepower or dice-pool game (no CRT): its firepower, or its "
                                      "dice pools and the exact chance of each damage total and of winning")
    b.add_argument("game", help="a game folder")
    b.add_argument("--hex", required=True, help="the battle hex")
    b.add_argument("--attack", required=True, help="attacking units, each UNIT@HEX-IT-CAME-FROM (1PzG@0104,AGC@0105); "
                                                    "UNIT+CHIT+CHIT@HEX: with the counters it carries (LAH+Tiger1@0710)")
    b.add_argument("--defend", required=True, help="defending units (WF,2T; 52G+PakFront2: with what it carries)")
    b.add_argument("--turn", type=int, default=1, help="the turn (weather, turn-limited options) (default: 1)")
    b.add_argument("--disrupted", default="", help="units already disrupted")
    b.add_argument("--near", default="", help="dice-pool: stacks beside the battle whose ranged equipment supports it, "
                                               "UNIT+EQUIPMENT@HEX (DR+Hummel1@0810)")
    b.add_argument("--support", default="", help="dice-pool: support chits used in the battle, either side's (GArty1,SArty1)")
    b.add_argument("--role", action="append", default=[], metavar="COUNTER=ROLE",
                   help="dice-pool: a counter in the battle fights in a role of the game's (dice-pool { role }) "
                        "instead of as itself (repeatable): SU152=anti-tank, the SU-152 as an anti-tank gun "
                        "(Prokhorovka 19.3, with --variant su152)")
    b.add_argument("--scenario", default="", help="the scenario (default: the game's first)")
    b.add_argument("--variant", action="append", default=[], help="switch on a variant (repeatable; default: none)")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.set_defaults(func=cmd_battle)
    p = sub.add_parser("play", help="play a scenario to the end with bots, headless")
    p.add_argument("game", help="a game folder")
    p.add_argument("--scenario", default="", help="the scenario (default: the game's first)")
    p.add_argument("--variant", action="append", default=[], help="switch on a variant (repeatable; default: none)")
    p.add_argument("--agents", default="random,random",
                   help="one bot per side, in side order: random, greedy or search, with options after it ("
                        + examples("; ") + "); one name plays every side (default: random,random)")
    p.add_argument("--think", type=float, default=None, metavar="SECONDS",
                   help="the search bot's budget per decision in seconds instead of iterations (not reproducible)")
    p.add_argument("--seed", type=int, default=0, help="the seed: the same seed gives the same game (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object at the end")
    p.add_argument("--log", default="", help="write every action and die roll as JSON lines to this file, "
                                             "secrets included (default: none)")
    p.add_argument("--save", default="", metavar="FILE.hxgame",
                   help="write the game as a saved game, which the editor's playtest loads (Game > Play…, then "
                        "Load game…) to step through it (default: none)")
    p.add_argument("--log-side", default="", metavar="SIDE",
                   help="the --log file holds what SIDE saw: the other sides' chits and hidden values left out "
                        "(default: everything)")
    p.add_argument("--param", action="append", default=[],
                   help="a number the rules ask for: NAME=N (repeatable; hexforge info lists them)")
    p.set_defaults(func=cmd_play)
    from .balance_cli import add_balance_command
    add_balance_command(sub)


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("hexforge")
    except PackageNotFoundError:
        return "unknown (not installed)"


class _Version(argparse.Action):
    """``--version``: the version, and whether the engine's hottest modules
    run compiled (and why not), on lines of their own (argparse's version
    action would wrap them at the terminal's width)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help="show the version and whether the engine runs compiled, and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from runtime.compiled import status

        print(f"hexforge {version()}\nengine: {status()[1]}")
        parser.exit()


def add_version(p: argparse.ArgumentParser) -> None:
    p.add_argument("--version", action=_Version)


def run(args: argparse.Namespace) -> int:
    """Run a parsed command: user errors become messages, never tracebacks."""
    try:
        return args.func(args)
    except CliError as e:
        print(e.format(), file=sys.stderr)
        return 1
    except DslError as e:
        print_dsl_error(e, getattr(args, "game", None) or getattr(args, "path", None) or "")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def main(argv: list[str] | None = None) -> int:
    """Headless entry point (python -m dsl.cli): the same commands as
    `hexforge` except those that need the editor."""
    p = argparse.ArgumentParser(prog="hexforge", description="Hex wargame rules compiler and engine")
    add_version(p)
    add_commands(p.add_subparsers(dest="command", required=True))
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
