"""Stacking limits (docs/dsl.md §4.19): how many units may end a move, a
retreat or an advance in a hex, join an attack there, be set up or placed
there.

``stacking { units N; hq N; limit N SELECTOR...; exempt NAME... }``:

* ``units N``: units that are not ``exempt`` (by class, class flag or
  counter tag) count toward N;
* ``hq N``: units whose class has the flag ``hq`` count toward N (A Victory
  Denied: 2 units and 1 HQ, ``units 2; hq 1; exempt hq``);
* ``limit N SELECTOR...``: units that match one of the selectors (a class,
  class flag, nationality, side or counter tag) count toward N (AVD: two
  Soviet brown units may not stack, ``limit 1 brown``).

Markers are not units and never count.  Nothing here names a game.
"""
from __future__ import annotations

from collections.abc import Mapping

from .definition import GameDefinition
from .hexes import Hex
from .state import GameState


def names_of(game: GameDefinition, uid: str) -> frozenset[str]:
    """What a stacking rule may name that the counter matches: its class,
    the class's flags, nationality, side and tags."""
    return game.selectors_of(uid) | game.counters[uid].tags


def extra_limits(stacking: Mapping[str, int]) -> list[tuple[int, frozenset[str], str]]:
    """The limits beside ``units``: (most, selectors, what is counted).
    Worked out once per stacking declaration (a game's is fixed)."""
    kept = _EXTRA.get(id(stacking))
    if kept is not None and kept[0] is stacking:
        return kept[1]
    out = _extra_limits(stacking)
    if len(_EXTRA) > 16:
        _EXTRA.clear()
    _EXTRA[id(stacking)] = (stacking, out)
    return out


_EXTRA: dict[int, tuple[Mapping[str, int], list[tuple[int, frozenset[str], str]]]] = {}


def _extra_limits(stacking: Mapping[str, int]) -> list[tuple[int, frozenset[str], str]]:
    out = []
    if "hq" in stacking:
        out.append((stacking["hq"], frozenset({"hq"}), "HQ"))
    for k, most in stacking.items():
        if k.startswith("limit:"):
            sel = frozenset(k[6:].split(","))
            out.append((most, sel, "/".join(sorted(sel))))
    return out


def over_extra_limits(stacking: Mapping[str, int], stack: list[frozenset[str]]) -> str:
    """The first ``hq`` or ``limit`` rule a whole stack breaks, in words
    ("2 HQ units; the stacking limit is 1"), or "".  ``stack``: what each
    unit in the hex matches (``names_of``)."""
    for most, sel, what in extra_limits(stacking):
        n = sum(1 for names in stack if sel & names)
        if n > most:
            return f"{n} {what} units; the stacking limit is {most}"
    return ""


def extra_bars(game: GameDefinition, state: GameState, h: Hex, uid: str, ignore: str = "") -> str:
    """Why the ``hq`` and ``limit`` rules keep ``uid`` out of ``h`` ("" when
    they allow it, or the game has none): the movement, retreat, advance
    and placement checks add this to their ``units`` count."""
    if not game.stacking or not extra_limits(game.stacking):
        return ""
    stack = [names_of(game, u.id) for u in state.units_at(h) if u.id not in (uid, ignore)]
    why = over_extra_limits(game.stacking, stack + [names_of(game, uid)])
    return _said(game, h, uid, why)


def stacking_bars(game: GameDefinition, state: GameState, h: Hex, uid: str, ignore: str = "") -> str:
    """Why ``uid`` may not end in ``h`` with the units there (besides itself
    and ``ignore``): "UID would make 3 units in 0403; the stacking limit is
    2"; "" when every limit allows it."""
    from .movement import stack_count, stack_weight
    if not state.occupants.get(h) and not _alone_over(game, uid):
        return ""  # (no rule bars a unit alone: the placements and displacements ask it of whole maps)
    limit = game.stacking.get("units")
    n = stack_count(game, state, h, uid) + stack_weight(game, uid) if limit is not None else 0
    if limit is not None and n > limit:
        return _said(game, h, uid, f"{n} units; the stacking limit is {limit}")
    return extra_bars(game, state, h, uid, ignore)


def _alone_over(game: GameDefinition, uid: str) -> bool:
    """Whether ``uid`` alone in a hex breaks a stacking rule (a limit below
    1 for what it is): fixed for a counter in a game, worked out once."""
    from .movement import _kept_for, stack_weight
    kept = _kept_for(_ALONE, game)
    hit = kept.get(uid)
    if hit is None:
        limit = game.stacking.get("units")
        hit = kept[uid] = (limit is not None and stack_weight(game, uid) > limit) or \
            bool(extra_limits(game.stacking) and over_extra_limits(game.stacking, [names_of(game, uid)]))
    return hit


_ALONE: dict[int, tuple[GameDefinition, dict]] = {}  # id(game) -> (game, {counter: ``_alone_over``})


def _said(game: GameDefinition, h: Hex, uid: str, why: str) -> str:
    if not why:
        return ""
    where = game.map.grid.format_id(h) if game.map is not None else str(h)
    what, rest = why.split(";", 1)
    return f"{uid} would make {what} in {where};{rest}"


# ------------------------------------------------------------ judged at the end (GJ63 3.4(4))
ENTERING = "entering:"  # s.done: UID=BOX, a reinforcement placed where the limits are judged at the end of
# movement (``stacking { judged end }``), and the box it came from, until its side's movement phase ends


