"""What one side sees: the state with the other sides' secrets taken out, as
OpenSpiel's information states do.

``observe(game, state, side)`` returns a *view*: a ``GameState`` in which

- the chits in the other sides' hands and the other sides' chits in the cup
  are placeholders (``"?"``): their number shows, not which they are;
- a face-down marker of a ``hidden`` kind has no value (``None``) unless the
  side may see it: a kind hidden ``from enemy`` shows its value to the side
  that handles it (``marker ... { side SIDE }``), and a ``reveal ... to SIDE``
  shows one marker's value to that side;
- unit markers the game declares hidden from the enemy (``hidden {
  unit-marker NAME from enemy }``) are missing from the enemy's units, and
  the enemy's log shows a designation of one as ``designate ?``, until the
  unit shows it by acting (``shown:MARKER:UNIT`` in ``state.done``,
  runtime/designate.py);
- the counters in a pool of kind ``cup`` (from every side) or ``hand`` (from
  the other sides) stand in the box ``"?"``: how many each pool holds shows
  (``view.observed["places"]``), not which they are;
- the other sides' secret decisions (the chits they chose and picked: their
  ``step`` entries and the ``picked:`` records) are left out;
- the log is the side's own (``observe_log``): the other sides' chit choices,
  what they did face down (a log entry with ``"face": "down"``: a support
  chit allocated to a dice-pool battle) and the values of face-down markers
  drawn are left out;
- the support chits the other side allocated to a dice-pool battle that is
  still allocating are placeholders (their number shows): they are turned
  face up together (Prokhorovka 9.2(2)2, 11.2(2)), unless a recon aircraft
  turned them up before (``seen``, 16.1(6)3).

Everything else (units, control, VP, turn, phase, pending decisions) is
public.  A game that hides nothing (no chits, no hidden marker kinds, no
``hidden`` declarations) is observed as the state itself, at no cost.

Views are read, never changed: they share the units with the state.  To
simulate from a view (a bot's look-ahead, a search), fill its placeholders
with ``determinise(game, view, rng)``, one sample of what the side cannot
know that agrees with what it sees; a sample depends on the view and the
generator only, so that no decision made from it depends on a secret.

Reveal happens through effects (runtime/effects.py): ``flip`` and
``reveal KIND [at WHERE]`` turn markers face up for every side, ``reveal ...
to SIDE`` shows them to one side; a chit drawn from the cup or played from a
hand is public from then on.  No Qt, no Lark.
"""
from __future__ import annotations

import dataclasses
import operator
import random
from dataclasses import replace
from typing import Any

from .definition import GameDefinition
from .state import GameState

UNKNOWN = "?"  # a chit the side cannot see
SECRET_DECISIONS = ("choose", "pick", "interrupt")  # steps whose details belong to the deciding side
SECRET_KEYS = ("left", "chosen", "playable")  # ... and the details
SECRET_ACTIONS = ("choose ", "pick ")  # the actions that choose chits: secret until the chit is drawn


# ------------------------------------------------------------------ what is hidden

def hides_anything(game: GameDefinition) -> bool:
    """Whether the game can ever hide anything from a side (else every view is the state)."""
    hit = _facts(game)
    return hit["any"]


def _allocating(p: dict) -> bool:
    """A dice-pool battle whose support chits are still face down: its
    sides allocating, or a recon flying between the two (16.1(6)3)."""
    return p.get("kind") == "dice-pool" and (p.get("stage") == "support" or
                                             (p.get("air") or {}).get("back") == "support")


