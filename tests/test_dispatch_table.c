/* test_dispatch_table.c - GEMM dispatch tables: parsing (errors name the line), nearest and
 * exact lookup, weight layouts, and every table compiled into tetra parses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/dispatch_table.h"
#include "testutil.h"

extern const char *const tetra_dispatch_builtin_texts[];

static const char *k_table =
    "# a comment line\n"
    "tetra-dispatch-table 1\n"
    "device NVIDIA H200   # trailing comment\n"
    "sm 90\n"
    "driver 580.159.04\n"
    "commit abc\n"
    "tuned-on seed000,decode\n"
    "\n"
    "entry bf16 1 4096 4096 gemv 0 0 9.5\n"
    "entry bf16 64 14336 4096 wgmma 64 2 41.3\n"
    "entry bf16 4096 4096 4096 wgmma 128 1\n"
    "entry nvfp4 4096 4096 4096 mma_sync 128 1 700\n";

/* an exact table: entries serve their own shape, kind and layout only */
static const char *k_exact =
    "tetra-dispatch-table 1\n"
    "device NVIDIA H200\n"
    "match exact\n"
    "entry bf16 128 6144 2048 wgmma_t 128 3 20.5\n"
    "entry bf16:frag 128 6144 2048 wgmma_t 64 2 18.0\n"
    "entry nvfp4:frag 12 3072 3072 gemv 0 4\n";

