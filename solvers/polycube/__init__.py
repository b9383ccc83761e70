"""The polycube engine: packings, their symmetry classes, and how pieces move.

Everything here works on `tessera.models.polycube` puzzles and runs on the shared exact-cover
engine one level up (`solvers.exact_cover`, compiled in `solvers._cells_kernel`):

- `packing`: the placement table and the exact-cover problem of a puzzle; its solutions;
- `symmetry`: one search per symmetry class, and the class counts;
- `plan`, `hint`, `identify`: assembly order, the next move from a partial build, which
  distinct solution an assembly is;
- `movement`, `disassemble`, `interlocking`: which groups can slide, BurrTools-style
  disassembly, and the assemblies that come apart;
- `batch`, `distributed`, `design_analysis`: many figures in one process, counts on a Dask
  cluster, and the editor's live analysis.

It may import numpy, numba, networkx and `tessera.models`; never Qt or VTK (import-linter).
"""
