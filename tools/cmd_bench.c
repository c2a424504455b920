/* cmd_bench.c - placeholder until the instrument (src/bench) lands: says so, exits 2. */
#include <stdio.h>

#include "cli.h"

int cmd_bench(int argc, char **argv) {
    (void)argc; (void)argv;
    fprintf(stderr, "tetra bench: the instrument is not built yet (issue 3)\n");
    return 2;
}

int cmd_report(int argc, char **argv) {
    (void)argc; (void)argv;
    fprintf(stderr, "tetra report: not built yet (issue 3)\n");
    return 2;
}
