"""Attachments: counters that sit under a unit (GJ63 2.12, 3.4, 3.5:
equipment chits under a combat unit, up to its equipment value).

The game declares attachment kinds (``attachment NAME { ... }``,
``GameDefinition.attachments``; ``AttachmentKind`` says what each property
means).  In the state an attached counter is a unit with no hex and the box
``under:HOST``; ``GameState.attached`` maps each host to the ids under it, in
the order they were attached (tuples: a state copy copies the dict, never the
lists).  Because an attached counter has no hex of its own it moves,
retreats and leaves the map with its host, and never counts for stacking,
ZOC or control.  What happens here:

* attaching and detaching with the checks (kind, host, capacity) and their
  log entries;
* the cascade when a host is eliminated: what was under it goes where its
  kind ``returns`` (its cup, a pool, eliminated, removed);
* what attachments give their host (``adds``: a factor; ``zoc``);
* a loss taken by removing an attachment instead of a step (``loss yes``),
  and what a host that lost a step can no longer carry;
* a counter that leaves its host as a unit of its own (``converts``: the
  detachment chit);
* a counter left behind when its host moves or retreats (``left-behind``:
  a face-up position).

No Qt, no Lark.
"""
from __future__ import annotations

from .definition import AttachmentKind, GameDefinition
from .state import GameState

UNDER = "under:"


def kind_of(game: GameDefinition, cid: str) -> AttachmentKind | None:
    """The attachment kind of a counter (None: it is no attachment)."""
    k = game.attachment_of.get(cid)
    return game.attachments[k] if k else None


def host_of(state: GameState, aid: str) -> str | None:
    """The unit a counter is attached to (None: it is not attached)."""
    box = state.units[aid].box
    return box[len(UNDER):] if box.startswith(UNDER) else None


def under(state: GameState, host: str) -> tuple[str, ...]:
    """The counters under a unit, in the order they were attached."""
    return state.attached.get(host, ())


def factor_of(game: GameDefinition, state: GameState, uid: str, name: str) -> int:
    """A counter's printed factor at its current step (0 when it has none)."""
    c = game.counters[uid]
    return c.steps[min(state.units[uid].step, len(c.steps) - 1)].get(name, 0)


def capacity(game: GameDefinition, state: GameState, host: str, kind: AttachmentKind) -> int | None:
    """How many counters of ``kind`` the host may carry (None: no limit):
    the first ``capacity`` row whose selector the host matches."""
    if not kind.capacity:
        return None
    mine = game.selectors_of(host) | {host}
    for sel, value in kind.capacity:
        if sel == "all" or sel in mine:
            return value if isinstance(value, int) else factor_of(game, state, host, value)
    return 0


def count_of(game: GameDefinition, state: GameState, host: str, kind: AttachmentKind) -> int:
    return sum(1 for a in under(state, host) if game.attachment_of.get(a) == kind.id)


def may_host(game: GameDefinition, state: GameState, host: str, kind: AttachmentKind) -> str:
    """Why ``host`` may not carry counters of ``kind`` at all ("" if it may)."""
    u = state.units.get(host)
    if u is None:
        return f"there is no unit {host}"
    if u.box.startswith(UNDER):
        return f"{host} is itself under {u.box[len(UNDER):]}"
    if kind.hosts:
        if not game.matches(host, kind.hosts) and host not in kind.hosts:
            return f"{host} cannot carry {kind.title.lower()}: only {', '.join(sorted(kind.hosts))} units do"
    elif host in game.attachment_of and (u.hex is None or not converts(game, host)):
        return f"{host} is {kind_title(game, host)} itself, not a unit that carries one"
    return ""


def kind_title(game: GameDefinition, cid: str) -> str:
    k = kind_of(game, cid)
    return f"an attachment ({k.title})" if k else "a unit"


