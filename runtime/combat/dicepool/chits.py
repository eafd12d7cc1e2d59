"""What the support chits used in a dice-pool battle do to it (the chit
catalogue of Prokhorovka: smoke, engineer, close combat, hand-to-hand,
minefield...), read from the game's ``dice-pool { on-use SELECTORS { ... } }``
blocks.  Those blocks hold effects of the effects vocabulary's battle verbs
(dsl/effects.py ``BATTLE_VERBS``); each changes this battle only, so they are
applied to the battle's set-up, not to the state, and the odds before the
dice see them as the dice do:

    multiply STEP N [both]   the side's dice in STEP times N (``both``: both
                             sides'); several do not add up: the highest counts
    add-damage N             N added to the side's total in the damage step
    cancel-step STEP         the enemy's dice in STEP do not roll
    neutralise SELECTORS     the enemy's counters that match take no part
                             (their effects, levels and dice are gone)
    both-lose                the winner loses the loser's track too
    cancel-chit SELECTORS    (a decision) one enemy chit used in this battle
                             that matches is cancelled: back to its cup
    cancel-equipment SELECTORS [removed-with FACTOR]
                             (a decision) one enemy counter carried in the
                             battle takes no part; with FACTOR 1 or more it is
                             removed from the game
    strike SELECTORS on N [spent]
                             before the tank duel, one enemy counter in the
                             battle that matches, drawn at random, is
                             destroyed on a die of N or less (``spent``: the
                             chit leaves the game when it destroys one)

    send-back SELECTORS [within N]
                             (a decision) one enemy counter that matches,
                             carried by an enemy stack within N hexes of
                             the side's stacks in the battle (0: the
                             battle's own), face up or fighting in the
                             battle, goes back where its kind returns it
                             (its cup)
    choose { option NAME "title" { EFFECTS } ... }
                             the chit does the effects of one option: its
                             side picks it in the ``cancel`` stage, when the
                             chit's turn comes (``use CHIT NAME``); until
                             then the options do nothing

A chit's decisions are alternatives (a commander cancels a chit or an
equipment counter): its side picks one target among them, or none, in the
battle's ``cancel`` stage (``runtime.combat.dicepool.fight``), the side that
declares first first, before the other effects apply (11.2(3)).

Each effect's ``when`` condition reads ``side`` (the chit's side),
``enemy``, ``attacker``, ``defender`` and ``turn``.  Neutralising comes
first (11.2(3): chits are cancelled before the others take effect), so a
neutralised chit does nothing."""
from __future__ import annotations

from dataclasses import dataclass, field

from ... import expr as E
from ...definition import Effect, GameDefinition


@dataclass
class ChitEffects:
    """The battle's changes, by side."""

    neutral: dict[str, set[str]] = field(default_factory=dict)  # side -> its counters that take no part
    multiply: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)  # (side, step) -> (times, chit)
    cancel: dict[tuple[str, str], str] = field(default_factory=dict)  # (side, step) -> the chit that cancels it
    damage: list[tuple[str, str, int]] = field(default_factory=list)  # (side, chit, amount)
    both_lose: str = ""  # the chit that makes the winner lose too
    notes: list[str] = field(default_factory=list)  # what each chit does, for the panel and the log


CHOSE = "chose:"  # the marker on a chit that says which option of its choose its side picked


def chosen(state, chit: str) -> str | None:
    """The option ``chit``'s side picked for it in this battle (None: not yet)."""
    u = state.units.get(chit) if state is not None else None
    return next((m[len(CHOSE):] for m in u.markers if m.startswith(CHOSE)), None) if u is not None else None


def forget_choice(state, chit: str) -> None:
    """The battle is over for ``chit``: its option is picked again the next time."""
    opt = chosen(state, chit)
    if opt is not None:
        state.unmark(chit, CHOSE + opt)


def choices(game: GameDefinition, chit: str) -> list[tuple[str, str, str]]:
    """The (name, title, effects key) of the options of ``chit``'s choose (none: it has none)."""
    if game.dice_pool is None or chit not in game.counters:
        return []
    return [o for sel, key in game.dice_pool.uses if chit in sel or game.matches(chit, sel)
            for eff in game.effects.get(key, ()) if eff.verb == "choose" for o in eff.options]


