"""Colour constraints, as BurrTools has them: which piece voxel colours may fill which target
voxel colours.

Colour 0 is the default colour, which the solver ignores: a default piece voxel fits any
target voxel and a default target voxel takes any piece voxel. Custom colours are numbered from
1; a custom piece voxel may go into a custom target voxel only when the pair (piece colour,
target colour) is allowed. Colours are part of a piece's identity, so they also narrow the
symmetries of a target (a half-red, half-black result has fewer than its shape).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ColourRules:
    """The allowed (piece colour, target colour) pairs and the custom colours' display
    colours (`palette[k - 1]` draws colour k)."""

    allow: frozenset[tuple[int, int]] = frozenset()
    palette: tuple[str, ...] = ()

    @property
    def n_colours(self) -> int:
        most = max((max(pair) for pair in self.allow), default=0)
        return max(most, len(self.palette))

    def fits(self, n_colours: int) -> np.ndarray:
        """`fits[p, t]`: a piece voxel of colour p may fill a target voxel of colour t."""
        n = max(n_colours, self.n_colours) + 1
        table = np.zeros((n, n), bool)
        table[0, :] = True
        table[:, 0] = True
        for p, t in self.allow:
            table[p, t] = True
        return table


def voxel_colours_fit(
    rules: ColourRules | None,
    piece_colours: np.ndarray,
    target_colours: np.ndarray,
) -> np.ndarray:
    """Per placement, whether every voxel's colour may go where it lands: `piece_colours`
    (..., size) against `target_colours` (..., size), the colours of the target cells under
    each voxel."""
    n = int(max(piece_colours.max(initial=0), target_colours.max(initial=0)))
    table = (rules or ColourRules()).fits(n)
    return table[piece_colours, target_colours].all(axis=-1)
