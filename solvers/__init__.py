"""The algorithms: searches, counts, symmetry, movement and disassembly, one registry of
families.

Here: the one exact-cover engine (`exact_cover`, compiled in `_cells_kernel`) and its compile
notices (`kernels`, `warmup`), the search protocol every family follows (`search_control`),
the family registry (`registry`), the dice, domino and KenKen searches and generators, and the
polycube engine in `solvers.polycube`. May import `tessera.models`, numpy, numba and networkx
(dask only inside the cluster count); never Qt, VTK, `tessera.viewer` or `tessera.cli`.
"""