def _effects(game: GameDefinition, chit: str, state=None) -> list[Effect]:
    """``chit``'s effects in a battle; of a choose, those of the option its
    side picked (read from ``state``; none before it picks)."""
    rules = game.dice_pool
    if chit not in game.counters:  # a chit the other side allocated face down, unknown in this view
        return []
    out = []
    for sel, key in rules.uses:
        if chit in sel or game.matches(chit, sel):
            for eff in game.effects.get(key, ()):
                if eff.verb != "choose":
                    out.append(eff)
                    continue
                pick = chosen(state, chit)
                out += [x for name, _, okey in eff.options if name == pick for x in game.effects.get(okey, ())]
    return out


DECISIONS = ("cancel-chit", "cancel-equipment", "send-back")


def decisions(game: GameDefinition, chit: str, state=None) -> list[Effect]:
    """A chit's effects that ask its side for a target."""
    return [eff for eff in _effects(game, chit, state) if eff.verb in DECISIONS]


def strikes(game: GameDefinition, chit: str, state=None) -> list[Effect]:
    """A chit's strikes (a Molotov cocktail)."""
    return [eff for eff in _effects(game, chit, state) if eff.verb == "strike"]


def _holds(eff: Effect, names: dict) -> bool:
    return eff.condition is None or E.evaluate(eff.condition, names) is True


def chit_effects(game: GameDefinition, items: dict[str, list[str]], chits: dict[str, list[str]],
                 attacker: str, defender: str, turn: int, state=None) -> ChitEffects:
    """The effects of the chits each side used (``chits``), on a battle
    whose items are ``items`` (each side's units, equipment and chits)."""
    out = ChitEffects()
    if game.dice_pool is None or not game.dice_pool.uses:
        return out
    other = {attacker: defender, defender: attacker}

    def names(side: str) -> dict:
        return {"side": side, "enemy": other[side], "attacker": attacker, "defender": defender, "turn": turn,
                **game.declared_ids()}

    for side in (attacker, defender):  # first: what is neutralised
        for chit in chits.get(side, ()):
            for eff in _effects(game, chit, state):
                if eff.verb == "neutralise" and _holds(eff, names(side)):
                    sel = frozenset(eff.args["units"])
                    hit = [i for i in items.get(other[side], ()) if i in sel or game.matches(i, sel)]
                    out.neutral.setdefault(other[side], set()).update(hit)
                    out.notes.append(f"{chit} ({side}): " + (f"{', '.join(hit)} neutralised" if hit else
                                                            "nothing to neutralise"))
    for side in (attacker, defender):
        for chit in chits.get(side, ()):
            if chit in out.neutral.get(side, ()):
                continue
            if choices(game, chit) and chosen(state, chit) is None:
                out.notes.append(f"{chit} ({side}): its side picks one of: "
                                 + "; ".join(title or name for name, title, _ in choices(game, chit)))
            for eff in _effects(game, chit, state):
                if eff.verb in ("neutralise", *DECISIONS) or not _holds(eff, names(side)):
                    continue
                if eff.verb == "strike":
                    out.notes.append(f"{chit} ({side}): before the duel, one of the enemy's "
                                     f"{', '.join(eff.args['units'])} at random is destroyed on {eff.args['on']} or less")
                    continue
                a = eff.args
                if eff.verb == "multiply":
                    for s in ((attacker, defender) if a["both"] else (side,)):
                        if out.multiply.get((s, a["step"]), (1, ""))[0] < a["times"]:
                            out.multiply[(s, a["step"])] = (int(a["times"]), chit)
                    out.notes.append(f"{chit} ({side}): {a['step']} dice x{a['times']}"
                                     + (" for both sides" if a["both"] else ""))
                elif eff.verb == "cancel-step":
                    out.cancel.setdefault((other[side], a["step"]), chit)
                    out.notes.append(f"{chit} ({side}): {other[side]}'s {a['step']} does not fire")
                elif eff.verb == "add-damage":
                    out.damage.append((side, chit, int(a["amount"])))
                    out.notes.append(f"{chit} ({side}): +{a['amount']} in the damage step")
                elif eff.verb == "reroll-die":
                    out.notes.append(f"{chit} ({side}): unless it cancels something, it may roll one die of this "
                                     "battle again: a strike's as it is rolled, or one after the dice (not counted "
                                     "in these odds)")
                elif eff.verb == "both-lose":
                    out.both_lose = out.both_lose or chit
                    out.notes.append(f"{chit} ({side}): the winner loses the loser's damage too")
    return out