def _facts(game: GameDefinition) -> dict:
    """What the game hides, worked out once per game (definitions are immutable)."""
    key = id(game)
    hit = _FACTS.get(key)
    if hit is not None and hit[0] is game:
        return hit[1]
    hidden = getattr(game, "hidden", None)
    markers = {k: m.hidden_from for k, m in game.markers.items() if m.hidden}
    unit_markers = dict(hidden.unit_markers) if hidden is not None else {}
    # pools whose counters nobody sees (kind cup) or only their side sees (kind hand): counts only
    pools = {f"pool:{k}": ("all" if p.kind == "cup" else "enemy", p.side)
             for k, p in game.pools.items() if getattr(p, "kind", "box") in ("cup", "hand")}
    facts = {"markers": markers, "unit-markers": unit_markers, "chits": bool(game.chits),
             "picks": any(c.pick for c in game.chits.values()), "pools": pools,
             # per side: the records of the other sides' picked chits (secret until drawn)
             "pick-keys": {s: frozenset(f"picked:{k}" for k, c in game.chits.items() if c.side != s)
                           for s in game.sides},
             "battles": game.dice_pool is not None and game.dice_pool.support > 0,
             # counters that live in a hidden pool (equipment and support chits in cups and hands): the
             # other sides' logs do not name them where they are drawn, taken or put in a hidden pool
             "secret": {s: frozenset(cid for cid, c in game.counters.items()
                                     if c.side != s and c.arrives.startswith("pool:") and
                                     getattr(game.pools.get(c.arrives[5:]), "kind", "box") in ("cup", "hand"))
                        for s in game.sides},
             # a hidden pool -> the unit selectors of the effects that move counters into it (what a sample
             # may deal there: support chits into a support pool, never a tank chit)
             "admits": _admits(game),
             # attachment kinds face down under their units (GJ63 3.5(5)): kind -> "cup" | "blind"
             "face-down": {k: a.face_down for k, a in getattr(game, "attachments", {}).items() if a.face_down},
             "any": bool(markers or unit_markers or game.chits or pools or
                         (game.dice_pool is not None and game.dice_pool.support > 0) or
                         any(a.face_down for a in getattr(game, "attachments", {}).values()))}
    if len(_FACTS) > 64:
        _FACTS.clear()
    _FACTS[key] = (game, facts)
    return facts


_FACTS: dict[int, tuple[GameDefinition, dict]] = {}


def _admits(game: GameDefinition) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for effects in game.effects.values():
        for eff in effects:
            to = eff.args.get("to") if eff.verb == "move" else None
            if isinstance(to, str) and to in game.pools:
                out.setdefault(f"pool:{to}", set()).update(eff.args.get("units") or ())
    return {k: frozenset(v) for k, v in out.items()}


def marker_hidden_from(game: GameDefinition, m: dict, side: str | None) -> bool:
    """Whether ``side`` cannot see this marker's value (``None``: a designer, who sees everything)."""
    if side is None or m.get("face") != "down":
        return False
    whom = _facts(game)["markers"].get(m["kind"])
    if whom is None:
        return False
    if side in m.get("seen", ()):
        return False
    return not (whom == "enemy" and game.markers[m["kind"]].side == side)


def chit_seen_by(game: GameDefinition, cid: str, side: str) -> bool:
    """A chit in the cup is seen by the side it belongs to (which put it there),
    and by every side if the rules always put it there (Smolensk's SUPPLY)."""
    c = game.chits.get(cid)
    return c is not None and (c.side == side or c.always)


class _Read:
    """What a function of a list of log entries last gave, and the list's
    first entries it read: a list that starts with the same entries (a log
    is only ever appended to, its entries are never changed once written,
    and a state's copies share them) is worked out from where the last one
    ended, not from its start.  A bot reads the turn's log at every
    decision, each a few entries longer than the last.  Kept as one tuple,
    read and replaced whole: bots of the editor think on threads of their
    own, and one may keep another list between two reads of another."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept: tuple | None = None  # (the first entry, how many, the last entry, the value)

    def read_to(self, entries: list) -> tuple[int, Any]:
        """(how many of ``entries``, from the start, the value kept has read, the value); (0, None): none."""
        kept = self.kept
        if kept is not None:
            first, n, last, value = kept
            if len(entries) >= n and entries[0] is first and entries[n - 1] is last:
                return n, value
        return 0, None

    def keep(self, entries: list, value: Any) -> None:
        """Keep ``value`` as read from all of ``entries`` (never changed after: a copy if need be)."""
        self.kept = (entries[0], len(entries), entries[-1], value) if entries else None


_TURN = _Read()  # this_turn: (the turn, where its entries start in the log)


def this_turn(state: GameState) -> list[dict]:
    """The log entries of the state's turn (the tail of its log)."""
    log, turn = state.log, state.turn
    done, kept = _TURN.read_to(log)
    if done and kept[0] == turn:  # (the entries read before are this turn's from kept[1] on: those after are read)
        i = kept[1]
        for j in range(done, len(log)):
            if log[j].get("turn", turn) != turn:
                i = j + 1
    else:
        i = len(log)
        while i > 0 and log[i - 1].get("turn", turn) == turn:
            i -= 1
    _TURN.keep(log, (turn, i))
    return log[i:]


