/* NumPy .npy files: the format coil reads inputs from and saves results in.
 *
 * Reading accepts version 1.0/2.0/3.0 headers, little-endian (or
 * byte-order-free) dtypes '<f2' '<f4' '<f8' '<i4' '<i8' '|b1' (and '|u1' as
 * bool), C order only.  Big-endian data, Fortran order, truncated data and
 * malformed headers are errors, never a crash.
 *
 * Writing goes to a temporary file in the same directory and is renamed into
 * place, so a failed or interrupted write never leaves a half-written file.
 * bf16 data is written as an f32 array (NumPy has no bfloat16). */
#ifndef COIL_NPY_H
#define COIL_NPY_H

#include "coil.h"

#define NPY_MAX_DIMS 16

typedef struct NpyArray {
  DType dtype;
  int ndim;
  int64_t shape[NPY_MAX_DIMS];
  int64_t numel;
  void *data; /* malloc'd, C order, elements stored as dtype_c_storage() */
} NpyArray;

/* Read path into *out.  On error returns a CoilErr naming the file. */
CoilErr *npy_read(const char *path, NpyArray *out);

/* Convert a in place to dtype `to` (f32 -> bf16 rounds to nearest even,
 * float -> int truncates as NumPy's astype does, anything -> bool is != 0). */
CoilErr *npy_convert(NpyArray *a, DType to);

/* Write an array; data holds numel elements of dtype's C storage. */
CoilErr *npy_write(const char *path, DType dtype, int ndim,
                   const int64_t *shape, const void *data);

void npy_free(NpyArray *a);

#endif
