"""What an agent name may set after its bot's kind (``greedy:hold=1``,
``search:50:risk=0.5``: ``runtime.bots.make_bot``), the defaults, and the
examples that ``hexforge play --help``, ``hexforge balance --help`` and the
editor's Balance dialog give: one list for the three.  Light to import (the
command line builds its help from it before any game is read)."""
from __future__ import annotations

# ``goals``: a place the enemy plays for that has not changed hands since the game began is held once an
# enemy unit is within this share of the reach (at least 1 hex), one taken in the game once an enemy unit
# is within the whole reach (docs/balance.md: the greedy bots, measured)
HOLD = 0.25
# the least chance of success for which the bot attacks: of a defender loss or retreat (odds CRTs), of a
# win (dice pools); and for which it moves a unit to make an attack (``_attack_setup``)
ATTACK = 0.5
# a unit whose loss gives the enemy VP does not end a move, advance or retreat where the enemy's next
# attack would take it with this chance or more (``_endangered``: runtime.menace)
RISK = 0.3

# option -> (lowest, highest, what it is), for a bot whose ``options`` name it
OPTIONS = {"hold": (0.0, 1.0, "how near an enemy unit must come, as a share of the side's farthest move, "
                              "before it holds a place it has held since the start (1: as soon as the enemy "
                              f"could reach it; default {HOLD})"),
           "attack": (0.0, 1.0, "the least chance that the defender loses or retreats (of a win, in a dice-pool "
                                f"game) for which it attacks (default {ATTACK})"),
           "risk": (0.0, 1.0, "the chance of being lost in the enemy's next attack (its units' reach and the "
                              "CRT's odds) from which a unit whose loss gives the enemy VP stays out of a hex "
                              f"(default {RISK})"),
           "moves": (0, 1, "1: the search weighs movement and set-up decisions as well, where attacks are declared "
                           "after movement (Smolensk); 0: it never does, where moving in attacks (Barbarossa) "
                           "either; by default only there")}
SWITCHES = {"moves"}  # options that are 0 or 1

# (an agent name, what that bot does), as the help texts show them
EXAMPLES = (
    ("search:N", "searches N iterations a decision (100 by default)"),
    ("greedy:hold=1", "holds every place of its own the enemy could reach"),
    ("greedy:attack=0.3", f"attacks where it succeeds 3 times in 10 or more (default {ATTACK})"),
    ("greedy:risk=0.5", "keeps a unit whose loss gives the enemy VP out of hexes where the enemy's next attack "
                        f"would take it half the time or more (default {RISK})"),
    ("search:4:moves=1", "searches movement as well"),
)


def examples(sep: str) -> str:
    """The examples, one ``NAME does what`` each, joined by ``sep``."""
    return sep.join(f"{name} {what}" for name, what in EXAMPLES)