def judged_at_end(game: GameDefinition) -> bool:
    """``stacking { judged end }``: the limits hold where a move, retreat or
    advance ends, not at a reinforcement's placement (several units may be
    placed on one entry hex, 7.0(2)); a movement phase cannot end while a hex
    of the moving side is over them (``overstacked``)."""
    return bool(game.stacking.get("judged-end"))


def over_limits(game: GameDefinition, state: GameState, h: Hex, ignore: frozenset[str] = frozenset()) -> str:
    """Why the units in ``h`` (but those in ``ignore``) are over a stacking
    limit, in words ("2 units; the stacking limit is 1"), or ""."""
    from .movement import stack_weight
    limit = game.stacking.get("units")
    ids = [x for x in state.occupants.get(h, ()) if x not in ignore]
    if limit is not None:
        n = sum(stack_weight(game, x) for x in ids)
        if n > limit:
            return f"{n} units; the stacking limit is {limit}"
    if not extra_limits(game.stacking):
        return ""
    return over_extra_limits(game.stacking, [names_of(game, x) for x in ids])


def overstacked(game: GameDefinition, state: GameState, side: str) -> dict[Hex, str]:
    """The hexes where ``side``'s units are over a stacking limit -> why
    (``over_limits``), in map order: none unless ``judged_at_end`` let
    reinforcements be placed so."""
    if not judged_at_end(game):
        return {}
    out = {}
    for h, ids in state.occupants.items():
        if state.units[ids[0]].side == side:
            why = over_limits(game, state, h)
            if why:
                out[h] = why
    return dict(sorted(out.items(), key=lambda kv: game.map.grid.to_colrow(kv[0]) if game.map else 0))


def end_movement(game: GameDefinition, state: GameState, movers: set[str], hex_id) -> str:
    """``judged end``: the active side's movement phase ends.  Why it may
    not ("" when it may): a hex of the side is over a limit and a unit there
    (one of ``movers``, those that may still move) could move out.  When it
    may, the reinforcements placed this turn on a hex still over a limit (no
    unit there can move) go back to the box each came from until it is within
    the limits (``send_back``): the side's owner chooses which where there
    is a choice (a pending ``send-back`` decision); the movement ends once
    none is left (``entries_judged``)."""
    over = overstacked(game, state, state.active)
    for h, why in over.items():
        ids = state.occupants[h]
        if any(x in movers for x in ids):
            return f"the movement cannot end with {hex_id(h)} over the stacking limit, judged where moves end " \
                   f"({', '.join(ids)}: {why}): move one of them out"
    send_back(game, state, hex_id)
    return ""


def placed_from(state: GameState) -> dict[str, str]:
    """The reinforcements placed where the limits are judged at the end of
    movement (not yet judged) -> the box each came from."""
    return dict(k[len(ENTERING):].split("=", 1) for k in state.done if k.startswith(ENTERING))


def sent_back_candidates(game: GameDefinition, state: GameState, h: Hex) -> list[str]:
    """The reinforcements placed on ``h`` this turn whose going back brings
    it nearer its limits (they count toward the limit it breaks), in the
    order they were placed."""
    why = over_limits(game, state, h)
    if not why:
        return []
    came = placed_from(state)
    return [x for x in state.occupants.get(h, ()) if x in came and over_limits(game, state, h, frozenset({x})) != why]


def send_back(game: GameDefinition, state: GameState, hex_id) -> None:
    """The hexes of the moving side still over a limit once no unit there
    can move: a reinforcement placed there this turn goes back to its box
    (``return_to_box``) while the hex is over it.  Where every candidate
    must go, or only one would do, they go (the last placed first); where
    the owner has a choice, a ``send-back`` decision is pending (its
    ``units``: the candidates) and the rest waits for the answer.  Once no
    choice is left, the side's placements are judged (``entries_judged``)."""
    for h in overstacked(game, state, state.active):
        while True:
            cands = sent_back_candidates(game, state, h)
            if not cands:
                break
            everyone = len(cands) == 1 or all(over_limits(game, state, h, frozenset(cands) - {x}) for x in cands)
            if not everyone:
                state.pending.insert(0, {"kind": "send-back", "side": state.active, "hex": hex_id(h),
                                         "units": cands, "why": over_limits(game, state, h)})
                return
            return_to_box(game, state, cands[-1], h, hex_id)
    entries_judged(state)


def return_to_box(game: GameDefinition, state: GameState, uid: str, h: Hex, hex_id) -> None:
    """``uid``, placed on ``h`` this turn, goes back to the box it came from
    with the counters it carries; the log says why (``cannot-enter``)."""
    box = placed_from(state)[uid]
    why = over_limits(game, state, h)
    state.place(uid, None, box)
    for k in [k for k in state.entering if k == uid or k.startswith(uid + "@")]:
        del state.entering[k]
    state.done.discard(f"{ENTERING}{uid}={box}")
    state.log.append({"turn": state.turn, "cannot-enter": uid, "at": hex_id(h), "to": box,
                      "why": f"no move out of {hex_id(h)} ({why})"})


def entries_judged(state: GameState) -> None:
    """The moving side's placements have been judged: forgotten."""
    side = state.active
    for uid, box in placed_from(state).items():
        if state.units[uid].side == side:
            state.done.discard(f"{ENTERING}{uid}={box}")