def spent_chits(entries: list[dict]) -> dict[str, int]:
    """The chits seen leaving the cup or a hand in these log entries (drawn,
    played, taken out of play) less those seen going back (an interrupted draw
    returns to the cup, 7.3(1)), and those seen put in (bought, or put by an
    effect) as negative counts: what every side knows of the cup's history
    this turn."""
    done, counted = _SPENT.read_to(entries)  # (the counts of the entries read last time, and the new entries')
    out: dict[str, int] = dict(counted) if done else {}

    def add(cid: object, n: int) -> None:
        if isinstance(cid, str) and cid != UNKNOWN:
            out[cid] = out.get(cid, 0) + n
    for e in entries[done:] if done else entries:  # (most entries name none of these: each is looked for first)
        if (x := e.get("draw")) is not None:
            add(x, 1)
        if (x := e.get("interrupt")) is not None:
            add(x, 1)
        if (x := e.get("returned")) is not None:
            add(x, -1)
        if e.get("into") == "cup":
            add(e.get("bought"), -1)
        if (x := e.get("effect")) is not None:
            words = str(x).split()
            if len(words) == 5 and words[0] == "take" and words[2:] == ["out", "of", "play"]:
                add(words[1], 1)
            elif len(words) >= 4 and words[0] == "put" and words[2] == "into":
                add(words[1], -1)
    _SPENT.keep(entries, dict(out))
    return out


_SPENT = _Read()  # spent_chits: its counts


# ------------------------------------------------------------------ the view

_FIELDS = tuple(f.name for f in dataclasses.fields(GameState))
_VALUES = operator.attrgetter(*_FIELDS)  # (a state's fields in one call: GameState has slots, no __dict__)


def _shallow(state: GameState) -> GameState:
    """A new state object sharing every field's value with ``state``."""
    s = type(state).__new__(type(state))
    for name, value in zip(_FIELDS, _VALUES(state)):
        setattr(s, name, value)
    return s


