/* cli.h - the tetra CLI's subcommands. Each returns the process exit code:
 * 0 success, 1 a failure of the work (a check failed, a CUDA error), 2 a usage error. */
#ifndef TETRA_CLI_H
#define TETRA_CLI_H

int cmd_info(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);  /* tools/cmd_bench.c: bench, bench ceilings, calibrate */
int cmd_report(int argc, char **argv); /* tools/cmd_bench.c */
int cmd_tune(int argc, char **argv);   /* tools/cmd_tune.c: dispatch tables */

/* Parse a positive integer option value; prints a message naming `opt` and returns -1
 * on error. */
long long cli_parse_count(const char *opt, const char *value);
/* A progress bar on stderr when it is a terminal (nothing otherwise); i == n clears it. */
void cli_progress(int i, int n, const char *what);

#endif
