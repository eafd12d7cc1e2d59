"""compile_game(): game folder → validated, immutable GameDefinition.

The compiler is split by block: ``core`` (loading, declaring names, the run
that assembles the GameDefinition, game info, sides, classes), ``tables``
(TEC, CRTs, die tables, modifiers), ``counters`` (counters, chits, turn
track), ``sequence`` (phases, victory), ``mechanisms`` (the rules blocks) and
``scenarios`` (arrivals, battle options, variants, setups).
"""
from .core import check_game, compile_game
from .counters import UNRUN_CHIT_KINDS

__all__ = ["UNRUN_CHIT_KINDS", "check_game", "compile_game"]
