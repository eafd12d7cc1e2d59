"""The rules engine: game state, legal actions, and the rules that apply them.

Its hottest modules run compiled where a fresh build of them exists
(``runtime/compiled.py``): the import hook goes in before any of them is imported.
"""
from . import compiled as _compiled

_compiled.install()