def why_not_attach(game: GameDefinition, state: GameState, aid: str, host: str) -> str:
    """Why ``aid`` cannot go under ``host`` now ("" if it can): its kind, the
    host's side and kind, and the host's capacity."""
    kind = kind_of(game, aid)
    if aid not in state.units:
        return f"there is no counter {aid}"
    if kind is None:
        return f"{aid} is a unit, not an attachment: it cannot go under another unit"
    if aid == host:
        return f"{aid} cannot go under itself"
    reason = may_host(game, state, host, kind)
    if reason:
        return reason
    if state.units[host].side != state.units[aid].side:
        return f"{aid} is {state.units[aid].side}'s and {host} is {state.units[host].side}'s"
    if host_of(state, aid) == host:
        return f"{aid} is already under {host}"
    if under(state, aid):
        return f"{aid} carries {', '.join(under(state, aid))}: it cannot go under another unit"
    cap = capacity(game, state, host, kind)
    if cap is not None and count_of(game, state, host, kind) + 1 > cap:
        return f"{host} cannot carry {aid}: it already carries {count_of(game, state, host, kind)} " \
               f"({kind.title.lower()}: at most {cap})"
    return ""


CUP_SHOWN = "cup-shown:"  # state.done: a counter under its unit whose cup the other sides still see


def attach(game: GameDefinition, state: GameState, aid: str, host: str, why: str = "") -> None:
    """Put ``aid`` under ``host`` (from wherever it is: a pool, another host,
    the map).  The caller has checked ``why_not_attach``."""
    was = host_of(state, aid)
    if was is not None:
        _unlist(state, was, aid)
    else:  # from a pool or the map: face down again (GJ63 3.5(5); runtime/observe.py)
        state.done.discard(f"face-up:{aid}")
        kind = kind_of(game, aid)
        if kind is not None and kind.shown_from and state.units[aid].box[len("pool:"):] in kind.shown_from:
            state.done.add(f"{CUP_SHOWN}{aid}")  # placed from such a pool: its cup still shows (GJ63 19.6(2))
        else:
            state.done.discard(f"{CUP_SHOWN}{aid}")
        if state.units[aid].hex is not None:
            state.place(aid, None, "")
    state.set_unit(aid, box=UNDER + host)  # no hex: it is off the map, under its host
    state.attached[host] = state.attached.get(host, ()) + (aid,)
    state.version += 1  # what a host carries changes its MP and ZOC
    entry = {"turn": state.turn, "attach": aid, "to": host}
    if was is not None:
        entry["from"] = was
    if why:
        entry["for"] = why
    state.log.append(entry)


def face_up(game: GameDefinition, state: GameState, hosts, only: str = "") -> None:
    """The face-down counters under ``hosts`` turn face up (their stacks fight,
    or ``only`` that one supports a battle: GJ63 3.5(6)); they stay so until
    they go under a unit from a pool again."""
    for host in hosts:
        for aid in state.attached.get(host, ()):
            kind = kind_of(game, aid)
            if kind is not None and kind.face_down and (not only or aid == only):
                state.done.add(f"face-up:{aid}")


def _unlist(state: GameState, host: str, aid: str) -> None:
    rest = tuple(a for a in state.attached.get(host, ()) if a != aid)
    if rest:
        state.attached[host] = rest
    else:
        state.attached.pop(host, None)


def detach(game: GameDefinition, state: GameState, aid: str, box: str, why: str = "") -> None:
    """Take ``aid`` from under its host into a box (``pool:ID``,
    ``eliminated``, ``removed``)."""
    host = host_of(state, aid)
    if host is not None:
        _unlist(state, host, aid)
    if state.units[aid].hex is not None:
        state.place(aid, None, box)
    else:
        state.set_unit(aid, box=box)
    state.version += 1
    entry = {"turn": state.turn, "detach": aid, "to": box.split(":")[-1]}
    if host is not None:
        entry["from"] = host
    if why:
        entry["for"] = why
    state.log.append(entry)