static void expect_error(const char *text, const char *needle) {
    tetra_dispatch_table t;
    char err[256] = "";
    int rc = tetra_dispatch_parse(text, &t, err, sizeof err);
    CHECK_MSG(rc == -1, "accepted a bad table (%s)", needle);
    CHECK_MSG(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
    CHECK(t.e == NULL && t.n == 0);
}

int main(void) {
    tetra_dispatch_table t;
    char err[256] = "";
    const tetra_dispatch_entry *e;

    CHECK_MSG(tetra_dispatch_parse(k_table, &t, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(t.device, "NVIDIA H200"));
    CHECK(t.sm == 90);
    CHECK(t.n == 4);
    CHECK(t.e[1].path == TETRA_PATH_WGMMA && t.e[1].tile_m == 64 && t.e[1].splits == 2);
    CHECK(fabs(t.e[1].us - 41.3) < 1e-12);
    CHECK(isnan(t.e[2].us));
    CHECK(t.e[3].a_nvfp4 == 1);

    /* nearest in log2 space, M weighted twice */
    e = tetra_dispatch_lookup(&t, 0, 0, 1, 4096, 4096);
    CHECK(e && e->path == TETRA_PATH_GEMV);
    e = tetra_dispatch_lookup(&t, 0, 0, 48, 14336, 4096);
    CHECK(e && e->m == 64);
    e = tetra_dispatch_lookup(&t, 0, 0, 2048, 4096, 4096);
    CHECK(e && e->m == 4096 && e->path == TETRA_PATH_WGMMA);
    /* M = 17 is nearer the GEMV entry than the M = 64 one, but the GEMV takes M <= 16 */
    e = tetra_dispatch_lookup(&t, 0, 0, 17, 4096, 4096);
    CHECK(e && e->path != TETRA_PATH_GEMV);
    /* activation kinds never mix */
    e = tetra_dispatch_lookup(&t, 1, 0, 1, 4096, 4096);
    CHECK(e && e->a_nvfp4 == 1 && e->path == TETRA_PATH_MMA_SYNC);
    /* a nearest table's plain entries serve standard weights only: none for fragment weights */
    CHECK(!t.exact);
    CHECK(tetra_dispatch_lookup(&t, 0, 1, 64, 14336, 4096) == NULL);
    tetra_dispatch_free(&t);
    CHECK(tetra_dispatch_lookup(&t, 0, 0, 1, 1, 16) == NULL);

    CHECK_MSG(tetra_dispatch_parse(k_exact, &t, err, sizeof err) == 0, "%s", err);
    CHECK(t.exact && t.n == 3);
    CHECK(!t.e[0].fragment && t.e[1].fragment && t.e[2].fragment && t.e[2].a_nvfp4);
    e = tetra_dispatch_lookup(&t, 0, 0, 128, 6144, 2048);
    CHECK(e == &t.e[0] && e->path == TETRA_PATH_WGMMA_T && e->tile_m == 128 && e->splits == 3);
    e = tetra_dispatch_lookup(&t, 0, 1, 128, 6144, 2048);
    CHECK(e == &t.e[1] && e->tile_m == 64 && e->splits == 2);
    /* one off in M, N or K, or another kind: no entry (the rules decide), never the nearest */
    CHECK(tetra_dispatch_lookup(&t, 0, 0, 127, 6144, 2048) == NULL);
    CHECK(tetra_dispatch_lookup(&t, 0, 0, 129, 6144, 2048) == NULL);
    CHECK(tetra_dispatch_lookup(&t, 0, 0, 128, 6160, 2048) == NULL);
    CHECK(tetra_dispatch_lookup(&t, 0, 0, 128, 6144, 2064) == NULL);
    CHECK(tetra_dispatch_lookup(&t, 1, 0, 128, 6144, 2048) == NULL);
    CHECK(tetra_dispatch_lookup(&t, 0, 1, 12, 3072, 3072) == NULL);
    e = tetra_dispatch_lookup(&t, 1, 1, 12, 3072, 3072);
    CHECK(e == &t.e[2] && e->path == TETRA_PATH_GEMV && e->splits == 4);
    CHECK(tetra_dispatch_lookup(&t, 1, 0, 12, 3072, 3072) == NULL);
    tetra_dispatch_free(&t);
    CHECK(tetra_dispatch_parse("tetra-dispatch-table 1\ndevice X\nmatch nearest\n", &t, err, sizeof err) == 0 &&
          !t.exact);
    tetra_dispatch_free(&t);

    expect_error("", "empty table");
    expect_error("tetra-dispatch-table 2\n", "line 1");
    expect_error("tetra-dispatch-table 1\nentry bf16 1 2 16 gemv 0 0\n", "no 'device' line");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry bf16 1 2 16 tensor 0 0\n", "line 3: path 'tensor'");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry bf16 0 2 16 gemv 0 0\n", "line 3: m, n, k");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry bf16 1 2 16 wgmma 512 0\n", "tile_m '512'");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry bf16 1 2 16 wgmma 64 -1\n", "splits '-1'");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry int8 1 2 16 wgmma 64 1\n", "activation kind 'int8'");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry bf16 1 2 16 wgmma 64\n", "7 or 8 fields");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry bf16 1 2 16 wgmma 64 1 fast\n", "time 'fast'");
    expect_error("tetra-dispatch-table 1\ndevice X\nbogus 1\n", "line 3: unknown keyword 'bogus'");
    expect_error("tetra-dispatch-table 1\ndevice X\nmatch closest\n", "line 3: match 'closest'");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry bf16:std 1 2 16 gemv 0 0\n", "weight layout 'std'");
    expect_error("tetra-dispatch-table 1\ndevice X\nentry int8:frag 1 2 16 gemv 0 0\n", "activation kind 'int8'");

    /* every table shipped with tetra parses (a broken one would be skipped silently at run time) */
    for (int i = 0; tetra_dispatch_builtin_texts[i]; i++) {
        CHECK_MSG(tetra_dispatch_parse(tetra_dispatch_builtin_texts[i], &t, err, sizeof err) == 0,
                  "built-in table %d: %s", i, err);
        CHECK_MSG(t.n > 0, "built-in table %d has no entries", i);
        tetra_dispatch_free(&t);
    }
    CHECK(tetra_dispatch_builtin("no such GPU", &t) == -1);
    return tu_finish("test_dispatch_table");
}