def observe(game: GameDefinition, state: GameState, side: str | None, log: bool = True) -> GameState:
    """The state as ``side`` sees it (module docstring).  ``side`` None: the
    designer's view, the state itself.  ``log`` False leaves the view's log
    empty (bots never read it; filtering a long log costs time)."""
    if side is None:
        return state
    facts = _facts(game)
    if not facts["any"]:
        return state
    view = _shallow(state)  # units, control, derived data and the rest are shared (a view is only read)
    unseen: dict[str, list] = {}
    if facts["chits"]:
        view.hands = {k: (list(v) if k == side else [UNKNOWN] * len(v)) for k, v in state.hands.items()}
        mine = sorted(c for c in state.cup if chit_seen_by(game, c, side))
        view.cup = mine + [UNKNOWN] * (len(state.cup) - len(mine))
        st = state.step
        if st.get("decision") in SECRET_DECISIONS and st.get("side") != side:
            view.step = {k: ([UNKNOWN] * len(v) if isinstance(v, list) else v) if k in SECRET_KEYS else v
                         for k, v in st.items()}
        if facts["picks"]:
            gone = state.done & facts["pick-keys"].get(side, frozenset())
            if gone:
                view.done = state.done - gone
    if facts["markers"] and any(marker_hidden_from(game, m, side) for m in state.markers):
        out = []
        for m in state.markers:
            if marker_hidden_from(game, m, side):
                unseen.setdefault(m["kind"], []).append(m["value"])
                m = dict(m, value=None)
            out.append(m)
        view.markers = out
        unseen = {k: sorted(v, key=lambda x: (x is None, x or 0)) for k, v in unseen.items()}
    if facts["face-down"] and any(p.get("kind") == "dice-pool" and p.get("neutral") for p in state.pending):
        # a counter the enemy left out of a battle stays face down: which one is not known (Prokhorovka 11.2(1))
        def hidden(c: str) -> bool:
            u = state.units.get(c)
            return side is not None and u is not None and u.side != side and u.box.startswith("under:") \
                and f"face-up:{c}" not in state.done
        view.pending = [dict(p, neutral=[UNKNOWN if hidden(c) else c for c in p["neutral"]])
                        if p.get("kind") == "dice-pool" and p.get("neutral") else p for p in view.pending]
    if facts["battles"] and any(_allocating(p) for p in state.pending):  # (but those recon turned up: 16.1(6)3)
        view.pending = [dict(p, chits={k: [c if k == side or c in p.get("seen", ()) else UNKNOWN for c in v]
                                       for k, v in p["chits"].items()})
                        if _allocating(p) else p for p in view.pending]
    units = None
    places: dict[str, int] = {}
    if facts["pools"]:  # counters in a cup, or in another side's hand: where each is, is hidden
        for uid, u in state.units.items():
            hid = facts["pools"].get(u.box) if u.hex is None else None
            if hid is not None and (hid[0] == "all" or hid[1] != side):
                if units is None:
                    units = dict(state.units)
                units[uid] = replace(u, box=UNKNOWN)
                places[u.box] = places.get(u.box, 0) + 1
    if facts["unit-markers"]:
        for uid, u in state.units.items():
            if u.side == side or not u.markers:
                continue
            gone = {mk for mk in u.markers if mk in facts["unit-markers"] and f"shown:{mk}:{uid}" not in state.done}
            if gone:
                if units is None:
                    units = dict(state.units)
                units[uid] = replace(units[uid], markers=units[uid].markers - gone)
    if facts["face-down"]:  # a record of a fight is kept while the counter stays under a unit
        stale = {k for k in state.done if k.startswith("face-up:") and
                 not state.units[k[len("face-up:"):]].box.startswith("under:")}
        if stale:
            view.done = view.done - stale
        shown = {k for k in view.done if k.startswith("cup-shown:") and state.units[k[len("cup-shown:"):]].side != side}
        if shown:  # (which counters those are is the secret: the view shows only their cups, in places)
            view.done = view.done - shown
    if facts["face-down"] and state.attached:  # the other sides' face-down counters under their units
        attached = None
        for host, ids in state.attached.items():
            if state.units[host].side == side:
                continue
            keep = []
            for aid in ids:
                mode = facts["face-down"].get(game.attachment_of.get(aid, ""))
                if mode is None or f"face-up:{aid}" in state.done:
                    keep.append(aid)
                    continue
                if units is None:
                    units = dict(state.units)
                units[aid] = replace(units[aid], box=UNKNOWN, markers=frozenset())  # (a role it fights in, 19.3)
                cup = game.counters[aid].arrives if mode == "cup" or f"cup-shown:{aid}" in state.done else ""
                place = f"under:{host}" + (f"|{cup}" if cup else "")
                places[place] = places.get(place, 0) + 1
            if len(keep) != len(ids):
                if attached is None:
                    attached = dict(state.attached)
                attached[host] = tuple(keep)
        if attached is not None:
            view.attached = {k: v for k, v in attached.items() if v}
    if units is not None:  # derived data may read what was taken out: the view's own
        view.units = units
        view.cache = {k: v for k, v in state.cache.items() if isinstance(k, str)}
    # a bot's view keeps only this turn's log, in a chit game: what was drawn from the cup this turn is known
    # (chit_bags); other games' bots read no log
    view.log = observe_log(game, state.log if log else this_turn(state) if facts["chits"] else [], side)
    # the values of a kind's face-down markers, as a sorted multiset, are known to every side (the
    # counter mix is printed in the rules); which marker carries which is not.  ``places``: how many
    # counters each hidden pool holds (the counters themselves are in the box '?')
    view.observed = {"side": side, "unseen": unseen, "places": dict(sorted(places.items()))}
    return view


def hidden_under(view: GameState) -> dict[str, list[str]]:
    """Unit id -> the face-down counters under it that the view hides, one
    entry each: the pool it came from (``pool:ID``, GJ63 3.5(5): the enemy
    sees a tank chit from an equipment chit), or "" where even that is hidden
    (19.6).  Empty for a state that hides nothing."""
    out: dict[str, list[str]] = {}
    for place, n in sorted(((view.observed or {}).get("places") or {}).items()):
        if place.startswith("under:"):
            host, _, cup = place[len("under:"):].partition("|")
            out.setdefault(host, []).extend([cup] * n)
    return out