def returns_box(game: GameDefinition, aid: str) -> str:
    """Where a removed attachment goes: its kind's ``returns`` (``cup``: the
    pool its counter arrives in, else removed from play)."""
    kind = kind_of(game, aid)
    to = kind.returns if kind else "removed"
    if to == "cup":
        arrives = game.counters[aid].arrives
        return arrives if arrives.startswith("pool:") else "removed"
    return to if to in ("eliminated", "removed") else f"pool:{to}"


def release(game: GameDefinition, state: GameState, host: str, why: str) -> None:
    """Everything under ``host`` goes where its kind returns it (the host was
    eliminated: GJ63 13.0(3))."""
    for aid in under(state, host):
        detach(game, state, aid, returns_box(game, aid), why)


def remove(game: GameDefinition, state: GameState, aid: str, why: str) -> None:
    """One attachment removed (a loss taken on it, an effect): where its kind returns it."""
    detach(game, state, aid, returns_box(game, aid), why)


def left_behind(game: GameDefinition, state: GameState, host: str, how: str) -> None:
    """The counters under ``host`` that its kind leaves behind once face up
    (``left-behind``) go where their kind returns them: ``host`` moved or
    retreated (``how``; GJ63 签一览 阵地: a face-up position goes back to its
    cup when its stack moves or retreats)."""
    for aid in under(state, host):
        kind = kind_of(game, aid)
        if kind is None or not kind.left_behind or not game.matches(aid, kind.left_behind):
            continue
        if not kind.face_down or f"face-up:{aid}" in state.done:
            remove(game, state, aid, f"face up, left behind as {host} {how}")


def fit(game: GameDefinition, state: GameState, host: str) -> None:
    """A host whose capacity fell (a step lost) keeps what it may carry: the
    counters attached last go where their kind returns them."""
    for kind in game.attachments.values():
        cap = capacity(game, state, host, kind)
        if cap is None:
            continue
        mine = [a for a in under(state, host) if game.attachment_of.get(a) == kind.id]
        for aid in mine[cap:][::-1]:
            remove(game, state, aid, f"{host} may carry only {cap} {kind.title.lower()}")


def bonus(game: GameDefinition, state: GameState, uid: str, name: str) -> int:
    """What the counters under ``uid`` add to its factor ``name`` (``adds``)."""
    total = 0
    for aid in state.attached.get(uid, ()):
        kind = kind_of(game, aid)
        for target, value in kind.adds:
            if target == name:
                total += value if isinstance(value, int) else factor_of(game, state, aid, value)
    return total


def gives_zoc(game: GameDefinition, state: GameState, uid: str) -> bool:
    """Whether something under ``uid`` gives it a zone of control (``zoc yes``)."""
    return any(kind_of(game, a).zoc for a in state.attached.get(uid, ()))


def loss_options(game: GameDefinition, state: GameState, units) -> list[str]:
    """The attachments under ``units`` whose kind lets a step loss be taken on
    them instead of a step (GJ63 13.0(2)3), in order."""
    out = []
    for uid in units:
        for aid in state.attached.get(uid, ()):
            k = kind_of(game, aid)
            if k is not None and k.loss:
                out.append(aid)
    return out


def convert(game: GameDefinition, state: GameState, aid: str) -> None:
    """``aid`` leaves its host as a unit of its own, in the host's hex (it
    moves on from there: GJ63's detachment)."""
    host = host_of(state, aid)
    h = state.units[host].hex
    _unlist(state, host, aid)
    state.place(aid, h)
    state.log.append({"turn": state.turn, "convert": aid, "from": host})


def converts(game: GameDefinition, aid: str) -> bool:
    """Whether the counter may leave its host as a unit (``converts``)."""
    kind = kind_of(game, aid)
    return kind is not None and bool(kind.converts) and (aid in kind.converts or game.matches(aid, kind.converts))
