"""Puzzle data, geometry and file formats: what a puzzle *is*, with no algorithm beyond
checking it and no display.

Here: polycube pieces and targets, their rotations and reflections, the loaders and writers
of every format (format 1 TOML, BurrTools `.xmpuzzle`, yass `.soma`, dice, domino, KenKen and
the game IDs), meshes and STL, atomic writing, and the evented documents behind Play and Design
(with their one undo history). May import numpy and psygnal; never Qt, VTK, `tessera.solvers`,
`tessera.viewer` or `tessera.cli` (import-linter checks it).
"""
