"""The static board: a networkx graph of the hexes in play, built once per
game.  Edges carry the hexside between two hexes (river, major river...),
the links that run across it (road, rail) and whether it is bridged.

Nothing here changes during play; units, ZOC and control are dynamic and
are applied by the searches (movement, supply, retreat) through weight
functions or search state, never by editing or viewing the graph.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import networkx as nx

from .definition import GameDefinition, MapDef, TerrainEffect
from .hexes import Hex, Hexside


@dataclass(frozen=True, slots=True)
class Edge:
    """What lies between two adjacent hexes in play."""

    hexside: frozenset[str]  # hexside terrain (river, major-river, strait...)
    links: frozenset[str]  # links running across it (road, rail...)
    bridged: bool  # a bridging link crosses it: hexside effects are negated

    def has(self, feature: str) -> bool:
        return feature in self.hexside

    def crosses(self, feature: str) -> bool:
        """True when moving across means crossing ``feature`` unbridged."""
        return feature in self.hexside and not self.bridged


NO_EDGE = Edge(frozenset(), frozenset(), False)


class Board:
    def __init__(self, game: GameDefinition):
        if game.map is None:
            raise ValueError(f"{game.info.id} has no map")
        self.game = game
        self.map: MapDef = game.map
        self.grid = self.map.grid
        chart = game.chart
        links_by_side: dict[Hexside, set[str]] = {}
        for kind, sides in self.map.links.items():
            for s in sides:
                links_by_side.setdefault(s, set()).add(kind)
        city_links = chart.adjacent_cities_linked
        hexes = self.map.hexes
        is_city = {h for h, mh in hexes.items() if "city" in mh.features} if city_links else set()
        plain = Edge(frozenset(), frozenset(), False)
        edges = []
        adj: dict[Hex, list[tuple[Hex, Edge]]] = {h: [] for h in hexes}
        for h in hexes:
            for n in h.neighbours():
                if n not in hexes or n < h:
                    continue
                side = Hexside(h, n)
                links = links_by_side.get(side)
                feats = self.map.hexsides.get(side)
                if h in is_city and n in is_city:
                    links = set(links or ()) | set(city_links)
                if not links and not feats:
                    e = plain
                else:
                    bridged = bool(feats) and bool(set(links or ()) & chart.bridging_links)
                    e = Edge(frozenset(feats or ()), frozenset(links or ()), bridged)
                edges.append((h, n, {"edge": e}))
                adj[h].append((n, e))
                adj[n].append((h, e))
        g = nx.Graph()
        g.add_nodes_from(hexes)
        g.add_edges_from(edges)
        self.graph = g
        # Plain dict adjacency for the hot loops: hex -> ((neighbour, Edge), ...)
        self.adj: dict[Hex, tuple[tuple[Hex, Edge], ...]] = {h: tuple(v) for h, v in adj.items()}
        self._ids: dict[Hex, str] = {}  # printed ids, formatted once (legal actions name thousands)
        self._parsed: dict[str, Hex] = {}  # printed ids read back (every move action names its hex)

    # ---------------------------------------------------------------- lookup
    def __contains__(self, h: Hex) -> bool:
        return h in self.map.hexes

    def edge(self, a: Hex, b: Hex) -> Edge:
        d = self.graph.get_edge_data(a, b)
        return d["edge"] if d else NO_EDGE

    def terrain(self, h: Hex) -> str:
        return self.map.hexes[h].terrain

    def features(self, h: Hex) -> tuple[str, ...]:
        return self.map.hexes[h].features

    def label(self, h: Hex) -> str:
        name = self.map.hexes[h].name if h in self.map.hexes else ""
        hid = self.grid.format_id(h)
        return f"{hid} ({name})" if name else hid

    def hex_id(self, h: Hex) -> str:
        hid = self._ids.get(h)
        if hid is None:
            hid = self.grid.format_id(h)
            self._ids[h] = hid
        return hid

    def hex_ids(self, hexes) -> list[str]:
        """The printed ids of ``hexes``, in order: ``hex_id`` of each, read
        from the ids formatted so far without a call each (a list of
        placements names hundreds of entry hexes)."""
        ids, hex_id = self._ids, self.hex_id
        return [ids.get(h) or hex_id(h) for h in hexes]

    def parse(self, text: str) -> Hex:
        h = self._parsed.get(text)
        if h is None:
            h = self.grid.parse_id(text)  # (raises on a text that is no hex id: nothing kept)
            if len(self._parsed) < 100_000:
                self._parsed[text] = h
        return h

    def effects(self, h: Hex) -> list[TerrainEffect]:
        """The chart rows that apply in a hex: its terrain, then features."""
        chart = self.game.chart.effects
        out = []
        mh = self.map.hexes[h]
        if mh.terrain in chart:
            out.append(chart[mh.terrain])
        out.extend(chart[f] for f in mh.features if f in chart)
        return out

    def in_map_order(self, hexes: frozenset[Hex]) -> tuple[Hex, ...]:
        """A fixed set of hexes (an area) sorted by printed (column, row), kept."""
        kept = self._ordered.get(hexes)
        if kept is None:
            kept = self._ordered[hexes] = tuple(sorted(hexes, key=self.colrow.__getitem__))
        return kept

    @cached_property
    def _ordered(self) -> dict[frozenset[Hex], tuple[Hex, ...]]:
        return {}

    @cached_property
    def colrow(self) -> "dict[Hex, tuple[int, int]]":
        """Hex -> its printed (column, row), as ``grid.to_colrow``: a dict, so
        that sorting hexes in map order (``key=board.colrow.__getitem__``)
        calls no Python function per hex.  A hex off the map is converted
        when first asked for."""
        return _ColRow(self.grid, {h: self.grid.to_colrow(h) for h in self.map.hexes})

    @cached_property
    def edge_hexes(self) -> dict[str, frozenset[Hex]]:
        """Hexes in play on each map edge (west: the first in-play hex of each
        row, and so on), for supply traced to a map edge."""
        rows: dict[int, list[tuple[int, Hex]]] = {}
        cols: dict[int, list[tuple[int, Hex]]] = {}
        for h in self.map.hexes:
            c, r = self.grid.to_colrow(h)
            rows.setdefault(r, []).append((c, h))
            cols.setdefault(c, []).append((r, h))
        out = {
            "west": frozenset(min(v)[1] for v in rows.values()),
            "east": frozenset(max(v)[1] for v in rows.values()),
            "north": frozenset(min(v)[1] for v in cols.values()),
            "south": frozenset(max(v)[1] for v in cols.values()),
        }
        return out

    def supply_sources(self, side: str) -> frozenset[Hex]:
        """Printed source hexes plus the map edges the side traces to."""
        hexes = set(self.map.supply.get(side, ()))
        edges = self.map.supply_edges.get(side) or self.game.sides[side].supply_edges
        for e in edges:
            hexes |= self.edge_hexes[e]
        return frozenset(hexes)


class _ColRow(dict):
    """``Board.colrow``: (column, row) of the hexes in play, and of any other
    hex on first lookup."""

    def __init__(self, grid, known: dict):
        super().__init__(known)
        self.grid = grid

    def __missing__(self, h: Hex) -> tuple[int, int]:
        out = self[h] = self.grid.to_colrow(h)
        return out
