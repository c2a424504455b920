/* context.c - device, stream and workspace; device queries for tools. */
#include "internal.h"
#include "../api/dispatch_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

static tetra_status cuda_fail(cudaError_t err, const char *what) {
    (void)cudaGetLastError();
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        return tetra_fail(TETRA_ERR_NO_DEVICE, "%s: no CUDA device (%s)", what,
                          cudaGetErrorString(err));
    if (err == cudaErrorMemoryAllocation)
        return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "%s: %s", what, cudaGetErrorString(err));
    return tetra_fail(TETRA_ERR_CUDA, "%s: %s", what, cudaGetErrorString(err));
}

tetra_status tetra_device_info_get(int device, tetra_device_info *info) {
    struct cudaDeviceProp prop;
    cudaError_t err;
    int count = 0;
    if (!info) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "info is NULL");
    memset(info, 0, sizeof *info);
    err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        if (err == cudaSuccess) return tetra_fail(TETRA_ERR_NO_DEVICE, "no CUDA device visible");
        return cuda_fail(err == cudaErrorInvalidDevice ? cudaErrorNoDevice : err,
                         "cudaGetDeviceCount");
    }
    if (device < 0 && (err = cudaGetDevice(&device)) != cudaSuccess)
        return cuda_fail(err, "cudaGetDevice");
    if (device >= count)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "device = %d but only %d visible", device,
                          count);
    if ((err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess)
        return cuda_fail(err, "cudaGetDeviceProperties");
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->major = prop.major;
    info->minor = prop.minor;
    info->sms = prop.multiProcessorCount;
    info->l2_bytes = (size_t)prop.l2CacheSize;
    info->global_bytes = prop.totalGlobalMem;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    return TETRA_OK;
}

tetra_status tetra_context_create(tetra_context **out, int device) {
    tetra_device_info info;
    tetra_context *ctx;
    tetra_status st;
    cudaError_t err;
    if (!out) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    *out = NULL;
    if (device < -1) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "device = %d < -1", device);
    if ((st = tetra_device_info_get(device, &info)) != TETRA_OK) return st;
    if (device < 0) cudaGetDevice(&device);
    if ((err = cudaSetDevice(device)) != cudaSuccess) return cuda_fail(err, "cudaSetDevice");
    ctx = (tetra_context *)calloc(1, sizeof *ctx);
    if (!ctx) return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "cannot allocate the context");
    ctx->device = device;
    ctx->sm_major = info.major;
    ctx->sm_minor = info.minor;
    ctx->sms = info.sms;
    ctx->l2_bytes = info.l2_bytes;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s", info.name);
    if ((ctx->dispatch = (tetra_dispatch_table *)calloc(1, sizeof *ctx->dispatch)) &&
        tetra_dispatch_builtin(ctx->device_name, ctx->dispatch)) {
        free(ctx->dispatch); /* no table for this GPU: the heuristics decide */
        ctx->dispatch = NULL;
    }
    *out = ctx;
    return TETRA_OK;
}

tetra_status tetra_context_destroy(tetra_context *ctx) {
    if (!ctx) return TETRA_OK;
    if (ctx->owns_workspace && ctx->workspace) cudaFree(ctx->workspace);
    if (ctx->stage) cudaFree(ctx->stage);
    tetra_dispatch_free(ctx->dispatch);
    free(ctx->dispatch);
    free(ctx);
    return TETRA_OK;
}

tetra_status tetra_context_load_dispatch_table(tetra_context *ctx, const char *path) {
    tetra_dispatch_table *t;
    char err[400];
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if (!(t = (tetra_dispatch_table *)calloc(1, sizeof *t)))
        return tetra_fail(TETRA_ERR_OUT_OF_MEMORY, "cannot allocate the dispatch table");
    if (path) {
        if (tetra_dispatch_load(path, t, err, sizeof err)) {
            free(t);
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "path: %s", err);
        }
        if (strcmp(t->device, ctx->device_name)) {
            tetra_status st = tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                                         "path: %s was tuned on '%s'; this context's GPU is '%s'", path,
                                         t->device, ctx->device_name);
            tetra_dispatch_free(t);
            free(t);
            return st;
        }
    } else if (tetra_dispatch_builtin(ctx->device_name, t)) {
        free(t);
        t = NULL;
    }
    tetra_dispatch_free(ctx->dispatch);
    free(ctx->dispatch);
    ctx->dispatch = t;
    return TETRA_OK;
}

const char *tetra_context_dispatch_table(const tetra_context *ctx) {
    if (!ctx || !ctx->dispatch) return "none";
    return ctx->dispatch->origin;
}

tetra_status tetra_context_set_stream(tetra_context *ctx, void *stream) {
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    ctx->stream = stream;
    return TETRA_OK;
}

void *tetra_context_stream(const tetra_context *ctx) { return ctx ? ctx->stream : NULL; }
int tetra_context_device(const tetra_context *ctx) { return ctx ? ctx->device : -1; }

tetra_status tetra_context_set_workspace(tetra_context *ctx, void *workspace, size_t bytes) {
    if (!ctx) return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "ctx is NULL");
    if (bytes && !workspace)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "workspace is NULL but bytes = %zu", bytes);
    if (workspace) {
        tetra_status st = tetra_check_device_ptr(workspace, "workspace");
        if (st != TETRA_OK) return st;
        if (!tetra_aligned(workspace, 256))
            return tetra_fail(TETRA_ERR_INVALID_ARGUMENT, "workspace is not 256-byte aligned");
    }
    if (ctx->owns_workspace && ctx->workspace) {
        cudaStreamSynchronize((cudaStream_t)ctx->stream);
        cudaFree(ctx->workspace);
    }
    ctx->workspace = workspace;
    ctx->workspace_bytes = bytes;
    ctx->owns_workspace = 0;
    return TETRA_OK;
}

/* Grow a context-owned device buffer to at least `bytes` (the workspace and the staging
 * buffer share this). */
static tetra_status grow_buffer(tetra_context *ctx, void **buf, size_t *have, size_t bytes, const char *what) {
    cudaError_t err;
    if (bytes <= *have) return TETRA_OK;
    if (*buf) {
        /* the old buffer may still be in use by queued work on this stream */
        cudaStreamSynchronize((cudaStream_t)ctx->stream);
        cudaFree(*buf);
        *buf = NULL;
        *have = 0;
    }
    if ((err = cudaMalloc(buf, bytes)) != cudaSuccess) return cuda_fail(err, what);
    *have = bytes;
    return TETRA_OK;
}

tetra_status tetra_context_workspace(tetra_context *ctx, size_t bytes, void **ptr) {
    tetra_status st;
    if (bytes > ctx->workspace_bytes && ctx->workspace && !ctx->owns_workspace)
        return tetra_fail(TETRA_ERR_INVALID_ARGUMENT,
                          "the workspace set by tetra_context_set_workspace holds %zu bytes; this "
                          "call needs %zu",
                          ctx->workspace_bytes, bytes);
    if (bytes > ctx->workspace_bytes) {
        if ((st = grow_buffer(ctx, &ctx->workspace, &ctx->workspace_bytes, bytes, "workspace cudaMalloc")) != TETRA_OK)
            return st;
        ctx->owns_workspace = 1;
    }
    *ptr = ctx->workspace;
    return TETRA_OK;
}

tetra_status tetra_context_stage(tetra_context *ctx, size_t bytes, void **ptr) {
    tetra_status st = grow_buffer(ctx, &ctx->stage, &ctx->stage_bytes, bytes, "staging buffer cudaMalloc");
    *ptr = ctx->stage;
    return st;
}
