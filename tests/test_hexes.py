"""Tests for runtime.hexes: axial geometry, printed numbering and pixels."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.hexes import (
    DIRECTIONS,
    Grid,
    Hex,
    HexIdError,
    Hexside,
    any_within,
    count_within,
    hex_distance,
    hex_line,
    hex_round,
    hexside,
    nearest,
)

coords = st.integers(min_value=-1000, max_value=1000)
hexes = st.builds(Hex, coords, coords)
orientations = st.sampled_from(["flat", "pointy"])
parities = st.sampled_from(["odd", "even"])
grids = st.builds(
    Grid,
    orientation=orientations,
    shifted=parities,
    first_col=st.integers(0, 60),
    first_row=st.integers(0, 60),
    cols=st.integers(1, 40),
    rows=st.integers(1, 40),
)


def ids(grid, hs):
    return sorted(grid.format_id(h) for h in hs)


# -- axial geometry -----------------------------------------------------------


def test_directions_are_six_unit_steps_and_opposites():
    assert len(DIRECTIONS) == 6
    assert len(set(DIRECTIONS)) == 6
    origin = Hex(0, 0)
    for d, (dq, dr) in enumerate(DIRECTIONS):
        assert hex_distance(origin, Hex(dq, dr)) == 1
        assert DIRECTIONS[(d + 3) % 6] == (-dq, -dr)


@given(hexes)
def test_neighbours_are_at_distance_one_and_match_directions(h):
    ns = h.neighbours()
    assert len(ns) == 6 and len(set(ns)) == 6
    for d, n in enumerate(ns):
        assert h.distance(n) == 1
        assert h.neighbour(d) == n
        assert h.direction_to(n) == d
        assert n.direction_to(h) == (d + 3) % 6
    assert h.direction_to(h) is None
    assert h.direction_to(Hex(h.q + 2, h.r)) is None


@given(hexes, hexes, hexes)
def test_distance_is_a_metric(a, b, c):
    assert a.distance(b) == b.distance(a) >= 0
    assert (a.distance(b) == 0) == (a == b)
    assert a.distance(c) <= a.distance(b) + b.distance(c)


def test_distance_examples():
    assert hex_distance(Hex(0, 0), Hex(3, -3)) == 3
    assert hex_distance(Hex(0, 0), Hex(2, 1)) == 3
    assert hex_distance(Hex(1, 1), Hex(1, 1)) == 0


@given(hexes, st.integers(0, 6))
def test_within_and_ring(h, n):
    area = h.within(n)
    assert len(area) == 1 + 3 * n * (n + 1)
    assert len(set(area)) == len(area)
    assert all(h.distance(x) <= n for x in area)
    assert h in area
    ring = h.ring(n)
    assert len(ring) == (6 * n if n else 1)
    assert len(set(ring)) == len(ring)
    assert all(h.distance(x) == n for x in ring)
    # consecutive ring hexes are adjacent (it is a closed walk)
    if n:
        assert all(ring[i].distance(ring[(i + 1) % len(ring)]) == 1 for i in range(len(ring)))
    assert h.within(-1) == [] and h.ring(-1) == []


@given(hexes, hexes)
@settings(max_examples=200)
def test_hex_line_is_connected_and_inclusive(a, b):
    line = hex_line(a, b)
    assert line[0] == a and line[-1] == b
    assert len(line) == a.distance(b) + 1
    assert all(line[i].distance(line[i + 1]) == 1 for i in range(len(line) - 1))


def test_hex_round():
    assert hex_round(0.1, -0.1) == Hex(0, 0)
    assert hex_round(2.9, -1.1) == Hex(3, -1)
    assert hex_round(0.4, 0.4) == Hex(0, 1) or hex_round(0.4, 0.4) == Hex(1, 0)
    assert hex_round(-0.6, 0.0) == Hex(-1, 0)


def test_hex_is_ordered_hashable_and_frozen():
    assert Hex(0, 5) < Hex(1, 0) < Hex(1, 2)
    assert len({Hex(1, 2), Hex(1, 2)}) == 1
    with pytest.raises(AttributeError):
        Hex(1, 2).q = 3  # type: ignore[misc]


@given(hexes, st.lists(st.builds(Hex, st.integers(-20, 20), st.integers(-20, 20)), max_size=12),
       st.integers(0, 30))
def test_the_written_out_distances_agree_with_hex_distance(h, others, n):
    """nearest, any_within and count_within (hex_distance written out over
    many hexes, for the bots) give what hex_distance says hex by hex."""
    h = Hex(h.q % 41 - 20, h.r % 41 - 20)
    near = [hex_distance(h, t) for t in others]
    assert nearest(h, others, default=99) == min(near, default=99)
    assert nearest(h, others) == min(near, default=0)
    assert any_within(h, others, n) == any(d <= n for d in near)
    assert count_within(h, others, n) == sum(1 for d in near if d <= n)


# -- hexsides -----------------------------------------------------------------


@given(hexes, st.integers(0, 5))
def test_hexside_is_canonical(h, d):
    n = h.neighbour(d)
    side = hexside(h, n)
    assert side == hexside(n, h)
    assert hash(side) == hash(hexside(n, h))
    assert side.a < side.b
    assert {side.a, side.b} == {h, n}
    assert side.other(h) == n and side.other(n) == h
    assert Hexside(n, h) == side


def test_hexside_rejects_non_adjacent_hexes():
    with pytest.raises(ValueError, match="not adjacent"):
        hexside(Hex(0, 0), Hex(2, 0))
    with pytest.raises(ValueError):
        hexside(Hex(0, 0), Hex(0, 0))


# -- printed numbering ----------------------------------------------------------


def test_flat_even_adjacency_matches_printed_map():
    grid = Grid(orientation="flat", shifted="even")
    h = grid.parse_id("0202")  # column 2 is even, so it sits half a hex lower
    assert ids(grid, h.neighbours()) == ["0102", "0103", "0201", "0203", "0302", "0303"]
    h = grid.parse_id("0303")  # odd column, not shifted
    assert ids(grid, h.neighbours()) == ["0202", "0203", "0302", "0304", "0402", "0403"]


def test_flat_odd_adjacency_matches_printed_map():
    grid = Grid(orientation="flat", shifted="odd")
    h = grid.parse_id("0202")  # even column, not shifted; odd columns sit lower
    assert ids(grid, h.neighbours()) == ["0101", "0102", "0201", "0203", "0301", "0302"]
    h = grid.parse_id("0303")  # odd column, shifted down
    assert ids(grid, h.neighbours()) == ["0203", "0204", "0302", "0304", "0403", "0404"]


def test_flat_directions_point_the_printed_way():
    grid = Grid(orientation="flat", shifted="even")
    h = grid.parse_id("0505")
    assert grid.format_id(h.neighbour(0)) == "0504"  # north: row - 1
    assert grid.format_id(h.neighbour(3)) == "0506"  # south: row + 1


def test_pointy_adjacency_matches_printed_map():
    even = Grid(orientation="pointy", shifted="even")
    h = even.parse_id("0202")  # row 2 is even, so it sits half a hex right
    assert ids(even, h.neighbours()) == ["0102", "0201", "0203", "0301", "0302", "0303"]
    odd = Grid(orientation="pointy", shifted="odd")
    h = odd.parse_id("0202")  # row 2 not shifted; rows 1 and 3 sit right
    assert ids(odd, h.neighbours()) == ["0101", "0102", "0103", "0201", "0203", "0302"]


@given(grids, st.data())
def test_to_colrow_inverts_to_hex(grid, data):
    col = data.draw(st.integers(grid.first_col, grid.first_col + grid.cols - 1))
    row = data.draw(st.integers(grid.first_row, grid.first_row + grid.rows - 1))
    h = grid.to_hex(col, row)
    assert grid.to_colrow(h) == (col, row)
    assert grid.contains(h)


@given(orientations, parities, st.integers(-500, 500), st.integers(-500, 500))
def test_to_colrow_inverts_to_hex_everywhere(orientation, shifted, col, row):
    grid = Grid(orientation=orientation, shifted=shifted)
    assert grid.to_colrow(grid.to_hex(col, row)) == (col, row)


@given(orientations, parities, hexes)
def test_to_hex_inverts_to_colrow(orientation, shifted, h):
    grid = Grid(orientation=orientation, shifted=shifted)
    assert grid.to_hex(*grid.to_colrow(h)) == h


def test_parse_and_format_keep_leading_zeros():
    grid = Grid(cols=60, rows=40)
    h = grid.parse_id("0927")
    assert grid.to_colrow(h) == (9, 27)
    assert grid.format_id(h) == "0927"
    assert grid.format_id(grid.to_hex(1, 1)) == "0101"


def test_format_uses_more_digits_when_needed():
    grid = Grid()
    assert grid.format_id(grid.to_hex(123, 4)) == "12304"
    assert grid.format_id(grid.to_hex(5, 100)) == "05100"


def test_other_digit_counts():
    grid = Grid(col_digits=3, row_digits=2)
    assert grid.format_id(grid.to_hex(12, 7)) == "01207"
    assert grid.to_colrow(grid.parse_id("01207")) == (12, 7)
    with pytest.raises(HexIdError, match=r'"0927" is not a hex ID: expected 5 digits \(CCCRR\)'):
        grid.parse_id("0927")


@given(grids, st.data())
def test_parse_format_round_trip(grid, data):
    h = data.draw(st.sampled_from(grid.all_hexes()))
    text = grid.format_id(h)
    assert len(text) >= grid.col_digits + grid.row_digits
    if len(text) == 4:
        assert grid.parse_id(text) == h


@pytest.mark.parametrize("bad", ["12345", "927", "", "09a7", "09 7", "-927", "０９２７", " 0927"])
def test_parse_id_rejects_bad_text(bad):
    grid = Grid()
    with pytest.raises(HexIdError) as info:
        grid.parse_id(bad)
    assert str(info.value) == f'"{bad}" is not a hex ID: expected 4 digits (CCRR)'
    assert isinstance(info.value, ValueError)


def test_parse_id_error_message_example():
    with pytest.raises(HexIdError, match=r'^"12345" is not a hex ID: expected 4 digits \(CCRR\)$'):
        Grid().parse_id("12345")


def test_format_id_rejects_negative_numbers():
    grid = Grid()
    with pytest.raises(HexIdError, match="no printed ID"):
        grid.format_id(grid.to_hex(-1, 3))


def test_contains_and_all_hexes():
    grid = Grid(first_col=1, first_row=1, cols=3, rows=2)
    assert ids(grid, grid.all_hexes()) == ["0101", "0102", "0201", "0202", "0301", "0302"]
    assert [grid.format_id(h) for h in grid.all_hexes()] == ["0101", "0102", "0201", "0202", "0301", "0302"]
    assert grid.contains(grid.parse_id("0302"))
    assert not grid.contains(grid.parse_id("0303"))
    assert not grid.contains(grid.parse_id("0401"))
    assert not grid.contains(grid.parse_id("0001"))
    assert not grid.contains(grid.parse_id("0100"))


@given(grids)
@settings(max_examples=30)
def test_all_hexes_are_distinct_and_contained(grid):
    everything = grid.all_hexes()
    inside = set(everything)
    assert len(everything) == grid.cols * grid.rows == len(inside)
    assert all(grid.contains(h) for h in everything)
    assert not any(grid.contains(n) for h in everything for n in h.neighbours() if n not in inside)


def test_id_range_in_a_column():
    grid = Grid(cols=60, rows=40)
    hs = grid.id_range("5503", "5513")
    assert len(hs) == 11
    assert [grid.format_id(h) for h in hs] == [f"55{r:02d}" for r in range(3, 14)]
    assert all(grid.to_colrow(h)[0] == 55 for h in hs)


def test_id_range_in_a_row_and_reversed():
    grid = Grid(cols=60, rows=40)
    assert [grid.format_id(h) for h in grid.id_range("0307", "0607")] == ["0307", "0407", "0507", "0607"]
    assert [grid.format_id(h) for h in grid.id_range("0607", "0307")] == ["0607", "0507", "0407", "0307"]
    assert grid.id_range("0307", "0307") == [grid.parse_id("0307")]


def test_id_range_errors():
    grid = Grid()
    with pytest.raises(HexIdError, match=r'"0101-0202" is not a hex range: both ends must be in the same column or the same row'):
        grid.id_range("0101", "0202")
    with pytest.raises(HexIdError, match=r'"55031" is not a hex ID'):
        grid.id_range("55031", "5513")


def test_grid_validates_its_fields():
    with pytest.raises(ValueError, match="orientation"):
        Grid(orientation="square")
    with pytest.raises(ValueError, match="shifted"):
        Grid(shifted="both")
    with pytest.raises(ValueError):
        Grid(cols=0)


# -- pixels ---------------------------------------------------------------------


@given(orientations, parities, hexes, st.sampled_from([1.0, 10.0, 37.5]))
def test_pixel_round_trip(orientation, shifted, h, size):
    grid = Grid(orientation=orientation, shifted=shifted)
    x, y = grid.hex_to_pixel(h, size)
    assert grid.pixel_to_hex(x, y, size) == h


@given(grids, st.data(), st.floats(0.0, 0.85), st.floats(0.0, 2 * math.pi))
def test_points_inside_a_hex_map_back_to_it(grid, data, fraction, angle):
    h = data.draw(st.sampled_from(grid.all_hexes()))
    size = 20.0
    x, y = grid.hex_to_pixel(h, size)
    # inner radius of a hexagon is size * sqrt(3) / 2 ~ 0.866 * size
    px, py = x + fraction * size * math.cos(angle), y + fraction * size * math.sin(angle)
    assert grid.pixel_to_hex(px, py, size) == h


def test_flat_pixels_grow_with_column_and_row():
    grid = Grid(orientation="flat", shifted="even")
    x1, y1 = grid.hex_to_pixel(grid.parse_id("0305"), 10)
    x2, y2 = grid.hex_to_pixel(grid.parse_id("0405"), 10)
    x3, y3 = grid.hex_to_pixel(grid.parse_id("0306"), 10)
    assert x2 > x1 and y2 > y1  # column 4 is even, so shifted down
    assert x3 == pytest.approx(x1) and y3 > y1
    assert y3 - y1 == pytest.approx(10 * math.sqrt(3))


def test_pointy_pixels_grow_with_column_and_row():
    grid = Grid(orientation="pointy", shifted="odd")
    x1, y1 = grid.hex_to_pixel(grid.parse_id("0202"), 10)
    x2, y2 = grid.hex_to_pixel(grid.parse_id("0302"), 10)
    x3, y3 = grid.hex_to_pixel(grid.parse_id("0203"), 10)
    assert x2 > x1 and y2 == pytest.approx(y1)
    assert y3 > y1 and x3 > x1  # row 3 is odd, so shifted right


@given(grids)
@settings(max_examples=40)
def test_map_bounding_box_starts_at_origin(grid):
    size = 10.0
    points = [p for h in grid.all_hexes() for p in grid.corners(h, size)]
    assert min(x for x, _ in points) == pytest.approx(0.0, abs=1e-9)
    assert min(y for _, y in points) == pytest.approx(0.0, abs=1e-9)


def test_corners_are_at_size_from_centre():
    for orientation in ("flat", "pointy"):
        grid = Grid(orientation=orientation)
        h = grid.parse_id("0404")
        cx, cy = grid.hex_to_pixel(h, 12.0)
        corners = grid.corners(h, 12.0)
        assert len(corners) == 6
        for x, y in corners:
            assert math.hypot(x - cx, y - cy) == pytest.approx(12.0)
    flat = Grid(orientation="flat")
    cx, cy = flat.hex_to_pixel(Hex(0, 0), 1.0)
    assert flat.corners(Hex(0, 0), 1.0)[0] == pytest.approx((cx + 1.0, cy))  # flat: corner at east


def _same_point(p, q):
    return math.isclose(p[0], q[0], abs_tol=1e-6) and math.isclose(p[1], q[1], abs_tol=1e-6)


@given(orientations, parities, st.builds(Hex, st.integers(-50, 50), st.integers(-50, 50)), st.integers(0, 5))
def test_edge_corners_are_shared_with_the_neighbour(orientation, shifted, h, d):
    grid = Grid(orientation=orientation, shifted=shifted)
    size = 10.0
    p, q = grid.edge_corners(h, d, size)
    n = h.neighbour(d)
    n_corners = grid.corners(n, size)
    assert any(_same_point(p, c) for c in n_corners)
    assert any(_same_point(q, c) for c in n_corners)
    back = grid.edge_corners(n, (d + 3) % 6, size)
    assert {tuple(round(v, 6) for v in pt) for pt in back} == {tuple(round(v, 6) for v in pt) for pt in (p, q)}
    # the edge midpoint lies halfway between the two centres
    (hx, hy), (nx, ny) = grid.hex_to_pixel(h, size), grid.hex_to_pixel(n, size)
    assert _same_point(((p[0] + q[0]) / 2, (p[1] + q[1]) / 2), ((hx + nx) / 2, (hy + ny) / 2))
