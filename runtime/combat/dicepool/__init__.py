"""Dice-pool battles (GJ63 Prokhorovka 11.0): no CRT.  Each side rolls one
die per point of fire of each weapon type against the hit number the terrain
gives (``hits``), tank weapons fight paired duels in firing rounds, and the
damage track decides winner and loser (``battle``).  ``odds`` gives the
exact probability of each damage total and of winning before the dice.

Import from the module that holds a name: ``runtime.combat.dicepool.hits``,
``runtime.combat.dicepool.battle``, ``runtime.combat.dicepool.odds``."""
