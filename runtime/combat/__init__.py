"""Combat families: ``odds`` (odds and differential CRTs: strengths, shifts,
columns, results) and ``firepower`` (battles without a CRT, Barbarossa).
Import from the module that holds a name: ``runtime.combat.odds``,
``runtime.combat.firepower``."""
