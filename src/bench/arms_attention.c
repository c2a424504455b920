/* arms_attention.c - attention forward arms: tetra_attention_fwd (path auto, and path 2,
 * the portable mma.sync kernel) and cuDNN's fused flash attention through the cuDNN 9
 * backend (graph) API, BF16 and FP16, causal and not; plus broken-attention (scale x 1.02:
 * the gate must fail it).
 *
 * Shape mapping (docs/bench.md): m = sequence length N (Nq = Nk), n = heads H (Hq = Hkv),
 * k = head dim D, l = batch B. Tensors are [B, N, H, D], contiguous, as tetra takes them;
 * cuDNN sees the same memory as [B, H, N, D] through strides.
 *
 * Inputs: Q, K, V approximately N(0,1), generated on the host from the seed (identical for
 * every arm of a row) and kept there for the oracle; every input set is a copy of set 0
 * at a different address, the sets together span at least env->rotate_bytes.
 *
 * cuDNN is loaded at run time (dlopen "libcudnn.so.9"); the few backend entry points and
 * enum values used are declared here, so the build has no cuDNN dependency. Where the
 * library, the graph or an engine is missing, the arm is skipped with the reason. */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench.h"
#include "format/float16.h"
#include "ref/attention_ref.h"
#include "ref/rng.h"

#define MAX_SETS 64
#define BROKEN_SCALE 1.02f

/* ================================================================ cuDNN backend (dlopen) */

/* Values from cuDNN 9's cudnn_graph.h (stable ABI within a major version); checked
 * against the real header below wherever it is installed. */
enum {
    DNN_STATUS_SUCCESS = 0,
    /* descriptor types */
    DNN_POINTWISE_DESCRIPTOR = 0, DNN_ENGINECFG_DESCRIPTOR = 3, DNN_ENGINEHEUR_DESCRIPTOR = 4,
    DNN_EXECUTION_PLAN_DESCRIPTOR = 5, DNN_OPERATION_POINTWISE_DESCRIPTOR = 13,
    DNN_OPERATIONGRAPH_DESCRIPTOR = 15, DNN_VARIANT_PACK_DESCRIPTOR = 16, DNN_TENSOR_DESCRIPTOR = 17,
    DNN_MATMUL_DESCRIPTOR = 18, DNN_OPERATION_MATMUL_DESCRIPTOR = 19, DNN_REDUCTION_DESCRIPTOR = 21,
    DNN_OPERATION_REDUCTION_DESCRIPTOR = 22,
    /* attribute names */
    DNN_ATTR_POINTWISE_MODE = 0, DNN_ATTR_POINTWISE_MATH_PREC = 1, DNN_ATTR_POINTWISE_AXIS = 9,
    DNN_ATTR_ENGINEHEUR_MODE = 200, DNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201, DNN_ATTR_ENGINEHEUR_RESULTS = 202,
    DNN_ATTR_EXECUTION_PLAN_HANDLE = 400, DNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
    DNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402,
    DNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR = 750, DNN_ATTR_OPERATION_POINTWISE_XDESC = 751,
    DNN_ATTR_OPERATION_POINTWISE_BDESC = 752, DNN_ATTR_OPERATION_POINTWISE_YDESC = 753,
    DNN_ATTR_OPERATION_POINTWISE_TDESC = 758,
    DNN_ATTR_OPERATIONGRAPH_HANDLE = 800, DNN_ATTR_OPERATIONGRAPH_OPS = 801,
    DNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900, DNN_ATTR_TENSOR_DATA_TYPE = 901, DNN_ATTR_TENSOR_DIMENSIONS = 902,
    DNN_ATTR_TENSOR_STRIDES = 903, DNN_ATTR_TENSOR_UNIQUE_ID = 906, DNN_ATTR_TENSOR_IS_VIRTUAL = 907,
    DNN_ATTR_TENSOR_IS_BY_VALUE = 908,
    DNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000, DNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
    DNN_ATTR_VARIANT_PACK_WORKSPACE = 1003,
    DNN_ATTR_MATMUL_COMP_TYPE = 1500, DNN_ATTR_OPERATION_MATMUL_ADESC = 1520, DNN_ATTR_OPERATION_MATMUL_BDESC = 1521,
    DNN_ATTR_OPERATION_MATMUL_CDESC = 1522, DNN_ATTR_OPERATION_MATMUL_DESC = 1523,
    DNN_ATTR_REDUCTION_OPERATOR = 1600, DNN_ATTR_REDUCTION_COMP_TYPE = 1601,
    DNN_ATTR_OPERATION_REDUCTION_XDESC = 1610, DNN_ATTR_OPERATION_REDUCTION_YDESC = 1611,
    DNN_ATTR_OPERATION_REDUCTION_DESC = 1612,
    /* attribute types */
    DNN_TYPE_HANDLE = 0, DNN_TYPE_DATA_TYPE = 1, DNN_TYPE_BOOLEAN = 2, DNN_TYPE_INT64 = 3, DNN_TYPE_VOID_PTR = 6,
    DNN_TYPE_HEUR_MODE = 8, DNN_TYPE_POINTWISE_MODE = 14, DNN_TYPE_BACKEND_DESCRIPTOR = 15,
    DNN_TYPE_REDUCTION_OPERATOR_TYPE = 18,
    /* data types */
    DNN_DATA_FLOAT = 0, DNN_DATA_HALF = 2, DNN_DATA_INT32 = 4, DNN_DATA_BFLOAT16 = 9, DNN_DATA_BOOLEAN = 11,
    /* pointwise modes */
    DNN_PW_ADD = 0, DNN_PW_MUL = 1, DNN_PW_DIV = 6, DNN_PW_SUB = 9, DNN_PW_EXP = 13, DNN_PW_LOG = 15,
    DNN_PW_CMP_GE = 303, DNN_PW_GEN_INDEX = 501, DNN_PW_BINARY_SELECT = 601,
    /* reductions, heuristics */
    DNN_REDUCE_ADD = 0, DNN_REDUCE_MAX = 3, DNN_HEUR_MODE_A = 3
};