def observe_log(game: GameDefinition, entries: list[dict], side: str | None) -> list[dict]:
    """The log as ``side`` saw it: the other sides' chit choices and the values
    of face-down markers drawn are left out (``side`` None: all of it)."""
    if side is None or not _facts(game)["any"]:
        return list(entries)
    # each entry as the side saw it, worked out once: a bot observes every
    # decision's state, whose log is the last one's and a few entries more
    # (an entry is never changed once the action that wrote it is applied;
    # the memo holds the entry itself, so its id is not reused meanwhile)
    key = (id(game), side)
    memo = _SEEN.get(key)
    if memo is None or memo[0] is not game:
        if len(_SEEN) >= 8:
            _SEEN.clear()
            _OBSERVED.clear()
        memo = _SEEN[key] = (game, {})
    kept = memo[1]
    if len(kept) > _SEEN_KEPT:
        kept.clear()
    read = _OBSERVED.get(key)
    if read is None:
        read = _OBSERVED[key] = _Read()
    done, before = read.read_to(entries)
    if done and before[0] is not memo:  # (read with a memo since dropped)
        done = 0
    out = list(before[1]) if done else []
    for e in entries[done:] if done else entries:
        hit = kept.get(id(e))
        if hit is None or hit[0] is not e:
            hit = kept[id(e)] = (e, seen_entry(game, e, side))
        out.append(hit[1])
    read.keep(entries, (memo, list(out)))
    return out


# (game id, side) -> (the game, {id of a log entry: (the entry, as the side saw it)}): ``observe_log``
_SEEN: dict[tuple[int, str], tuple[GameDefinition, dict[int, tuple[dict, dict]]]] = {}
# (game id, side) -> the entries observe_log last read, and what they were as the side saw them
_OBSERVED: dict[tuple[int, str], _Read] = {}
_SEEN_KEPT = 10_000  # entries kept per side, then the memo starts again (a bot reads this turn's; a few MB)


def seen_entry(game: GameDefinition, e: dict, side: str) -> dict:
    """One log entry as ``side`` saw it."""
    who = e.get("side")
    if who is not None and who != side and e.get("face") == "down":  # done face down: that it happened shows
        return {k: (action_of(v) if k == "action" else UNKNOWN if k == "support" else v) for k, v in e.items()}
    if who is not None and who != side and e.get("marker") in _facts(game)["unit-markers"]:
        return dict(e, action=str(e.get("action", "")).split(" ", 1)[0] + " " + UNKNOWN)  # a designation
    if who is not None and who != side and game.chits:
        action = str(e.get("action", ""))
        if action.startswith(SECRET_ACTIONS):
            return dict(e, action=action.split(" ", 1)[0] + " " + UNKNOWN)
        if "chits" in e:
            return dict(e, chits=[UNKNOWN] * len(e["chits"]))
    if e.get("to") and e["to"] != side and "values" in e:  # a reveal to another side
        return {k: v for k, v in e.items() if k != "values"}
    draw = e.get("draw")
    hidden = _facts(game)["secret"].get(side)
    if hidden and (isinstance(draw, list) or "effect" in e or "attach" in e or "return" in e or
                   who not in (None, side)):
        if isinstance(draw, list) and any(isinstance(x, str) and x in hidden for x in draw):
            return dict(e, draw=[UNKNOWN if isinstance(x, str) and x in hidden else x for x in draw])
        words = str(e.get("effect", "")).split()
        if len(words) == 4 and words[0] == "move" and words[1] in hidden and words[2] == "to":
            hid = _facts(game)["pools"].get(f"pool:{words[3]}")
            if hid is not None and (hid[0] == "all" or hid[1] != side):  # into a cup, or another side's hand
                return dict(e, effect=f"move {UNKNOWN} to {words[3]}")
        action = str(e.get("action", "")).split()
        if who not in (None, side) and len(action) == 2 and action[0] == "take" and action[1] in hidden:
            return dict(e, action=f"take {UNKNOWN}")
        down = _facts(game)["face-down"]
        if down:  # a face-down counter put under a unit, or sent back to the pool (GJ63 3.5(5), 5.1(7))
            def face_down(cid) -> bool:
                return cid in hidden and game.attachment_of.get(cid) in down
            if who not in (None, side) and len(action) in (2, 3) and action[0] in ("attach", "return") and \
                    face_down(action[1]):
                return dict(e, action=" ".join([action[0], UNKNOWN, *action[2:]]))
            for key in ("attach", "return"):
                if key in e and face_down(e[key]):
                    return dict(e, **{key: UNKNOWN})
    if isinstance(draw, list) and any(isinstance(x, dict) for x in draw):
        return dict(e, draw=[dict(x, value=None) if isinstance(x, dict) and marker_hidden_from(game, x, side)
                             else x for x in draw])
    return e


