// cxx_header.cpp - tetra.h is usable from C++ (extern "C", no C-only constructs) and
// links against the C library.
#include <tetra.h>

#include <cstdio>
#include <cstring>

int main() {
    tetra_matrix m = tetra_matrix_dense(TETRA_DTYPE_FP32, nullptr, 1, 16);
    float out[16];
    tetra_matrix d = tetra_matrix_dense(TETRA_DTYPE_FP32, out, 1, 16);
    tetra_status st = tetra_dequantize_host(&m, &d);
    if (st != TETRA_ERR_INVALID_ARGUMENT || !std::strstr(tetra_last_error(), "src.data")) {
        std::fprintf(stderr, "unexpected: %s %s\n", tetra_status_string(st), tetra_last_error());
        return 1;
    }
    if (tetra_e2m1_encode(1.75f) != 4) return 1;
    std::printf("cxx_header: ok\n");
    return 0;
}
