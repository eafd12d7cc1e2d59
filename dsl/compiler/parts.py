"""What the compiler's passes (the mixins of ``dsl.compiler.core._Compiler``:
tables, counters, sequence, mechanisms, scenarios, attachments, fire, audit,
dice pools) read of the compiler they make up: the attributes its
``__init__`` and ``run`` set and the methods one pass calls of another,
declared once so that a type checker follows them.  Declarations only:
nothing here runs, and ``_Compiler`` defines all of it."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runtime import definition as D

    from ..ast import Arg, Statement
    from ..checker import Body, Ctx
    from ..effects import EffectCompiler
    from ..loader import Loader


class CompilerParts:
    """The base of the compiler's passes (see the module)."""

    ctx: Ctx
    loader: Loader
    map_failed: bool
    phase_areas: list[Arg]
    reinforce_formations: list[Arg]
    hold_fire: list[Statement]
    pool_kinds: dict[str, str]
    fx: EffectCompiler
    classes_seen: dict[str, D.UnitClass]
    class_flags: dict[str, frozenset[str]]
    attachment_kinds: dict[str, D.AttachmentKind]
    attachment_of: dict[str, str]

    if TYPE_CHECKING:  # defined by one pass or the compiler, called by another
        def all(self, kw: str) -> list[Statement]: ...

        def one(self, kw: str) -> Statement | None: ...

        def choice(self, a: Arg | None, options: tuple[str, ...], what: str) -> str | None: ...

        def dice(self) -> dict[str, D.Die]: ...

        def _dice(self) -> dict[str, D.Die]: ...

        def selectors(self, args, classes, markers: frozenset[str] = frozenset()) -> frozenset[str]: ...

        def terrain_set(self, args, kinds=("terrain", "feature", "hexside", "link")) -> frozenset[str]: ...

        def yes(self, b: Body, kw: str, default: bool) -> bool: ...

        @staticmethod
        def class_flags_of(classes, c: D.Counter) -> frozenset[str]: ...
