/* empty.c - keeps the tetra_bench library non-empty before the instrument lands. */
typedef int tetra_bench_empty_unit;
