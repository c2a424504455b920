"""tetra from Python through ctypes: the shared library loads, host functions work, and
a bad argument comes back as a status with a message naming it."""
import ctypes
import math
import random
import sys

lib = ctypes.CDLL(sys.argv[1])


class Matrix(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("data", ctypes.c_void_p), ("rows", ctypes.c_int64),
                ("cols", ctypes.c_int64), ("ld", ctypes.c_int64), ("batch", ctypes.c_int64),
                ("batch_stride", ctypes.c_int64), ("scales", ctypes.c_void_p),
                ("scale_layout", ctypes.c_int), ("scale_ld", ctypes.c_int64),
                ("scale_batch_stride", ctypes.c_int64), ("global_scale", ctypes.c_float),
                ("global_scale_dev", ctypes.c_void_p)]


FP32, NVFP4, LINEAR, FROM_AMAX = 0, 3, 0, 0
lib.tetra_last_error.restype = ctypes.c_char_p
lib.tetra_status_string.restype = ctypes.c_char_p
lib.tetra_e2m1_decode.restype = ctypes.c_float
lib.tetra_e2m1_encode.argtypes = [ctypes.c_float]
lib.tetra_e2m1_encode.restype = ctypes.c_uint8  # the ABI leaves a uint8_t's upper bits undefined

assert [lib.tetra_e2m1_decode(c) for c in range(8)] == [0, .5, 1, 1.5, 2, 3, 4, 6]
assert lib.tetra_e2m1_encode(2.5) == 4  # tie to even

rows, k = 4, 64
random.seed(3)
x = (ctypes.c_float * (rows * k))(*[random.gauss(0, 1) for _ in range(rows * k)])
y = (ctypes.c_float * (rows * k))()
q = (ctypes.c_uint8 * (rows * k // 2))()
s = (ctypes.c_uint8 * (rows * k // 16))()
src = Matrix(FP32, ctypes.cast(x, ctypes.c_void_p), rows, k, 0, 1, 0, None, 0, 0, 0, 0.0, None)
dst = Matrix(NVFP4, ctypes.cast(q, ctypes.c_void_p), rows, k, 0, 1, 0,
             ctypes.cast(s, ctypes.c_void_p), LINEAR, 0, 0, 0.0, None)
out = Matrix(FP32, ctypes.cast(y, ctypes.c_void_p), rows, k, 0, 1, 0, None, 0, 0, 0, 0.0, None)
assert lib.tetra_quantize_host(ctypes.byref(src), ctypes.byref(dst), FROM_AMAX) == 0
assert abs(dst.global_scale - max(abs(v) for v in x) / 2688) < 1e-9
assert lib.tetra_dequantize_host(ctypes.byref(dst), ctypes.byref(out)) == 0
err = math.sqrt(sum((a - b) ** 2 for a, b in zip(x, y)) / sum(a * a for a in x))
assert 0 < err < 0.15, err

bad = Matrix(NVFP4, ctypes.cast(q, ctypes.c_void_p), rows, 60, 0, 1, 0,
             ctypes.cast(s, ctypes.c_void_p), LINEAR, 0, 0, 1.0, None)
st = lib.tetra_quantize_host(ctypes.byref(src), ctypes.byref(bad), 1)
assert lib.tetra_status_string(st) == b"TETRA_ERR_INVALID_ARGUMENT", st
assert b"dst.cols" in lib.tetra_last_error(), lib.tetra_last_error()
print("python_ctypes: ok (round-trip normwise error %.3f)" % err)
