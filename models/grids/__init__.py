"""BurrTools' five grids behind one interface (`Grid`): cubes, triangular prisms, spheres,
rhombic dodecahedra and tetrahedra-octahedra.

A puzzle names its grid once (`PolycubePuzzle.grid`); shapes, placements, symmetry, movement,
scenes and STL ask the grid and never test which one it is.
"""

from __future__ import annotations

from tessera.models.errors import PuzzleError
from tessera.models.grids.base import Grid
from tessera.models.grids.cubes import Cubes
from tessera.models.grids.prisms import Prisms
from tessera.models.grids.rhombic import Rhombic
from tessera.models.grids.spheres import Spheres
from tessera.models.grids.tetra_octa import TetraOcta

CUBES = Cubes()
PRISMS = Prisms()
SPHERES = Spheres()
RHOMBIC = Rhombic()
TETRA_OCTA = TetraOcta()

#: every grid, in BurrTools' gridType order
GRIDS: tuple[Grid, ...] = (CUBES, PRISMS, SPHERES, RHOMBIC, TETRA_OCTA)
_BY_NAME = {g.name: g for g in GRIDS}


def grid_named(name: str) -> Grid:
    """The grid a file names (`grid = "spheres"`); KeyError lists the names."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown grid {name!r}: one of {', '.join(_BY_NAME)}") from None


def grid_for_burrtools(kind: int) -> Grid:
    """The grid of BurrTools' `<gridType type=kind>`."""
    if not 0 <= kind < len(GRIDS):
        raise PuzzleError(f"grid type {kind} is not one of BurrTools' 0-4")
    return GRIDS[kind]


__all__ = ["CUBES", "GRIDS", "PRISMS", "RHOMBIC", "SPHERES", "TETRA_OCTA", "Grid", "grid_named",
           "grid_for_burrtools"]  # fmt: skip
