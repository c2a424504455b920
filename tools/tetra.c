/* tetra - the command-line tool: info, demo, bench, report, tune. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tetra.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: tetra <command> [options]\n"
            "\n"
            "commands:\n"
            "  info                 the CUDA device and what tetra can run on it\n"
            "  demo [options]       quantize a random weight matrix to NVFP4, run the product on\n"
            "                       the GPU (or the CPU oracle when there is none), check it\n"
            "  bench ...            the instrument: paired, A/A-calibrated benchmarks\n"
            "                       (tetra bench --help)\n"
            "  report FILE...       markdown + SVG report from bench results files\n"
            "  tune --out TABLE     time every GEMM configuration per shape, write a dispatch\n"
            "                       table, score it on held-out shapes (tetra tune --help)\n"
            "  version              print the version\n");
}

void cli_progress(int i, int n, const char *what) {
    int w = 30, fill = n ? i * w / n : w;
    if (!isatty(2)) return;
    fprintf(stderr, "\r[");
    for (int k = 0; k < w; k++) fputc(k < fill ? '=' : ' ', stderr);
    fprintf(stderr, "] %d/%d %-50.50s", i, n, what);
    if (i == n) fprintf(stderr, "\r%*s\r", w + 70, "");
    fflush(stderr);
}

long long cli_parse_count(const char *opt, const char *value) {
    char *end = NULL;
    long long v;
    if (!value || !*value) {
        fprintf(stderr, "tetra: %s needs a value\n", opt);
        return -1;
    }
    v = strtoll(value, &end, 10);
    if (*end || v < 1 || v > (1LL << 40)) {
        fprintf(stderr, "tetra: %s '%s' is not a positive integer\n", opt, value);
        return -1;
    }
    return v;
}

int main(int argc, char **argv) {
    const char *cmd;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("tetra %s\n", tetra_version());
        return 0;
    }
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "demo")) return cmd_demo(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "report")) return cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune")) return cmd_tune(argc - 1, argv + 1);
    fprintf(stderr, "tetra: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}