def action_of(text: object) -> str:
    """An action with its object hidden: 'use ?'."""
    return str(text).split(" ", 1)[0] + " " + UNKNOWN


def unseen_values(view: GameState) -> dict[str, list]:
    """The values of the face-down markers a view hides, by kind (a sorted multiset)."""
    return (view.observed or {}).get("unseen", {})


def view_key(view: GameState) -> tuple:
    """What a view shows, as one comparable value (the property tests compare
    two states that one side sees alike).  The generator's future is no part
    of it; the log is."""
    def hexkey(h):
        return () if h is None else tuple(h)
    units = tuple(sorted((u.id, u.side, u.step, hexkey(u.hex), u.box, tuple(sorted(u.markers)))
                         for u in view.units.values()))
    markers = tuple(sorted((m["kind"], hexkey(m["hex"]), m["box"], m["value"] if m["value"] is not None else -999,
                            m["face"], tuple(m.get("seen", ()))) for m in view.markers))
    return (view.turn, view.phase, view.active, units, markers, tuple(view.cup),
            tuple(sorted((k, tuple(v)) for k, v in view.hands.items())), repr(sorted(view.step.items(), key=str)),
            tuple(sorted(view.done)), tuple(sorted(view.vp.items())), repr(view.pending), repr(view.effects),
            tuple(sorted((k, tuple(v)) for k, v in unseen_values(view).items())),
            tuple(sorted(((view.observed or {}).get("places") or {}).items())),
            tuple(sorted((tuple(h), s) for h, s in view.control.items())), view.pc, repr(view.result))


# ------------------------------------------------------------------ sampling what is hidden

def needs_sample(view: GameState) -> bool:
    """Whether a view has placeholders to fill before one can play on from it."""
    if view.observed is None:
        return False
    if unseen_values(view) or view.observed.get("places"):
        return True
    return UNKNOWN in view.cup or any(UNKNOWN in h for h in view.hands.values()) or \
        any(isinstance(v, list) and UNKNOWN in v for k, v in view.step.items() if k in SECRET_KEYS) or \
        any(p.get("kind") == "dice-pool" and any(UNKNOWN in v for v in p.get("chits", {}).values())
            for p in view.pending)


