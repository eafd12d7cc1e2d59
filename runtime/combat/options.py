"""Battle options (``battle-option``): what a side may add to one battle or
attack before the fire or the roll: an air strike, a desperate effort, a
Stuka, a once-per-game barrage.  Both combat families use them: a firepower
battle adds their firepower (``adds``, ``roll``), an attack on a CRT their
column shifts (``shift``).

Who provides an option: without ``by``, the side itself; with ``by``, one
of its units that match, on the map within ``within`` hexes of the battle
hex or, with ``from POOL``, in that pool (a Stuka in the Luftwaffe's
airfields).  A unit spends the option's resource (``uses``, by default
the option's id) once per combat phase; one from a pool goes to the pool
``to`` names, and comes back only when a rule moves it back.  ``per-game``
caps the uses in the whole game."""
from __future__ import annotations

from .. import expr as E
from ..actions import Use
from ..definition import BattleOption, GameDefinition
from ..hexes import Hex
from ..state import GameState, Unit
from .modifiers import Env


def option_open(game: GameDefinition, opt: BattleOption, side: str, attacker: str, defender: str,
                env: Env, local: dict | None = None) -> bool:
    """May ``side`` use ``opt`` in a battle between these sides now?
    ``local``: the names of ``env`` with the battle's (``battle_names``),
    when the caller has them."""
    role = "attacker" if side == attacker else "defender"
    if opt.side not in ("both", side, role):
        return False
    if opt.condition is None:
        return True
    if local is None:
        local = battle_names(env, side, attacker, defender)
    return E.evaluate(opt.condition, local, env[1]) is True


def battle_names(env: Env, side: str, attacker: str, defender: str) -> dict:
    """The names of ``env`` with a battle's: side, enemy, attacker, defender."""
    local = dict(env[0])
    local.update({"side": side, "enemy": defender if side == attacker else attacker, "attacker": attacker,
                  "defender": defender})
    return local


def near_units(state: GameState, opt: BattleOption, side: str, h: Hex) -> list[Unit]:
    """The units of ``side`` where ``opt`` looks for its providers to the
    battle in ``h``: in its pool, or on the map within ``within`` hexes."""
    if opt.from_pool:
        box = f"pool:{opt.from_pool}"
        return [u for u in state.units.values() if u.side == side and u.box == box and u.hex is None]
    if opt.within <= 2:  # the units in the few hexes that near (not every unit's distance)
        occupants = state.occupants
        return [state.units[x] for n in h.within(opt.within) for x in occupants.get(n, ())
                if state.units[x].side == side]
    return [u for u in state.on_map(side) if u.hex is not None and u.hex.distance(h) <= opt.within]


def providers(game: GameDefinition, opt: BattleOption, units: list[Unit]) -> list[str]:
    """Those of ``units`` (``near_units``) that could provide ``opt``
    (before the once-per-phase check), by id."""
    by, not_marked = opt.by, opt.not_marked
    out = []
    for u in units:
        if not_marked and not not_marked.isdisjoint(u.markers):
            continue
        if not by.isdisjoint(game.selectors_of(u.id)):
            out.append(u.id)
    return sorted(out)


# (option, unit) -> its ``use`` action: the same few are listed battle after battle (an action never changes)
_USES: dict[tuple[str, str], Use] = {}


def use(option: str, unit: str = "") -> Use:
    """The action ``use OPTION [UNIT]`` (kept: ``_USES``)."""
    a = _USES.get((option, unit))
    if a is None:
        if len(_USES) >= 4096:
            _USES.clear()
        a = _USES[(option, unit)] = Use(option, unit)
    return a


def used_in_game(state: GameState, opt: BattleOption) -> int:
    return sum(1 for d in state.done if d.startswith(f"used:{opt.id}@"))


def open_options(game: GameDefinition, side: str, attacker: str, defender: str,
                 env: Env) -> tuple[BattleOption, ...]:
    """The battle options ``side`` may use in a battle between these sides
    now (``option_open``), before the per-game, per-battle and provider
    checks of ``open_uses``."""
    local = battle_names(env, side, attacker, defender)  # (the same for every option)
    return tuple(opt for opt in game.battle_options.values()
                 if option_open(game, opt, side, attacker, defender, env, local))


def open_uses(game: GameDefinition, s: GameState, side: str, h: Hex, used: list,
              options: tuple[BattleOption, ...], once: bool = False) -> list[Use]:
    """The ``use OPTION [UNIT]`` actions open to ``side`` now; ``options``:
    the options open to it in this battle (``open_options``); ``used``: the
    uses so far in this battle ([option, unit, side, ...]).  ``once``: each
    option at most once per side in the battle (an attack on a CRT)."""
    out: list[Use] = []
    near: dict[tuple[str, int], list[Unit]] = {}  # near_units by (pool, distance): options looking there share them
    for opt in options:
        if opt.per_game is not None and used_in_game(s, opt) >= opt.per_game:
            continue
        if (once or not opt.by) and any(x[0] == opt.id and x[2] == side for x in used):
            continue
        if not opt.by:
            out.append(use(opt.id))
            continue
        spent = opt.uses or opt.id
        where = (opt.from_pool, opt.within)
        units = near.get(where)
        if units is None:
            units = near[where] = near_units(s, opt, side, h)
        for uid in providers(game, opt, units):
            if f"spent:{spent}:{uid}" not in s.attacked:
                out.append(use(opt.id, uid))
    return out


def spend(game: GameDefinition, s: GameState, opt: BattleOption, side: str, unit: str, hex_id: str) -> None:
    """The bookkeeping of one use: the unit's resource is spent for this
    combat phase, the use counts for ``per-game``, a unit from a pool goes
    to the ``to`` pool."""
    if unit:
        s.attacked.add(f"spent:{opt.uses or opt.id}:{unit}")
        if opt.to_pool:
            s.place(unit, None, f"pool:{opt.to_pool}")
    s.done.add(f"used:{opt.id}@{s.turn}:{hex_id}:{side}:{unit}")
