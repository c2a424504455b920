/* status.c - status strings and the per-thread last-error message. */
#include "internal.h"

#include <stdio.h>

static _Thread_local char last_error[512];

const char *tetra_status_string(tetra_status status) {
    switch (status) {
    case TETRA_OK: return "TETRA_OK";
    case TETRA_ERR_INVALID_ARGUMENT: return "TETRA_ERR_INVALID_ARGUMENT";
    case TETRA_ERR_UNSUPPORTED: return "TETRA_ERR_UNSUPPORTED";
    case TETRA_ERR_NO_DEVICE: return "TETRA_ERR_NO_DEVICE";
    case TETRA_ERR_CUDA: return "TETRA_ERR_CUDA";
    case TETRA_ERR_OUT_OF_MEMORY: return "TETRA_ERR_OUT_OF_MEMORY";
    case TETRA_ERR_NON_FINITE: return "TETRA_ERR_NON_FINITE";
    case TETRA_ERR_INTERNAL: return "TETRA_ERR_INTERNAL";
    }
    return "TETRA_ERR_UNKNOWN";
}

const char *tetra_last_error(void) { return last_error; }

const char *tetra_version(void) { return "0.1.0"; }

tetra_status tetra_fail(tetra_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

void tetra_clear_error(void) { last_error[0] = '\0'; }