def chit_bags(game: GameDefinition, view: GameState, side: str,
              rng: random.Random) -> tuple[list[str], list[str]]:
    """The other sides' chits that may fill a view's hidden chit slots, shuffled
    with ``rng``: ``likely``, those the public history allows (each of the
    chit's copies, if the chit may be chosen this turn: available from this
    turn, its HQ on the map, never one the rules always put in; one of the
    picked kind (Smolensk 15.2(2)5) only among as many as the side has
    picked; less those played before the selection, and those seen drawn,
    played or taken out this turn, plus those seen put in), and ``rest``,
    every other copy the view does not show (a fallback where the history
    does not account for a slot).  A sample of what the side cannot know,
    not a belief: which chits the other side chose is drawn uniformly."""
    seen: dict[str, int] = {}
    for c in view.cup + [c for h in view.hands.values() for c in h]:
        seen[c] = seen.get(c, 0) + 1
    spent = spent_chits(this_turn(view))
    on_map = {u.id for u in view.units.values() if u.hex is not None}
    hq_sides = {view.units[uid].side for uid in on_map
                if "hq" in game.unit_classes[game.counters[uid].unit_class].flags}
    track = game.turn_track
    picked: set[str] = set()
    for other in sorted({c.side for c in game.chits.values()} - {side}):
        pickable = sorted(cid for cid, c in game.chits.items() if c.side == other and c.pick and
                          c.available <= view.turn)
        if pickable:
            made = sum((track.turn(t).values.get(f"{other}.new-chits") or 0) for t in range(1, view.turn + 1)
                       if f"picked:{other}@{t}" in view.done) if track.turns else 0
            picked.update(rng.sample(pickable, min(made, len(pickable))))
    likely: list[str] = []
    rest: list[str] = []
    for cid, c in sorted(game.chits.items()):
        if c.side == side:
            continue
        hidden = max(0, c.count - seen.get(cid, 0))
        may = not c.always and c.available <= view.turn and (not c.pick or cid in picked) and \
            (not c.needs_hq or (c.side in hq_sides if c.any_hq else c.hq in on_map))
        base = c.count - (1 if f"played:{cid}@{view.turn}" in view.done else 0) if may else 0
        n = min(hidden, max(0, base - spent.get(cid, 0) - seen.get(cid, 0)))
        likely.extend([cid] * n)
        rest.extend([cid] * (hidden - n))
    rng.shuffle(likely)
    rng.shuffle(rest)
    return likely, rest


def determinise(game: GameDefinition, view: GameState, rng: random.Random) -> GameState:
    """One state that agrees with what the view shows, its secrets drawn with
    ``rng``: a face-down marker gets one of its kind's unseen values; a chit
    the side cannot see, one of the other sides' chits that this turn's public
    history allows there (``chit_bags``): an interrupt chit in a hand, another
    in the cup.
    The view itself when it hides nothing.  The generator of the dice is the
    view's: re-seed it for a look-ahead that must not know the dice."""
    if not needs_sample(view):
        return view
    side = view.observed["side"]
    s = _shallow(view)
    s.observed = None  # a sample is a whole state: nothing in it is hidden any more
    places = view.observed.get("places") or {}
    if places:  # the counters whose place is hidden, dealt out to the hidden pools (their side's first)
        view_facts = _facts(game)
        units = dict(view.units)
        hidden = sorted(uid for uid, u in view.units.items() if u.hex is None and u.box == UNKNOWN)
        rng.shuffle(hidden)
        under = {p: n for p, n in places.items() if p.startswith("under:")}
        if under:  # face-down counters under units first: each from its cup (a tank chit), if that shows
            attached = dict(view.attached)
            for place, n in under.items():
                host, _, cup = place[len("under:"):].partition("|")
                side_of = view.units[host].side
                fits = [uid for uid in hidden if view.units[uid].side == side_of and uid in game.attachment_of
                        and view_facts["face-down"].get(game.attachment_of[uid]) is not None
                        and (not cup or game.counters[uid].arrives == cup)]
                for uid in fits[:n]:
                    hidden.remove(uid)
                    units[uid] = replace(units[uid], box=f"under:{host}")
                    attached[host] = attached.get(host, ()) + (uid,)
            s.attached = attached
        for place, n in places.items():
            if place.startswith("under:"):
                continue
            owner = game.pools[place[5:]].side if place[5:] in game.pools else ""
            pool = place[5:]
            first = [uid for uid in hidden if getattr(game.counters.get(uid), "arrives", "") in (place, pool)]
            admits = view_facts["admits"].get(place)
            if admits:  # then the counters the game moves there (support chits into a support pool)
                first += [uid for uid in hidden if uid not in first and game.matches(uid, admits) and
                          (owner in ("", "both") or view.units[uid].side == owner)]
            fits = first + [uid for uid in hidden if uid not in first and
                            (owner in ("", "both") or view.units[uid].side == owner)]
            take = (fits + [uid for uid in hidden if uid not in fits])[:n]
            for uid in take:
                hidden.remove(uid)
                units[uid] = replace(units[uid], box=place)
        s.units = units
        s.cache = {k: v for k, v in view.cache.items() if isinstance(k, str)}
    values = {k: list(v) for k, v in unseen_values(view).items()}
    if values:
        for k in values:
            rng.shuffle(values[k])
        out = []
        for m in view.markers:
            if m["value"] is None and m["face"] == "down" and values.get(m["kind"]):
                m = dict(m, value=values[m["kind"]].pop())
            out.append(m)
        s.markers = out
    secret_step = any(isinstance(v, list) and UNKNOWN in v for k, v in view.step.items() if k in SECRET_KEYS)
    if UNKNOWN in view.cup or any(UNKNOWN in h for h in view.hands.values()) or secret_step:
        likely, rest = chit_bags(game, view, side, rng)
        others = sorted(cid for cid, c in game.chits.items() if c.side != side) or sorted(game.chits)

        def one(interrupt: bool | None = None) -> str:
            """A chit from the likely bag (of the kind the slot holds, if there is one), else from the rest."""
            for bag in (likely, rest):
                if interrupt is not None:
                    for i in range(len(bag) - 1, -1, -1):
                        if (game.chits[bag[i]].kind == "interrupt") == interrupt:
                            return bag.pop(i)
                if bag:
                    return bag.pop()
            return rng.choice(others)
        s.cup = [one(False) if c == UNKNOWN else c for c in view.cup]
        s.hands = {k: [one(True) if c == UNKNOWN else c for c in v] for k, v in view.hands.items()}
        if secret_step:
            st = dict(view.step)
            if "playable" in st:
                st["playable"] = [c for _, c in sorted((k, c) for k, v in s.hands.items() for c in v
                                                       if game.chits[c].kind == "interrupt")] or st["playable"]
            for k in ("left", "chosen"):
                if isinstance(st.get(k), list):
                    st[k] = [one() if c == UNKNOWN else c for c in st[k]]
            s.step = st
    if any(p.get("kind") == "dice-pool" and any(UNKNOWN in v for v in p.get("chits", {}).values())
           for p in view.pending):
        s.pending = [_deal_battle_chits(game, s, p, rng) for p in view.pending]
    if any(p.get("kind") == "dice-pool" and UNKNOWN in p.get("neutral", ()) for p in s.pending):
        s.pending = [_deal_left_out(game, view, s, p, rng) for p in s.pending]
    return s


