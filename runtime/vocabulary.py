"""What game files may name that the engine provides: the variables and
functions of the expression language, the procedures a sequence of play can
run, and the values that some properties take.  The checker validates game
files against these lists; the runtime implements them."""
from __future__ import annotations

# Variables an expression can read.  Declared ids (sides, terrain, weather,
# chits, counters, events, variants...) are names too.
EXPR_NAMES: dict[str, str] = {
    "turn": "the current turn number",
    "last-turn": "the scenario's last turn",
    "phase": "the id of the current phase",
    "active": "the side whose phase or chit it is",
    "side": "the side the rule is applied for",
    "enemy": "the other side",
    "weather": "this turn's weather",
    "attacker": "the attacking side (in combat)",
    "defender": "the defending side (in combat)",
    "die": "the die roll being modified",
    "value": "the value being looked up in a 2-D table",
    "units": "how many units take part (in combat: on the side concerned)",
    "strength": "the strength being modified (a unit's printed strength)",
    "nationality": "the nationality of the unit concerned",
    "unit-class": "the unit class of the unit concerned",
    "terrain": "the terrain of the hex concerned",
    "hex": "the hex concerned",
    "all-attackers-across": "the hexside kinds every attacker crosses, unbridged (a list: river in all-attackers-across)",
    "city-vp": "the VP of the city hex concerned",
    "chit": "the chit drawn now (in combat: the chit that activated the attack; \"\" without one)",
    "fire-attack": "in a CRT modifier: the fire attack's id when the attack is by fire (\"\" for an attack by units)",
    "unit-markers": "the markers on the unit concerned (a list: \"disrupted\" in unit-markers)",
    "across": "the hexside kinds the unit concerned crosses to attack, unbridged (a list)",
    "first-roll": "true on the first combat of a scenario",
    "attackers": "attacking units in the battle hex (a battle outcome)",
    "defenders": "defending units in the battle hex (a battle outcome)",
    "undisrupted-attackers": "undisrupted attacking units in the battle hex (a battle outcome)",
    "undisrupted-defenders": "undisrupted defending units in the battle hex (a battle outcome)",
}

# Functions an expression can call, with their arity (None: any).
EXPR_FUNCTIONS: dict[str, int | None] = {
    "min": None, "max": None, "abs": 1, "half": 1, "floor": 1, "ceil": 1,
    "round_down": 1, "count": 1, "sum": None,
    "controls": 2,  # controls(side, hex): side controls the hex
    "occupies": 2,  # occupies(side, hex): a unit of side stands in the hex
    "units-of": 1,  # units-of(selector): in a combat modifier, the units concerned that match it
    "terrain-at": 2,  # terrain-at(hex, id): the hex's terrain or one of its features is that id
    "supplied": 2,  # supplied(side, hex): a supply line from side's sources reaches hex (and may end there)
    "supplied-along": 3,  # supplied-along(side, hex, link): ... a line that runs along the link all the way
    "vp": 1,  # vp(side): the side's VP so far
    "eliminated": 2,  # eliminated(side, flag): count of side's eliminated units with flag
    "on-map": 1,  # on-map(counter): the counter is on the map
    "marked": 2,  # marked(counter, "marker"): the unit carries that unit marker (GJ63 19.2: marked(VIK, "arrived"))
    "variant": 1,  # variant(id): the variant is switched on
    "lost": 1,  # lost(hex): the hex has changed hands from its original owner
    "chosen": 1,  # chosen(option): the player answered yes to a decide phase's option of that name
    "param": 1,  # param("bid"): a number given when the game starts (hexforge play --param bid=45)
    "rolled": 1,  # rolled("table"): the result of the latest roll on a die table ("" before any)
    "track": 1,  # track(column): this turn's cell of a turn-track column (0 when empty)
    "units-at": 3,  # units-at(side, where, "selectors"): how many of the side's units at a hex, area, pool or map match
    "marker-at": 2,  # marker-at(where, kind): a marker of that kind is at the hex, area or pool ("all": anywhere)
    "markers": 2,  # markers(where, kind): how many markers of that kind are there
    "marker-value": 2,  # marker-value(where, kind): the sum of their values (hidden faces count too)
    "chits-in-play": 1,  # chits-in-play(chit): that chit's copies in the cup or drawn from it this turn
    "held-since": 2,  # held-since(side, hex): the turn the side took the hex (n + 1/2: after turn n's supply check; 0: not held)
}

# Procedures the sequence of play can run, and what each one does.
PROCEDURES: dict[str, str] = {
    "choose-chits": "each side secretly chooses its command chits for the cup",
    "draw-chit": "draw a chit from the cup; its side acts",
    "activate": "activate the drawn chit's HQ and the units in its command range",
    "move": "the active side moves units",
    "combat": "the active side declares and resolves attacks",
    "supply": "check supply for every unit and apply the game's consequences",
    "reinforce": "place reinforcements",
    "rebuild": "return units from pools onto rebuild hexes (the game's rebuild rules)",
    "strategic-move": "strategic movement of a few units (a move phase for the phase's modes)",
    "decide": "a yes/no choice of the phase's side (option NAME), read as chosen(NAME)",
    "recover": "disrupted units in supply recover",
    "advance-turn": "move the turn marker and release scheduled units",
    "victory-check": "evaluate the victory rules",
    "roll": "roll on a die table",
    "event": "apply the turn's events: the effects in each event's do { } block",
    "effects": "run the effects in the phase's do { } block (draws from cups each turn)",
    "reorganize": "a side moves counters between units and pools: attach from a pool, transfer, return",
    "designate": "a side gives some of its units a marker (a reserve, hidden from the enemy), until its turn ends",
}

ACTIVATION_KINDS = ("hq", "reserve", "reinforcements", "supply", "interrupt", "event", "air", "artillery")
EDGES = ("north", "south", "east", "west")

# The properties of a phase that each procedure reads (besides `procedure`,
# `note` and `before`, which every phase may have).  The checker rejects any
# other property at its place: a property no rule reads would be a promise
# the engine does not keep.  tests/test_vocabulary.py checks that the runtime
# reads each of them.
PHASE_PROPERTIES: dict[str, tuple[str, ...]] = {
    "choose-chits": (),
    "draw-chit": (),
    "activate": ("die-table", "hq-class", "same-tag", "outside-command", "hq-transfer", "loc-check", "chit",
                 "formation"),
    "move": ("side", "only", "exclude", "limit", "mode"),
    "strategic-move": ("side", "only", "exclude", "limit", "mode"),
    "combat": ("side", "only", "exclude", "limit", "ignore", "hold-fire"),
    "supply": (),
    "reinforce": ("side", "at", "due", "from", "count", "marker", "formation", "pick", "move-on"),
    "rebuild": ("side",),
    "decide": ("side", "option"),
    "recover": ("side", "only", "exclude"),
    "advance-turn": (),
    "victory-check": (),
    "roll": ("die-table",),
    "event": (),
    "effects": ("do",),
    "reorganize": ("side", "from", "limit", "traced", "transfer", "returns", "only"),
    "designate": ("side", "marker", "only", "exclude", "outside-zoc"),
}