#if defined(__has_include)
#if __has_include(<cudnn_graph.h>)
#include <cudnn_graph.h>
#define DNN_SAME(ours, theirs) _Static_assert((int)(ours) == (int)(theirs), #ours " differs from cudnn_graph.h")
DNN_SAME(DNN_POINTWISE_DESCRIPTOR, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
DNN_SAME(DNN_ENGINECFG_DESCRIPTOR, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
DNN_SAME(DNN_ENGINEHEUR_DESCRIPTOR, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
DNN_SAME(DNN_EXECUTION_PLAN_DESCRIPTOR, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
DNN_SAME(DNN_OPERATION_POINTWISE_DESCRIPTOR, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
DNN_SAME(DNN_OPERATIONGRAPH_DESCRIPTOR, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
DNN_SAME(DNN_VARIANT_PACK_DESCRIPTOR, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
DNN_SAME(DNN_TENSOR_DESCRIPTOR, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
DNN_SAME(DNN_MATMUL_DESCRIPTOR, CUDNN_BACKEND_MATMUL_DESCRIPTOR);
DNN_SAME(DNN_OPERATION_MATMUL_DESCRIPTOR, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
DNN_SAME(DNN_REDUCTION_DESCRIPTOR, CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
DNN_SAME(DNN_OPERATION_REDUCTION_DESCRIPTOR, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
DNN_SAME(DNN_ATTR_POINTWISE_MODE, CUDNN_ATTR_POINTWISE_MODE);
DNN_SAME(DNN_ATTR_POINTWISE_MATH_PREC, CUDNN_ATTR_POINTWISE_MATH_PREC);
DNN_SAME(DNN_ATTR_POINTWISE_AXIS, CUDNN_ATTR_POINTWISE_AXIS);
DNN_SAME(DNN_ATTR_ENGINEHEUR_MODE, CUDNN_ATTR_ENGINEHEUR_MODE);
DNN_SAME(DNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
DNN_SAME(DNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_ATTR_ENGINEHEUR_RESULTS);
DNN_SAME(DNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
DNN_SAME(DNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
DNN_SAME(DNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR);
DNN_SAME(DNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_ATTR_OPERATION_POINTWISE_XDESC);
DNN_SAME(DNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_ATTR_OPERATION_POINTWISE_BDESC);
DNN_SAME(DNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_ATTR_OPERATION_POINTWISE_YDESC);
DNN_SAME(DNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_ATTR_OPERATION_POINTWISE_TDESC);
DNN_SAME(DNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_ATTR_OPERATIONGRAPH_OPS);
DNN_SAME(DNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
DNN_SAME(DNN_ATTR_TENSOR_DATA_TYPE, CUDNN_ATTR_TENSOR_DATA_TYPE);
DNN_SAME(DNN_ATTR_TENSOR_DIMENSIONS, CUDNN_ATTR_TENSOR_DIMENSIONS);
DNN_SAME(DNN_ATTR_TENSOR_STRIDES, CUDNN_ATTR_TENSOR_STRIDES);
DNN_SAME(DNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_ATTR_TENSOR_UNIQUE_ID);
DNN_SAME(DNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_ATTR_TENSOR_IS_VIRTUAL);
DNN_SAME(DNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_ATTR_TENSOR_IS_BY_VALUE);
DNN_SAME(DNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
DNN_SAME(DNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
DNN_SAME(DNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_ATTR_VARIANT_PACK_WORKSPACE);
DNN_SAME(DNN_ATTR_MATMUL_COMP_TYPE, CUDNN_ATTR_MATMUL_COMP_TYPE);
DNN_SAME(DNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_ATTR_OPERATION_MATMUL_ADESC);
DNN_SAME(DNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_ATTR_OPERATION_MATMUL_BDESC);
DNN_SAME(DNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_ATTR_OPERATION_MATMUL_CDESC);
DNN_SAME(DNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_ATTR_OPERATION_MATMUL_DESC);
DNN_SAME(DNN_ATTR_REDUCTION_OPERATOR, CUDNN_ATTR_REDUCTION_OPERATOR);
DNN_SAME(DNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_ATTR_REDUCTION_COMP_TYPE);
DNN_SAME(DNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_ATTR_OPERATION_REDUCTION_XDESC);
DNN_SAME(DNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_ATTR_OPERATION_REDUCTION_YDESC);
DNN_SAME(DNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_ATTR_OPERATION_REDUCTION_DESC);
DNN_SAME(DNN_TYPE_HANDLE, CUDNN_TYPE_HANDLE);
DNN_SAME(DNN_TYPE_DATA_TYPE, CUDNN_TYPE_DATA_TYPE);
DNN_SAME(DNN_TYPE_BOOLEAN, CUDNN_TYPE_BOOLEAN);
DNN_SAME(DNN_TYPE_INT64, CUDNN_TYPE_INT64);
DNN_SAME(DNN_TYPE_VOID_PTR, CUDNN_TYPE_VOID_PTR);
DNN_SAME(DNN_TYPE_HEUR_MODE, CUDNN_TYPE_HEUR_MODE);
DNN_SAME(DNN_TYPE_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE);
DNN_SAME(DNN_TYPE_BACKEND_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR);
DNN_SAME(DNN_TYPE_REDUCTION_OPERATOR_TYPE, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE);
DNN_SAME(DNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
DNN_SAME(DNN_DATA_HALF, CUDNN_DATA_HALF);
DNN_SAME(DNN_DATA_INT32, CUDNN_DATA_INT32);
DNN_SAME(DNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16);
DNN_SAME(DNN_DATA_BOOLEAN, CUDNN_DATA_BOOLEAN);
DNN_SAME(DNN_PW_ADD, CUDNN_POINTWISE_ADD);
DNN_SAME(DNN_PW_MUL, CUDNN_POINTWISE_MUL);
DNN_SAME(DNN_PW_DIV, CUDNN_POINTWISE_DIV);
DNN_SAME(DNN_PW_SUB, CUDNN_POINTWISE_SUB);
DNN_SAME(DNN_PW_EXP, CUDNN_POINTWISE_EXP);
DNN_SAME(DNN_PW_LOG, CUDNN_POINTWISE_LOG);
DNN_SAME(DNN_PW_CMP_GE, CUDNN_POINTWISE_CMP_GE);
DNN_SAME(DNN_PW_GEN_INDEX, CUDNN_POINTWISE_GEN_INDEX);
DNN_SAME(DNN_PW_BINARY_SELECT, CUDNN_POINTWISE_BINARY_SELECT);
DNN_SAME(DNN_REDUCE_ADD, CUDNN_REDUCE_TENSOR_ADD);
DNN_SAME(DNN_REDUCE_MAX, CUDNN_REDUCE_TENSOR_MAX);
DNN_SAME(DNN_HEUR_MODE_A, CUDNN_HEUR_MODE_A);
#endif
#endif

typedef void *dnn_desc;
typedef int (*dnn_create_fn)(void **handle);
typedef int (*dnn_destroy_fn)(void *handle);
typedef int (*dnn_set_stream_fn)(void *handle, void *stream);
typedef size_t (*dnn_version_fn)(void);
typedef void (*dnn_last_error_fn)(char *message, size_t max_size);
typedef int (*dnn_create_desc_fn)(int type, dnn_desc *d);
typedef int (*dnn_destroy_desc_fn)(dnn_desc d);
typedef int (*dnn_finalize_fn)(dnn_desc d);
typedef int (*dnn_set_attr_fn)(dnn_desc d, int name, int type, int64_t count, const void *values);
typedef int (*dnn_get_attr_fn)(dnn_desc d, int name, int type, int64_t requested, int64_t *returned, void *values);
typedef int (*dnn_execute_fn)(void *handle, dnn_desc plan, dnn_desc pack);

static struct {
    int tried, ok;
    char why[256];
    size_t version;
    dnn_create_fn create;
    dnn_destroy_fn destroy;
    dnn_set_stream_fn set_stream;
    dnn_last_error_fn last_error; /* may be NULL */
    dnn_create_desc_fn create_desc;
    dnn_destroy_desc_fn destroy_desc;
    dnn_finalize_fn finalize;
    dnn_set_attr_fn set_attr;
    dnn_get_attr_fn get_attr;
    dnn_execute_fn execute;
} g_dnn;

/* Load cuDNN once per process; never unloaded (its engines keep state). */
static int dnn_load(void) {
    static const char *const names[] = {"libcudnn.so.9", "libcudnn.so", "/usr/local/cuda/lib/libcudnn.so.9",
                                        "/usr/local/cuda/lib64/libcudnn.so.9"};
    void *lib = NULL;
    const char *env = getenv("TETRA_CUDNN");
    if (g_dnn.tried) return g_dnn.ok;
    g_dnn.tried = 1;
    if (env && *env) lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; !lib && i < sizeof names / sizeof names[0]; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(g_dnn.why, sizeof g_dnn.why, "cuDNN 9 not found (dlopen libcudnn.so.9: %s; set TETRA_CUDNN=/path/libcudnn.so.9)",
                 e ? e : "?");
        return 0;
    }
#define DNN_SYM(field, type, name)                                                              \
    if (!(g_dnn.field = (type)dlsym(lib, name))) {                                              \
        snprintf(g_dnn.why, sizeof g_dnn.why, "cuDNN library lacks %s (not cuDNN 9?)", name);   \
        return 0;                                                                               \
    }
    DNN_SYM(create, dnn_create_fn, "cudnnCreate")
    DNN_SYM(destroy, dnn_destroy_fn, "cudnnDestroy")
    DNN_SYM(set_stream, dnn_set_stream_fn, "cudnnSetStream")
    DNN_SYM(create_desc, dnn_create_desc_fn, "cudnnBackendCreateDescriptor")
    DNN_SYM(destroy_desc, dnn_destroy_desc_fn, "cudnnBackendDestroyDescriptor")
    DNN_SYM(finalize, dnn_finalize_fn, "cudnnBackendFinalize")
    DNN_SYM(set_attr, dnn_set_attr_fn, "cudnnBackendSetAttribute")
    DNN_SYM(get_attr, dnn_get_attr_fn, "cudnnBackendGetAttribute")
    DNN_SYM(execute, dnn_execute_fn, "cudnnBackendExecute")
#undef DNN_SYM
    {
        dnn_version_fn ver = (dnn_version_fn)dlsym(lib, "cudnnGetVersion");
        g_dnn.version = ver ? ver() : 0;
    }
    if (g_dnn.version < 90000) {
        snprintf(g_dnn.why, sizeof g_dnn.why, "cuDNN version %zu found; the arm needs cuDNN 9", g_dnn.version);
        return 0;
    }
    g_dnn.last_error = (dnn_last_error_fn)dlsym(lib, "cudnnGetLastErrorString");
    g_dnn.ok = 1;
    return 1;
}

#define DNN_MAX_DESCS 96

/* One fused-attention graph and its plan; descriptors are kept for teardown. */
typedef struct {
    void *handle;
    dnn_desc descs[DNN_MAX_DESCS];
    int ndescs;
    dnn_desc plan;
    dnn_desc packs[MAX_SETS];
    void *workspace;
    int64_t workspace_bytes;
    float scale, neg_inf; /* by-value scalars: read at execution, so they live here */
    int failed_status;
    char step[96];
} dnn_graph;

static void dnn_free(dnn_graph *g) {
    if (!g) return;
    for (int i = 0; i < MAX_SETS; i++)
        if (g->packs[i]) g_dnn.destroy_desc(g->packs[i]);
    if (g->plan) g_dnn.destroy_desc(g->plan);
    for (int i = g->ndescs - 1; i >= 0; i--) g_dnn.destroy_desc(g->descs[i]);
    if (g->handle) g_dnn.destroy(g->handle);
    cudaFree(g->workspace);
    free(g);
}

/* Each helper records the first failing step; later calls do nothing, so a graph is
 * built straight-line and checked once. */
static dnn_desc dnn_new(dnn_graph *g, int type, const char *what) {
    dnn_desc d = NULL;
    int st;
    if (g->failed_status || g->ndescs >= DNN_MAX_DESCS) {
        if (!g->failed_status) { g->failed_status = -1; snprintf(g->step, sizeof g->step, "too many descriptors"); }
        return NULL;
    }
    if ((st = g_dnn.create_desc(type, &d)) != DNN_STATUS_SUCCESS || !d) {
        g->failed_status = st ? st : -1;
        snprintf(g->step, sizeof g->step, "create %s", what);
        return NULL;
    }
    g->descs[g->ndescs++] = d;
    return d;
}
static void dnn_set(dnn_graph *g, dnn_desc d, int name, int type, int64_t count, const void *v, const char *what) {
    int st;
    if (g->failed_status || !d) return;
    if ((st = g_dnn.set_attr(d, name, type, count, v)) != DNN_STATUS_SUCCESS) {
        g->failed_status = st;
        snprintf(g->step, sizeof g->step, "set %s (attribute %d)", what, name);
    }
}
static void dnn_fin(dnn_graph *g, dnn_desc d, const char *what) {
    int st;
    if (g->failed_status || !d) return;
    if ((st = g_dnn.finalize(d)) != DNN_STATUS_SUCCESS) {
        g->failed_status = st;
        snprintf(g->step, sizeof g->step, "finalize %s", what);
    }
}

static dnn_desc dnn_tensor(dnn_graph *g, int64_t uid, int dtype, const int64_t dims[4], const int64_t strides[4],
                           bool is_virtual, bool by_value) {
    dnn_desc t = dnn_new(g, DNN_TENSOR_DESCRIPTOR, "tensor");
    int64_t align = 16;
    dnn_set(g, t, DNN_ATTR_TENSOR_DATA_TYPE, DNN_TYPE_DATA_TYPE, 1, &dtype, "tensor type");
    dnn_set(g, t, DNN_ATTR_TENSOR_DIMENSIONS, DNN_TYPE_INT64, 4, dims, "tensor dims");
    dnn_set(g, t, DNN_ATTR_TENSOR_STRIDES, DNN_TYPE_INT64, 4, strides, "tensor strides");
    dnn_set(g, t, DNN_ATTR_TENSOR_UNIQUE_ID, DNN_TYPE_INT64, 1, &uid, "tensor uid");
    dnn_set(g, t, DNN_ATTR_TENSOR_BYTE_ALIGNMENT, DNN_TYPE_INT64, 1, &align, "tensor alignment");
    if (is_virtual) dnn_set(g, t, DNN_ATTR_TENSOR_IS_VIRTUAL, DNN_TYPE_BOOLEAN, 1, &is_virtual, "tensor virtual");
    if (by_value) dnn_set(g, t, DNN_ATTR_TENSOR_IS_BY_VALUE, DNN_TYPE_BOOLEAN, 1, &by_value, "tensor by value");
    dnn_fin(g, t, "tensor");
    return t;
}

/* y = mode(x[, b][, t]) with math precision prec; axis >= 0 only for GEN_INDEX. */
static dnn_desc dnn_pointwise(dnn_graph *g, int mode, int prec, int64_t axis, dnn_desc x, dnn_desc b, dnn_desc t,
                              dnn_desc y) {
    dnn_desc pw = dnn_new(g, DNN_POINTWISE_DESCRIPTOR, "pointwise"), op;
    dnn_set(g, pw, DNN_ATTR_POINTWISE_MODE, DNN_TYPE_POINTWISE_MODE, 1, &mode, "pointwise mode");
    dnn_set(g, pw, DNN_ATTR_POINTWISE_MATH_PREC, DNN_TYPE_DATA_TYPE, 1, &prec, "pointwise precision");
    if (axis >= 0) dnn_set(g, pw, DNN_ATTR_POINTWISE_AXIS, DNN_TYPE_INT64, 1, &axis, "pointwise axis");
    dnn_fin(g, pw, "pointwise");
    op = dnn_new(g, DNN_OPERATION_POINTWISE_DESCRIPTOR, "pointwise op");
    dnn_set(g, op, DNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw, "pw desc");
    dnn_set(g, op, DNN_ATTR_OPERATION_POINTWISE_XDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, "pw x");
    if (b) dnn_set(g, op, DNN_ATTR_OPERATION_POINTWISE_BDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &b, "pw b");
    if (t) dnn_set(g, op, DNN_ATTR_OPERATION_POINTWISE_TDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &t, "pw t");
    dnn_set(g, op, DNN_ATTR_OPERATION_POINTWISE_YDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, "pw y");
    dnn_fin(g, op, "pointwise op");
    return op;
}

static dnn_desc dnn_reduction(dnn_graph *g, int mode, dnn_desc x, dnn_desc y) {
    dnn_desc r = dnn_new(g, DNN_REDUCTION_DESCRIPTOR, "reduction"), op;
    int prec = DNN_DATA_FLOAT;
    dnn_set(g, r, DNN_ATTR_REDUCTION_OPERATOR, DNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode, "reduction mode");
    dnn_set(g, r, DNN_ATTR_REDUCTION_COMP_TYPE, DNN_TYPE_DATA_TYPE, 1, &prec, "reduction precision");
    dnn_fin(g, r, "reduction");
    op = dnn_new(g, DNN_OPERATION_REDUCTION_DESCRIPTOR, "reduction op");
    dnn_set(g, op, DNN_ATTR_OPERATION_REDUCTION_DESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &r, "reduction desc");
    dnn_set(g, op, DNN_ATTR_OPERATION_REDUCTION_XDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, "reduction x");
    dnn_set(g, op, DNN_ATTR_OPERATION_REDUCTION_YDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, "reduction y");
    dnn_fin(g, op, "reduction op");
    return op;
}

static dnn_desc dnn_matmul(dnn_graph *g, dnn_desc a, dnn_desc b, dnn_desc c) {
    dnn_desc m = dnn_new(g, DNN_MATMUL_DESCRIPTOR, "matmul"), op;
    int prec = DNN_DATA_FLOAT;
    dnn_set(g, m, DNN_ATTR_MATMUL_COMP_TYPE, DNN_TYPE_DATA_TYPE, 1, &prec, "matmul precision");
    dnn_fin(g, m, "matmul");
    op = dnn_new(g, DNN_OPERATION_MATMUL_DESCRIPTOR, "matmul op");
    dnn_set(g, op, DNN_ATTR_OPERATION_MATMUL_ADESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &a, "matmul a");
    dnn_set(g, op, DNN_ATTR_OPERATION_MATMUL_BDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &b, "matmul b");
    dnn_set(g, op, DNN_ATTR_OPERATION_MATMUL_CDESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &c, "matmul c");
    dnn_set(g, op, DNN_ATTR_OPERATION_MATMUL_DESC, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &m, "matmul desc");
    dnn_fin(g, op, "matmul op");
    return op;
}

enum { UID_Q = 1, UID_K = 2, UID_V = 3, UID_O = 4, UID_SCALE = 5, UID_NEG_INF = 6, UID_VIRTUAL = 100 };

/* The SDPA forward as the operation graph cuDNN 9 matches to its fused flash-attention
 * engine (the pattern cudnn-frontend builds below 9.21): S = Q K^T; S *= scale;
 * [causal: S = row >= col ? S : -inf]; softmax as max, sub, exp, sum, (log + max = stats,
 * virtual), div, with P in the input dtype; O = P V. Q/K/V/O are [B,N,H,D] in memory,
 * described as [B,H,N,D] (K as K^T [B,H,D,N]) by strides. */
static int dnn_build(dnn_graph *g, void *stream, tetra_dtype dt, int causal, int64_t B, int64_t N, int64_t H,
                     int64_t D, float scale, char *msg, size_t len) {
    int io = dt == TETRA_DTYPE_BF16 ? DNN_DATA_BFLOAT16 : DNN_DATA_HALF, f32 = DNN_DATA_FLOAT;
    int64_t qd[4] = {B, H, N, D}, qs[4] = {N * H * D, D, H * D, 1};
    int64_t kd[4] = {B, H, D, N}, ks[4] = {N * H * D, D, 1, H * D};
    int64_t sd[4] = {B, H, N, N}, ss[4] = {H * N * N, N * N, N, 1};
    int64_t rd[4] = {B, H, N, 1}, rs[4] = {H * N, N, 1, 1};
    int64_t one[4] = {1, 1, 1, 1};
    int64_t vid = UID_VIRTUAL;
    dnn_desc q, k, v, o, sc, s, s1, s2, mx, z, e, sm, lg, stats, p, ops[16], graph, heur;
    int nops = 0, st;
    int64_t ncfg = 0;
    (void)stream;
    g->scale = scale;
    g->neg_inf = -INFINITY;
    if ((st = g_dnn.create(&g->handle)) != DNN_STATUS_SUCCESS) {
        g->handle = NULL;
        return bench_set_msg(msg, len, "cudnnCreate failed (status %d)", st), BENCH_UNSUPPORTED;
    }
    if ((st = g_dnn.set_stream(g->handle, stream)) != DNN_STATUS_SUCCESS)
        return bench_set_msg(msg, len, "cudnnSetStream failed (status %d)", st), BENCH_ERROR;
    q = dnn_tensor(g, UID_Q, io, qd, qs, false, false);
    k = dnn_tensor(g, UID_K, io, kd, ks, false, false);
    v = dnn_tensor(g, UID_V, io, qd, qs, false, false);
    o = dnn_tensor(g, UID_O, io, qd, qs, false, false);
    sc = dnn_tensor(g, UID_SCALE, f32, one, one, false, true);
    s = dnn_tensor(g, vid++, f32, sd, ss, true, false);
    ops[nops++] = dnn_matmul(g, q, k, s);
    s1 = dnn_tensor(g, vid++, f32, sd, ss, true, false);
    ops[nops++] = dnn_pointwise(g, DNN_PW_MUL, f32, -1, s, sc, NULL, s1);
    if (causal) {
        int i32 = DNN_DATA_INT32, boolean = DNN_DATA_BOOLEAN;
        dnn_desc row = dnn_tensor(g, vid++, i32, sd, ss, true, false);
        dnn_desc col = dnn_tensor(g, vid++, i32, sd, ss, true, false);
        dnn_desc keep = dnn_tensor(g, vid++, boolean, sd, ss, true, false);
        dnn_desc ninf = dnn_tensor(g, UID_NEG_INF, f32, one, one, false, true);
        ops[nops++] = dnn_pointwise(g, DNN_PW_GEN_INDEX, f32, 2, s1, NULL, NULL, row);
        ops[nops++] = dnn_pointwise(g, DNN_PW_GEN_INDEX, f32, 3, s1, NULL, NULL, col);
        ops[nops++] = dnn_pointwise(g, DNN_PW_CMP_GE, boolean, -1, row, col, NULL, keep);
        s2 = dnn_tensor(g, vid++, f32, sd, ss, true, false);
        /* y = t ? x : b: keep the score where row >= col, else -inf */
        ops[nops++] = dnn_pointwise(g, DNN_PW_BINARY_SELECT, f32, -1, s1, ninf, keep, s2);
    } else {
        s2 = s1;
    }
    mx = dnn_tensor(g, vid++, f32, rd, rs, true, false);
    ops[nops++] = dnn_reduction(g, DNN_REDUCE_MAX, s2, mx);
    z = dnn_tensor(g, vid++, f32, sd, ss, true, false);
    ops[nops++] = dnn_pointwise(g, DNN_PW_SUB, f32, -1, s2, mx, NULL, z);
    e = dnn_tensor(g, vid++, f32, sd, ss, true, false);
    ops[nops++] = dnn_pointwise(g, DNN_PW_EXP, f32, -1, z, NULL, NULL, e);
    sm = dnn_tensor(g, vid++, f32, rd, rs, true, false);
    ops[nops++] = dnn_reduction(g, DNN_REDUCE_ADD, e, sm);
    lg = dnn_tensor(g, vid++, f32, rd, rs, true, false);
    ops[nops++] = dnn_pointwise(g, DNN_PW_LOG, f32, -1, sm, NULL, NULL, lg);
    stats = dnn_tensor(g, vid++, f32, rd, rs, true, false);
    ops[nops++] = dnn_pointwise(g, DNN_PW_ADD, f32, -1, mx, lg, NULL, stats);
    p = dnn_tensor(g, vid++, io, sd, ss, true, false);
    ops[nops++] = dnn_pointwise(g, DNN_PW_DIV, f32, -1, e, sm, NULL, p);
    ops[nops++] = dnn_matmul(g, p, v, o);

    graph = dnn_new(g, DNN_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
    dnn_set(g, graph, DNN_ATTR_OPERATIONGRAPH_OPS, DNN_TYPE_BACKEND_DESCRIPTOR, nops, ops, "graph ops");
    dnn_set(g, graph, DNN_ATTR_OPERATIONGRAPH_HANDLE, DNN_TYPE_HANDLE, 1, &g->handle, "graph handle");
    dnn_fin(g, graph, "operation graph (cuDNN does not support this attention graph)");
    heur = dnn_new(g, DNN_ENGINEHEUR_DESCRIPTOR, "heuristics");
    {
        int mode = DNN_HEUR_MODE_A;
        dnn_set(g, heur, DNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph, "heur graph");
        dnn_set(g, heur, DNN_ATTR_ENGINEHEUR_MODE, DNN_TYPE_HEUR_MODE, 1, &mode, "heur mode");
    }
    dnn_fin(g, heur, "heuristics");
    if (!g->failed_status &&
        (st = g_dnn.get_attr(heur, DNN_ATTR_ENGINEHEUR_RESULTS, DNN_TYPE_BACKEND_DESCRIPTOR, 0, &ncfg, NULL))) {
        g->failed_status = st;
        snprintf(g->step, sizeof g->step, "heuristic results count");
    }
    if (!g->failed_status) {
        dnn_desc cfgs[8];
        int64_t want = ncfg < 8 ? ncfg : 8, got = 0;
        int nc = 0;
        for (; nc < want; nc++)
            if (!(cfgs[nc] = dnn_new(g, DNN_ENGINECFG_DESCRIPTOR, "engine config"))) break;
        if (!g->failed_status && want > 0 &&
            (st = g_dnn.get_attr(heur, DNN_ATTR_ENGINEHEUR_RESULTS, DNN_TYPE_BACKEND_DESCRIPTOR, want, &got, cfgs))) {
            g->failed_status = st;
            snprintf(g->step, sizeof g->step, "heuristic results");
        }
        /* the first configuration that makes a plan */
        for (int64_t i = 0; !g->failed_status && i < got && !g->plan; i++) {
            dnn_desc plan = NULL;
            if (g_dnn.create_desc(DNN_EXECUTION_PLAN_DESCRIPTOR, &plan) || !plan) continue;
            if (g_dnn.set_attr(plan, DNN_ATTR_EXECUTION_PLAN_HANDLE, DNN_TYPE_HANDLE, 1, &g->handle) ||
                g_dnn.set_attr(plan, DNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i]) ||
                g_dnn.finalize(plan)) {
                g_dnn.destroy_desc(plan);
                continue;
            }
            g->plan = plan;
        }
        if (!g->failed_status && !g->plan) {
            g->failed_status = -1;
            snprintf(g->step, sizeof g->step, "execution plan: none of %lld heuristic engine configs finalized",
                     (long long)got);
        }
    }
    if (g->failed_status) {
        char last[256] = "";
        if (g_dnn.last_error) g_dnn.last_error(last, sizeof last);
        bench_set_msg(msg, len, "cuDNN %zu: %s failed (status %d)%s%s", g_dnn.version, g->step, g->failed_status,
                      last[0] ? ": " : "", last);
        return BENCH_UNSUPPORTED;
    }
    {
        int64_t ws = 0, got = 0;
        if (g_dnn.get_attr(g->plan, DNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, DNN_TYPE_INT64, 1, &got, &ws) || ws < 0)
            return bench_set_msg(msg, len, "cuDNN: plan workspace size unavailable"), BENCH_ERROR;
        g->workspace_bytes = ws;
        if (ws > 0 && cudaMalloc(&g->workspace, (size_t)ws) != cudaSuccess) {
            cudaGetLastError();
            return bench_set_msg(msg, len, "cuDNN workspace: cudaMalloc(%lld) failed", (long long)ws), BENCH_ERROR;
        }
    }
    return BENCH_OK;
}

/* One variant pack per input set (the device pointers differ; the scalars do not). */
static int dnn_pack(dnn_graph *g, int set, int causal, void *q, void *k, void *v, void *o) {
    int64_t uids[6] = {UID_Q, UID_K, UID_V, UID_O, UID_SCALE, UID_NEG_INF};
    void *ptrs[6];
    dnn_desc p = NULL;
    ptrs[0] = q; ptrs[1] = k; ptrs[2] = v; ptrs[3] = o;
    ptrs[4] = &g->scale;
    ptrs[5] = &g->neg_inf;
    if (g_dnn.create_desc(DNN_VARIANT_PACK_DESCRIPTOR, &p) || !p) return -1;
    g->packs[set] = p;
    if (g_dnn.set_attr(p, DNN_ATTR_VARIANT_PACK_UNIQUE_IDS, DNN_TYPE_INT64, causal ? 6 : 5, uids) ||
        g_dnn.set_attr(p, DNN_ATTR_VARIANT_PACK_DATA_POINTERS, DNN_TYPE_VOID_PTR, causal ? 6 : 5, ptrs) ||
        g_dnn.set_attr(p, DNN_ATTR_VARIANT_PACK_WORKSPACE, DNN_TYPE_VOID_PTR, 1, &g->workspace) ||
        g_dnn.finalize(p))
        return -1;
    return 0;
}

/* ================================================================ the arms */

typedef enum { A_TETRA, A_CUDNN } attn_impl;

typedef struct {
    const char *name;
    attn_impl impl;
    int path; /* tetra: 0 auto, 2 portable, 3 Hopper */
    tetra_dtype dtype;
    int causal;
    float scale_factor; /* 1, or BROKEN_SCALE for the defective arm */
    int tile_rows;      /* 0, or the Hopper kernel's pinned tile height (A/B of heights) */
} attn_kind;

typedef struct {
    attn_kind kind;
    bench_env env;
    int64_t b, n, h, d, elems; /* elems = B*N*H*D per tensor */
    float scale;               /* the true softmax scale 1/sqrt(D) */
    int nsets, cur;
    void *q[MAX_SETS], *k[MAX_SETS], *v[MAX_SETS], *o[MAX_SETS];
    tetra_attention_args args[MAX_SETS];
    uint16_t *hq, *hk, *hv; /* set 0 on the host, for the oracle */
    dnn_graph *dnn;
    tetra_status tst;
    char note[160];
} attn_state;

static void attn_teardown(void *p) {
    attn_state *s = (attn_state *)p;
    if (!s) return;
    cudaStreamSynchronize((cudaStream_t)s->env.stream);
    if (s->dnn) dnn_free(s->dnn);
    for (int i = 0; i < MAX_SETS; i++) { cudaFree(s->q[i]); cudaFree(s->k[i]); cudaFree(s->v[i]); cudaFree(s->o[i]); }
    free(s->hq); free(s->hk); free(s->hv);
    free(s);
}

static int attn_run_set(attn_state *s, int i) {
    if (s->kind.impl == A_CUDNN) return g_dnn.execute(s->dnn->handle, s->dnn->plan, s->dnn->packs[i]) ? -1 : 0;
    s->tst = tetra_attention_fwd(s->env.ctx, &s->args[i]);
    return s->tst == TETRA_OK ? 0 : -1;
}

static int attn_run(void *p) {
    attn_state *s = (attn_state *)p;
    int i = s->cur;
    s->cur = (s->cur + 1) % s->nsets;
    return attn_run_set(s, i);
}

/* approximately N(0,1): a sum of four uniforms, scaled to unit variance */
static void host_normal16(uint16_t *x, int64_t n, uint64_t seed, tetra_dtype dt) {
    tetra_rng r = {seed};
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = tetra_rng_next(&r);
        float v = 0;
        for (int j = 0; j < 4; j++) v += (float)((u >> (16 * j)) & 0xffffu) * (1.0f / 65536.0f);
        v = (v - 2.0f) * 1.7320508f;
        x[i] = dt == TETRA_DTYPE_BF16 ? tetra_f32_to_bf16(v) : tetra_f32_to_f16(v);
    }
}

static int attn_setup(const attn_kind *kind, const bench_env *env, const bench_shape *sh, void **out, char *msg,
                      size_t len) {
    attn_state *s;
    size_t tb, per;
    cudaStream_t st = (cudaStream_t)env->stream;
    int rc = BENCH_ERROR;
    *out = NULL;
    if (sh->k != 64 && sh->k != 128)
        return bench_set_msg(msg, len, "attention shapes are NxHxDxB (m = seqlen, n = heads, k = head dim 64 or 128, "
                                       "l = batch); k = %lld", (long long)sh->k), BENCH_UNSUPPORTED;
    if (kind->impl == A_CUDNN && !dnn_load()) return bench_set_msg(msg, len, "%s", g_dnn.why), BENCH_UNSUPPORTED;
    if (!(s = (attn_state *)calloc(1, sizeof *s))) return bench_set_msg(msg, len, "out of host memory"), BENCH_ERROR;
    s->kind = *kind;
    s->env = *env;
    s->n = sh->m;
    s->h = sh->n;
    s->d = sh->k;
    s->b = sh->l;
    s->elems = s->b * s->n * s->h * s->d;
    s->scale = 1.0f / sqrtf((float)s->d);
    tb = (size_t)s->elems * 2;
    per = 4 * tb;
    if (!(s->nsets = bench_rotation_sets(env, per, MAX_SETS, msg, len))) {
        free(s);
        return BENCH_UNSUPPORTED;
    }
    s->hq = (uint16_t *)malloc(tb);
    s->hk = (uint16_t *)malloc(tb);
    s->hv = (uint16_t *)malloc(tb);
    if (!s->hq || !s->hk || !s->hv) { bench_set_msg(msg, len, "out of host memory"); goto done; }
    host_normal16(s->hq, s->elems, env->seed ^ 0x7171, kind->dtype);
    host_normal16(s->hk, s->elems, env->seed ^ 0x7272, kind->dtype);
    host_normal16(s->hv, s->elems, env->seed ^ 0x7373, kind->dtype);
    for (int i = 0; i < s->nsets; i++) {
        if (cudaMalloc(&s->q[i], tb) || cudaMalloc(&s->k[i], tb) || cudaMalloc(&s->v[i], tb) || cudaMalloc(&s->o[i], tb)) {
            cudaGetLastError();
            bench_set_msg(msg, len, "cudaMalloc failed for input set %d", i);
            goto done;
        }
        if (cudaMemcpy(s->q[i], s->hq, tb, cudaMemcpyHostToDevice) || cudaMemcpy(s->k[i], s->hk, tb, cudaMemcpyHostToDevice) ||
            cudaMemcpy(s->v[i], s->hv, tb, cudaMemcpyHostToDevice) || cudaMemsetAsync(s->o[i], 0xff, tb, st)) {
            bench_set_msg(msg, len, "upload: %s", cudaGetErrorString(cudaGetLastError()));
            goto done;
        }
        memset(&s->args[i], 0, sizeof s->args[i]);
        s->args[i].dtype = kind->dtype;
        s->args[i].q = s->q[i];
        s->args[i].k = s->k[i];
        s->args[i].v = s->v[i];
        s->args[i].o = s->o[i];
        s->args[i].batch = s->b;
        s->args[i].seqlen_q = s->args[i].seqlen_k = s->n;
        s->args[i].heads_q = s->args[i].heads_kv = s->h;
        s->args[i].head_dim = s->d;
        s->args[i].scale = s->scale * kind->scale_factor;
        s->args[i].causal = kind->causal;
        s->args[i].path = kind->path;
        s->args[i].tile_rows = kind->tile_rows;
    }
    if (cudaStreamSynchronize(st) != cudaSuccess) {
        bench_set_msg(msg, len, "preparing inputs: %s", cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    if (kind->impl == A_CUDNN) {
        if (!(s->dnn = (dnn_graph *)calloc(1, sizeof *s->dnn))) { bench_set_msg(msg, len, "out of host memory"); goto done; }
        if ((rc = dnn_build(s->dnn, env->stream, kind->dtype, kind->causal, s->b, s->n, s->h, s->d,
                            s->scale * kind->scale_factor, msg, len)) != BENCH_OK)
            goto done;
        rc = BENCH_ERROR;
        for (int i = 0; i < s->nsets; i++)
            if (dnn_pack(s->dnn, i, kind->causal, s->q[i], s->k[i], s->v[i], s->o[i])) {
                bench_set_msg(msg, len, "cuDNN variant pack failed");
                goto done;
            }
        if (attn_run_set(s, 0) || cudaStreamSynchronize(st) != cudaSuccess) {
            bench_set_msg(msg, len, "cuDNN execute failed: %s", cudaGetErrorString(cudaGetLastError()));
            goto done;
        }
        snprintf(s->note, sizeof s->note, "cuDNN %zu fused flash attention (backend graph), workspace %lld B",
                 g_dnn.version, (long long)s->dnn->workspace_bytes);
    } else {
        if (attn_run_set(s, 0) || cudaStreamSynchronize(st) != cudaSuccess) {
            bench_set_msg(msg, len, "%s: %s", tetra_status_string(s->tst), tetra_last_error());
            rc = s->tst == TETRA_ERR_UNSUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR;
            goto done;
        }
        snprintf(s->note, sizeof s->note, "tetra_attention_fwd path %d%s", kind->path,
                 kind->path == 0 ? " (auto)" : kind->path == 2 ? " (portable mma.sync)" : "");
    }
    rc = BENCH_OK;
    *out = s;
done:
    if (rc != BENCH_OK) attn_teardown(s);
    return rc;
}

static double to_dtype(double x, tetra_dtype dt) {
    float f = tetra_f64_to_f32_odd(x);
    return dt == TETRA_DTYPE_BF16 ? tetra_bf16_to_f32(tetra_f32_to_bf16(f)) : tetra_f16_to_f32(tetra_f32_to_f16(f));
}

/* Seed 004's two-reference gate on the arm's set 0: the oracle (FP64, exact softmax) and
 * the same-dtype reference (P rounded to the input dtype, output rounded to it), both
 * tetra_attention_host on the host copies of the inputs. When the full problem exceeds
 * --oracle-macs, three blocks of query rows (first, middle, last) are checked; a block
 * [r0, r0+nb) is its own problem with Nq = nb and, for causal, Nk = r0 + nb (bottom-right
 * alignment then puts query r0+i at key r0+i: the same mask), the full K/V otherwise. */
static int attn_check(void *p, bench_check *c, char *msg, size_t len) {
    attn_state *s = (attn_state *)p;
    cudaStream_t st = (cudaStream_t)s->env.stream;
    int64_t B = s->b, N = s->n, H = s->h, D = s->d, row = H * D;
    double per_row = 2.0 * (double)B * H * N * D, full = per_row * N;
    int64_t r0s[3], nb, nblocks;
    double same = 0;
    double *ref_b = NULL, *same_b = NULL;
    uint16_t *dout = NULL;
    int rc = -1;
    memset(c, 0, sizeof *c);
    if (full <= (double)s->env.oracle_macs) {
        nblocks = 1; nb = N; r0s[0] = 0;
    } else {
        int64_t want = (int64_t)((double)s->env.oracle_macs / per_row);
        nb = want / 3;
        if (nb < 1) nb = 1;
        if (nb > N / 3) nb = N / 3 > 0 ? N / 3 : 1;
        nblocks = 3;
        r0s[0] = 0; r0s[1] = (N - nb) / 2; r0s[2] = N - nb;
    }
    cudaMemsetAsync(s->o[0], 0xff, (size_t)s->elems * 2, st);
    if (attn_run_set(s, 0) || cudaStreamSynchronize(st)) {
        bench_set_msg(msg, len, "run for the gate failed: %s",
                      s->kind.impl == A_TETRA ? tetra_last_error() : cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    c->n = nblocks * B * nb * row;
    c->ref = (double *)malloc((size_t)c->n * sizeof(double));
    c->out = (double *)malloc((size_t)c->n * sizeof(double));
    ref_b = (double *)malloc((size_t)(B * nb * row) * sizeof(double));
    same_b = (double *)malloc((size_t)(B * nb * row) * sizeof(double));
    dout = (uint16_t *)malloc((size_t)(nb * row) * 2);
    if (!c->ref || !c->out || !ref_b || !same_b || !dout) { bench_set_msg(msg, len, "out of host memory"); goto done; }
    for (int64_t bi = 0; bi < nblocks; bi++) {
        int64_t r0 = r0s[bi], base = bi * B * nb * row;
        tetra_attention_args a;
        memset(&a, 0, sizeof a);
        a.dtype = s->kind.dtype;
        a.q = s->hq + r0 * row;
        a.k = s->hk;
        a.v = s->hv;
        a.o = s->hq; /* ignored by the host reference */
        a.batch = B;
        a.seqlen_q = nb;
        a.seqlen_k = s->kind.causal ? r0 + nb : N;
        a.heads_q = a.heads_kv = H;
        a.head_dim = D;
        a.q_strides[0] = a.k_strides[0] = a.v_strides[0] = N * row;
        a.q_strides[1] = a.k_strides[1] = a.v_strides[1] = row;
        a.q_strides[2] = a.k_strides[2] = a.v_strides[2] = D;
        a.scale = s->scale;
        a.causal = s->kind.causal;
        if (tetra_attention_host(&a, TETRA_ATTENTION_REF_EXACT, ref_b, NULL, 0) != TETRA_OK ||
            tetra_attention_host(&a, TETRA_ATTENTION_REF_ROUND_P, same_b, NULL, 0) != TETRA_OK) {
            bench_set_msg(msg, len, "attention oracle: %s", tetra_last_error());
            goto done;
        }
        for (int64_t b = 0; b < B; b++) {
            /* rows r0 .. r0+nb of batch b are contiguous: nb * H * D elements */
            if (cudaMemcpy(dout, (const uint16_t *)s->o[0] + b * N * row + r0 * row, (size_t)(nb * row) * 2,
                           cudaMemcpyDeviceToHost)) {
                bench_set_msg(msg, len, "download failed");
                goto done;
            }
            for (int64_t i = 0; i < nb * row; i++) {
                int64_t j = b * nb * row + i;
                double ref = ref_b[j], sd = to_dtype(same_b[j], s->kind.dtype);
                c->ref[base + j] = ref;
                c->out[base + j] = s->kind.dtype == TETRA_DTYPE_BF16 ? tetra_bf16_to_f32(dout[i]) : tetra_f16_to_f32(dout[i]);
                if (fabs(sd - ref) > same) same = fabs(sd - ref);
            }
        }
    }
    c->two_ref = 1;
    c->same_dtype_max_abs = same;
    c->out_dtype = s->kind.dtype;
    c->k = N;
    c->rows_checked = nblocks * nb;
    c->rows_total = N;
    snprintf(c->method, sizeof c->method, "two-reference (seed 004), FP64 CPU oracle, %s%lld of %lld query rows x B x H",
             nblocks == 1 ? "all " : "3 blocks, ", (long long)(nblocks * nb), (long long)N);
    rc = 0;
done:
    if (rc) { free(c->ref); free(c->out); c->ref = c->out = NULL; }
    free(ref_b); free(same_b); free(dout);
    return rc;
}

static const char *attn_describe(void *p) { return ((attn_state *)p)->note; }

/* FLOPs: 4*B*H*N^2*D (two GEMMs), half when causal (the usual convention). Bytes: Q, K, V
 * read once, O written once. */
static double attn_flops_full(const bench_shape *s) { return 4.0 * s->l * s->n * (double)s->m * s->m * s->k; }
static double attn_flops_causal(const bench_shape *s) { return 0.5 * attn_flops_full(s); }
static double attn_bytes(const bench_shape *s) { return 4.0 * 2.0 * s->l * s->m * s->n * (double)s->k; }

#define ATTN_ARM(id, arm_name, impl, path, dt, causal, factor, variant, hidden)                                   \
    ATTN_ARM_ROWS(id, arm_name, impl, path, dt, causal, factor, variant, hidden, 0)
#define ATTN_ARM_ROWS(id, arm_name, impl, path, dt, causal, factor, variant, hidden, rows)                        \
    static const attn_kind kind_##id = {arm_name, impl, path, dt, causal, factor, rows};                         \
    static int setup_##id(const bench_env *e, const bench_shape *s, void **st, char *m, size_t l) {             \
        return attn_setup(&kind_##id, e, s, st, m, l);                                                          \
    }                                                                                                            \
    const bench_arm bench_arm_attn_##id = {arm_name, "attention", variant, "kernel", hidden, setup_##id, attn_run, \
        attn_check, attn_teardown, causal ? attn_flops_causal : attn_flops_full, attn_bytes, 0, attn_describe};

ATTN_ARM(tetra_bf16, "tetra-attention", A_TETRA, 0, TETRA_DTYPE_BF16, 0, 1.0f, "bf16", 0)
ATTN_ARM(tetra_bf16_c, "tetra-attention-causal", A_TETRA, 0, TETRA_DTYPE_BF16, 1, 1.0f, "bf16-causal", 0)
ATTN_ARM(tetra_f16, "tetra-attention-fp16", A_TETRA, 0, TETRA_DTYPE_FP16, 0, 1.0f, "fp16", 0)
ATTN_ARM(tetra_f16_c, "tetra-attention-fp16-causal", A_TETRA, 0, TETRA_DTYPE_FP16, 1, 1.0f, "fp16-causal", 0)
ATTN_ARM(port_bf16, "tetra-attention-portable", A_TETRA, 2, TETRA_DTYPE_BF16, 0, 1.0f, "bf16", 0)
ATTN_ARM(port_bf16_c, "tetra-attention-portable-causal", A_TETRA, 2, TETRA_DTYPE_BF16, 1, 1.0f, "bf16-causal", 0)
ATTN_ARM(port_f16, "tetra-attention-portable-fp16", A_TETRA, 2, TETRA_DTYPE_FP16, 0, 1.0f, "fp16", 0)
ATTN_ARM(port_f16_c, "tetra-attention-portable-fp16-causal", A_TETRA, 2, TETRA_DTYPE_FP16, 1, 1.0f, "fp16-causal", 0)
ATTN_ARM(dnn_bf16, "cudnn-sdpa", A_CUDNN, 0, TETRA_DTYPE_BF16, 0, 1.0f, "bf16", 0)
ATTN_ARM(dnn_bf16_c, "cudnn-sdpa-causal", A_CUDNN, 0, TETRA_DTYPE_BF16, 1, 1.0f, "bf16-causal", 0)
ATTN_ARM(dnn_f16, "cudnn-sdpa-fp16", A_CUDNN, 0, TETRA_DTYPE_FP16, 0, 1.0f, "fp16", 0)
ATTN_ARM(dnn_f16_c, "cudnn-sdpa-fp16-causal", A_CUDNN, 0, TETRA_DTYPE_FP16, 1, 1.0f, "fp16-causal", 0)
/* the Hopper kernel with its tile height pinned (D=64 takes 128 or 192 rows, D=128 only 128) */
ATTN_ARM_ROWS(sm90_rows128, "tetra-attention-rows128", A_TETRA, 3, TETRA_DTYPE_BF16, 0, 1.0f, "bf16", 0, 128)
ATTN_ARM_ROWS(sm90_rows192, "tetra-attention-rows192", A_TETRA, 3, TETRA_DTYPE_BF16, 0, 1.0f, "bf16", 0, 192)
ATTN_ARM(broken, "broken-attention", A_TETRA, 0, TETRA_DTYPE_BF16, 0, BROKEN_SCALE, "bf16", 1)