def _deal_left_out(game: GameDefinition, view: GameState, s: GameState, p: dict, rng: random.Random) -> dict:
    """The counters the enemy left out of a dice-pool battle (11.2(1)2: they
    stay face down, so the view knows how many, not which): as many of the
    face-down counters the sample dealt under the enemy's stacks in the
    battle, so that the sample does not count them as fighting."""
    if p.get("kind") != "dice-pool" or UNKNOWN not in p.get("neutral", ()):
        return p
    target = game.map.grid.parse_id(p["hex"])
    stacks = [*p["attackers"], *(u.id for u in s.units_at(target))]
    dealt = [a for u in stacks for a in s.attached.get(u, ()) if a not in view.attached.get(u, ())
             and a not in p["neutral"]]
    rng.shuffle(dealt)
    return dict(p, neutral=[c if c != UNKNOWN else dealt.pop() for c in p["neutral"] if c != UNKNOWN or dealt])


def _deal_battle_chits(game: GameDefinition, s: GameState, p: dict, rng: random.Random) -> dict:
    """A dice-pool battle's support chits allocated face down (9.2(2)2), as
    many as the view shows, drawn from the chits the sample holds in their
    side's support pool (where they wait until the dice): aircraft last, and
    fewer where the pool holds too few."""
    if p.get("kind") != "dice-pool" or not any(UNKNOWN in v for v in p.get("chits", {}).values()):
        return p
    rules = game.dice_pool
    air = rules.air.aircraft if rules.air else frozenset()
    chits = {}
    for side, used in p["chits"].items():
        pools = {f"pool:{pid}" for pid in rules.support_from if game.pools[pid].side == side}
        free = sorted(u.id for u in s.units.values() if u.box in pools and u.hex is None and u.id not in used)
        rng.shuffle(free)
        free.sort(key=lambda c: bool(air and game.matches(c, air)), reverse=True)  # aircraft only if need be
        chits[side] = [c if c != UNKNOWN else free.pop() for c in used if c != UNKNOWN or free]
    return dict(p, chits=chits)
