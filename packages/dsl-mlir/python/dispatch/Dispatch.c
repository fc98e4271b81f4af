/*===- Dispatch.c - the per-call fast path of JIT-compiled functions ------===*
 *
 * dsl_mlir._dispatch.PackedKernel calls a function through MLIR's packed
 * interface (`void _mlir__mlir_ciface_<name>(void **args)`), marshalling
 * numpy arrays (any object exporting a strided buffer) into memref
 * descriptors and Python numbers into scalars, with every check done here:
 * element type, rank, static sizes, dynamic sizes bound consistently by
 * name, C-contiguity and writability. The plan is compiled once per kernel.
 *
 * Outputs never alias inputs as the compiled code sees them: an output that
 * shares memory with an input is computed into a temporary and copied into
 * the output after the call (numpy's rule: `np.matmul(a, b, out=a)` is
 * right); two outputs sharing memory are refused (ValueError). With
 * `check_inputs`, every input buffer is snapshotted before the call and an
 * input that changed is a RuntimeError after it (the DSL_CHECK_INPUTS knob).
 *
 * A K_RAW slot is filled in Python (the protocol fill of a user-registered
 * argument type, dsl-core's `__c_abi_spec__`): the argument is the address of
 * the filled storage, which becomes `args[i]` as it is.
 *
 * Run-time checks of the compiled code (offsets and sizes of tensor ops,
 * kernel element accesses under boundscheck) report through the error hook
 * below, whose address the loader stores in the module's `__dsl_error_hook`
 * global; after each call the recorded error becomes IndexError/ValueError.
 *
 *===----------------------------------------------------------------------===*/

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* CPython 3.10 has the half-float packer under its older private name. */
#if PY_VERSION_HEX < 0x030B0000
#define PyFloat_Pack2(x, p, le) _PyFloat_Pack2((x), (unsigned char *)(p), (le))
#endif

#define MAX_RANK 8
#define MAX_ARGS 64
#define MAX_SYMS 32

enum SlotKind {
  K_MEMREF = 0, K_I64, K_I32, K_I16, K_I8, K_BOOL, K_F64, K_F32, K_F16, K_BF16,
  K_U64, K_U32, K_U16, K_U8, K_PTR, K_RAW, K_COUNT
};

typedef struct {
  int kind;
  int writable;         /* memref: output buffer */
  char format;          /* memref: struct-module format char of the element */
  int ndim;
  int64_t dims[MAX_RANK]; /* >= 0 static size, < 0: dynamic symbol -(id+1) */
  PyObject *name;       /* parameter name for messages */
  const char *dtype;    /* element type name for messages */
} Slot;

typedef struct {
  PyObject_HEAD
  void (*fn)(void **);
  Py_ssize_t nslots;
  Slot slots[MAX_ARGS];
  PyObject *symnames; /* tuple of dynamic dimension names */
  PyObject *fname;
  int64_t gil_threshold;
  int noutputs;     /* memref slots that are outputs (writable) */
  int check_inputs; /* snapshot inputs, raise if a call changed one */
  /* device mode (NVPTX backend): memrefs come from __cuda_array_interface__ and
   * the GPU runtime's pending error is read after each call. */
  size_t (*take_error)(char *, size_t);
  vectorcallfunc vectorcall;
} PackedKernel;

static PyObject *g_cai_name; /* "__cuda_array_interface__" */

typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t rest[2 * MAX_RANK]; /* sizes then strides */
} Descriptor;

static const char *format_name(char f) {
  switch (f) {
  case 'f': return "float32"; case 'd': return "float64"; case 'e': return "float16";
  case 'b': return "int8"; case 'B': return "uint8"; case 'h': return "int16";
  case 'H': return "uint16"; case 'i': return "int32"; case 'I': return "uint32";
  case 'l': case 'q': return "int64"; case 'L': case 'Q': return "uint64";
  case '?': return "bool";
  default: return "unknown";
  }
}

/* Normalize a buffer format ("<f", "=f", "f") to its single type char. */
static char format_char(const char *fmt) {
  if (!fmt) return 'B';
  while (*fmt == '<' || *fmt == '=' || *fmt == '@' || *fmt == '!') ++fmt;
  if (fmt[0] == '\0' || fmt[1] != '\0') return '\0';
  char c = fmt[0];
  if (c == 'q') return 'l';
  if (c == 'Q') return 'L';
  return c;
}

static int itemsize_of(char f) {
  switch (f) {
  case 'd': case 'l': case 'L': return 8;
  case 'f': case 'i': case 'I': return 4;
  case 'e': case 'h': case 'H': return 2;
  default: return 1;
  }
}

/*--- the error hook of compiled code ------------------------------------------*/

#define ERROR_TEXT 1024

/* The first error of the current call on this thread: kind char + text. The
 * dispatcher marks the threads running a call (t_calls); code running on other
 * threads (the async runtime's workers under `parallel`) records into the
 * process-wide slot, read by the next check on any thread. */
static _Thread_local int t_calls;
static _Thread_local int t_has_error;
static _Thread_local char t_error[ERROR_TEXT];
static atomic_int g_claimed, g_pending;
static char g_error[ERROR_TEXT];

/* `message` with {0}..{3} replaced by the values (no printf: the text comes
 * from compiled code). */
static void format_error(char *dst, const char *message, const int64_t values[4]) {
  size_t n = 0;
  for (const char *p = message; *p && n + 24 < ERROR_TEXT; ++p) {
    if (p[0] == '{' && p[1] >= '0' && p[1] <= '3' && p[2] == '}') {
      n += (size_t)snprintf(dst + n, ERROR_TEXT - n, "%lld", (long long)values[p[1] - '0']);
      p += 2;
    } else {
      dst[n++] = *p;
    }
  }
  dst[n] = 0;
}

/* void hook(const char *message, int64_t v0, int64_t v1, int64_t v2, int64_t v3) */
static void dsl_error_hook(const char *message, int64_t v0, int64_t v1, int64_t v2,
                           int64_t v3) {
  const int64_t values[4] = {v0, v1, v2, v3};
  if (!message) return;
  if (t_calls > 0) {
    if (!t_has_error) {
      format_error(t_error, message, values);
      t_has_error = 1;
    }
    return;
  }
  if (atomic_exchange(&g_claimed, 1) == 0) {
    format_error(g_error, message, values);
    atomic_store(&g_pending, 1);
  }
}

/* Takes the pending error (this thread's, else the process-wide one) into
 * `out`; returns 1 if there was one. */
static int take_error_text(char *out) {
  if (t_has_error) {
    memcpy(out, t_error, ERROR_TEXT);
    t_has_error = 0;
    return 1;
  }
  if (atomic_load(&g_pending)) {
    memcpy(out, g_error, ERROR_TEXT);
    atomic_store(&g_pending, 0);
    atomic_store(&g_claimed, 0);
    return 1;
  }
  return 0;
}

/* Raises the pending error of compiled code, if any: -1 with an exception set. */
static int raise_pending(PyObject *fname) {
  char text[ERROR_TEXT];
  if (!take_error_text(text)) return 0;
  PyObject *type = text[0] == 'V'   ? PyExc_ValueError
                   : text[0] == 'Z' ? PyExc_ZeroDivisionError
                                    : PyExc_IndexError;
  const char *body = text[0] ? text + 1 : text;
  if (fname)
    PyErr_Format(type, "%U: %s", fname, body);
  else
    PyErr_SetString(type, body);
  return -1;
}

static PyObject *py_error_hook_address(PyObject *self, PyObject *unused) {
  return PyLong_FromVoidPtr((void *)dsl_error_hook);
}

static PyObject *py_raise_pending_error(PyObject *self, PyObject *unused) {
  if (raise_pending(NULL) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *py_clear_pending_error(PyObject *self, PyObject *unused) {
  char text[ERROR_TEXT];
  while (take_error_text(text)) {}
  Py_RETURN_NONE;
}

/*--- scalars ---------------------------------------------------------------*/

typedef union { int64_t i64; uint64_t u64; double f64; float f32; uint16_t u16;
                int32_t i32; int16_t i16; int8_t i8; uint8_t u8; void *ptr; } Scalar;

static int int_value_in_range(PackedKernel *k, Slot *s, PyObject *arg, long long lo,
                              unsigned long long hi, int is_unsigned, Scalar *out);

/* An array of rank >= 1 (numpy arrays have __index__/__float__ for one element):
 * never a scalar argument. Only asked of objects that are not int or float. */
static int has_dimensions(PyObject *arg) {
  PyObject *ndim = PyObject_GetAttrString(arg, "ndim");
  if (!ndim) {
    PyErr_Clear();
    return 0;
  }
  long n = PyLong_Check(ndim) ? PyLong_AsLong(ndim) : 0;
  Py_DECREF(ndim);
  if (n == -1 && PyErr_Occurred()) PyErr_Clear();
  return n > 0;
}

/* An integer argument: a Python int or an object with __index__ (numpy integer
 * scalars), never a float; `lo..hi` the range of the slot's type. */
static int int_in_range(PackedKernel *k, Slot *s, PyObject *arg, long long lo,
                        unsigned long long hi, int is_unsigned, Scalar *out) {
  PyObject *owned = NULL; /* a numpy integer scalar (or any __index__ object) as an int */
  if (!PyLong_Check(arg)) {
    if (PyFloat_Check(arg) || !PyIndex_Check(arg) || has_dimensions(arg)) {
      PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects an integer (%s), got %s",
                   k->fname, s->name, s->dtype, Py_TYPE(arg)->tp_name);
      return -1;
    }
    owned = PyNumber_Index(arg);
    if (!owned) return -1;
    arg = owned;
  }
  int rc = int_value_in_range(k, s, arg, lo, hi, is_unsigned, out);
  Py_XDECREF(owned);
  return rc;
}

static int int_value_in_range(PackedKernel *k, Slot *s, PyObject *arg, long long lo,
                              unsigned long long hi, int is_unsigned, Scalar *out) {
  int overflow = 0;
  if (is_unsigned) {
    unsigned long long v = PyLong_AsUnsignedLongLong(arg);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) overflow = 1;
    else if (v > hi) overflow = 1;
    else out->u64 = v;
  } else {
    long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (!overflow && (v < lo || (v > 0 && (unsigned long long)v > hi))) overflow = 1;
    else out->i64 = v;
  }
  if (overflow) {
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "%U: argument '%U' = %R does not fit in %s",
                 k->fname, s->name, arg, s->dtype);
    return -1;
  }
  return 0;
}

/* numpy.bool_ (no __index__, not an int): accepted for bool parameters. */
static int is_numpy_bool(PyObject *arg) {
  const char *name = Py_TYPE(arg)->tp_name;
  return strcmp(name, "numpy.bool") == 0 || strcmp(name, "numpy.bool_") == 0;
}

static uint16_t to_bf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40); /* quiet NaN */
  bits += 0x7fffu + ((bits >> 16) & 1u); /* round to nearest even */
  return (uint16_t)(bits >> 16);
}

static int marshal_scalar(PackedKernel *k, Slot *s, PyObject *arg, Scalar *out) {
  switch (s->kind) {
  case K_I64: return int_in_range(k, s, arg, INT64_MIN, INT64_MAX, 0, out);
  case K_I32: if (int_in_range(k, s, arg, INT32_MIN, INT32_MAX, 0, out)) return -1;
    out->i32 = (int32_t)out->i64; return 0;
  case K_I16: if (int_in_range(k, s, arg, INT16_MIN, INT16_MAX, 0, out)) return -1;
    out->i16 = (int16_t)out->i64; return 0;
  case K_I8: if (int_in_range(k, s, arg, INT8_MIN, INT8_MAX, 0, out)) return -1;
    out->i8 = (int8_t)out->i64; return 0;
  case K_U64: return int_in_range(k, s, arg, 0, UINT64_MAX, 1, out);
  case K_U32: if (int_in_range(k, s, arg, 0, UINT32_MAX, 1, out)) return -1;
    { uint32_t v = (uint32_t)out->u64; out->i32 = (int32_t)v; } return 0;
  case K_U16: if (int_in_range(k, s, arg, 0, UINT16_MAX, 1, out)) return -1;
    out->u16 = (uint16_t)out->u64; return 0;
  case K_U8: if (int_in_range(k, s, arg, 0, UINT8_MAX, 1, out)) return -1;
    out->u8 = (uint8_t)out->u64; return 0;
  case K_BOOL:
    if (!PyBool_Check(arg) && !PyLong_Check(arg) && !is_numpy_bool(arg)) {
      PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects a bool, got %s", k->fname,
                   s->name, Py_TYPE(arg)->tp_name);
      return -1;
    }
    { int t = PyObject_IsTrue(arg); if (t < 0) return -1; out->u8 = (uint8_t)t; }
    return 0;
  case K_PTR:
    if (arg == Py_None) { out->ptr = NULL; return 0; }
    out->ptr = PyLong_AsVoidPtr(arg);
    if (!out->ptr && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects a pointer-sized integer handle, got %s",
                   k->fname, s->name, Py_TYPE(arg)->tp_name);
      return -1;
    }
    return 0;
  default: break;
  }
  /* floats accept Python floats and ints, and numpy scalars (objects with __float__
   * or __index__: np.float32, np.int64, ...) but not strings, None or arrays */
  PyNumberMethods *nb = Py_TYPE(arg)->tp_as_number;
  if (!PyFloat_Check(arg) && !PyLong_Check(arg) &&
      (!nb || (!nb->nb_float && !nb->nb_index) || has_dimensions(arg))) {
    PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects a number (%s), got %s", k->fname,
                 s->name, s->dtype, Py_TYPE(arg)->tp_name);
    return -1;
  }
  double v = PyFloat_AsDouble(arg);
  if (v == -1.0 && PyErr_Occurred()) return -1;
  switch (s->kind) {
  case K_F64: out->f64 = v; return 0;
  case K_F32: out->f32 = (float)v; return 0;
  case K_F16: {
    unsigned char b[2];
    if (PyFloat_Pack2(v, (char *)b, 1) < 0) return -1;
    memcpy(&out->u16, b, 2);
    return 0;
  }
  case K_BF16: out->u16 = to_bf16((float)v); return 0;
  }
  PyErr_SetString(PyExc_SystemError, "dsl_mlir._dispatch: bad slot kind");
  return -1;
}

/*--- memrefs ---------------------------------------------------------------*/

/* Size `n` of dimension `i` of slot `s`: the static size, or consistent with
 * the other arguments binding the same dynamic dimension (bound here). */
static int check_dim(PackedKernel *k, Slot *s, int i, int64_t n, int64_t *syms, int *bound) {
  int64_t want = s->dims[i];
  if (want >= 0 && n != want) {
    PyErr_Format(PyExc_ValueError, "%U: argument '%U' expects size %lld in dimension %d, got %lld",
                 k->fname, s->name, (long long)want, i, (long long)n);
    return -1;
  }
  if (want < 0) {
    int sym = (int)(-want - 1);
    if (bound[sym] && syms[sym] != n) {
      PyErr_Format(PyExc_ValueError,
                   "%U: dynamic dimension '%U' is bound to %lld by an earlier argument but "
                   "argument '%U' has %lld in dimension %d",
                   k->fname, PyTuple_GET_ITEM(k->symnames, sym), (long long)syms[sym], s->name,
                   (long long)n, i);
      return -1;
    }
    syms[sym] = n;
    bound[sym] = 1;
  }
  return 0;
}

static int marshal_memref(PackedKernel *k, Slot *s, PyObject *arg, Py_buffer *view,
                          Descriptor *d, int64_t *syms, int *bound) {
  int flags = PyBUF_STRIDES | PyBUF_FORMAT | (s->writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(arg, view, flags) < 0) {
    PyErr_Clear();
    if (s->writable && PyObject_CheckBuffer(arg))
      PyErr_Format(PyExc_ValueError, "%U: output '%U' is read-only", k->fname, s->name);
    else
      PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects a %dD %s array, got %s",
                   k->fname, s->name, s->ndim, s->dtype, Py_TYPE(arg)->tp_name);
    return -1;
  }
  if (view->ndim == 0 && s->ndim > 0) { /* a numpy scalar or a 0-d array */
    PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects a %dD %s array, got a 0-d %s",
                 k->fname, s->name, s->ndim, s->dtype, Py_TYPE(arg)->tp_name);
    goto fail;
  }
  char f = format_char(view->format);
  if (f != s->format) {
    PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects element type %s, got %s",
                 k->fname, s->name, s->dtype, format_name(f));
    goto fail;
  }
  if (view->ndim != s->ndim) {
    PyErr_Format(PyExc_ValueError, "%U: argument '%U' expects rank %d, got rank %d",
                 k->fname, s->name, s->ndim, view->ndim);
    goto fail;
  }
  int64_t expect = itemsize_of(f);
  for (int i = s->ndim - 1; i >= 0; --i) {
    int64_t n = view->shape[i];
    if (check_dim(k, s, i, n, syms, bound) < 0) goto fail;
    if (n > 1 && view->strides[i] != expect) {
      PyErr_Format(PyExc_ValueError,
                   "%U: argument '%U' is not C-contiguous (strides are not those of a dense "
                   "row-major array); pass numpy.ascontiguousarray(...) of it",
                   k->fname, s->name);
      goto fail;
    }
    d->rest[i] = n;
    d->rest[s->ndim + i] = expect / itemsize_of(f);
    expect *= n;
  }
  d->allocated = view->buf;
  d->aligned = view->buf;
  d->offset = 0;
  return 0;
fail:
  PyBuffer_Release(view);
  view->obj = NULL;
  return -1;
}

/* The typestr kind+size of a format char ("f4" for 'f'); NULL if unknown. */
static const char *typestr_of(char f) {
  switch (f) {
  case 'f': return "f4"; case 'd': return "f8"; case 'e': return "f2"; case 'b': return "i1";
  case 'B': return "u1"; case 'h': return "i2"; case 'H': return "u2"; case 'i': return "i4";
  case 'I': return "u4"; case 'l': return "i8"; case 'L': return "u8"; case '?': return "b1";
  default: return NULL;
  }
}

static int64_t item_of(PyObject *seq, Py_ssize_t i) {
  PyObject *o = PySequence_GetItem(seq, i);
  if (!o) return -1;
  int64_t v = PyLong_AsLongLong(o);
  Py_DECREF(o);
  return v;
}

/* A memref descriptor of device memory from an object's __cuda_array_interface__. */
static int marshal_device_memref(PackedKernel *k, Slot *s, PyObject *arg, Descriptor *d,
                                 int64_t *syms, int *bound) {
  PyObject *iface = PyObject_GetAttr(arg, g_cai_name);
  if (!iface || !PyDict_Check(iface)) {
    Py_XDECREF(iface);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "%U: argument '%U' must be a GPU array (an object with __cuda_array_interface__, "
                 "e.g. dsl_runtime.DeviceArray.from_numpy(x)), got %s",
                 k->fname, s->name, Py_TYPE(arg)->tp_name);
    return -1;
  }
  int rc = -1;
  PyObject *typestr = PyDict_GetItemString(iface, "typestr");
  PyObject *shape = PyDict_GetItemString(iface, "shape");
  PyObject *data = PyDict_GetItemString(iface, "data");
  PyObject *strides = PyDict_GetItemString(iface, "strides");
  const char *ts = typestr && PyUnicode_Check(typestr) ? PyUnicode_AsUTF8(typestr) : NULL;
  const char *want_ts = typestr_of(s->format);
  if (!ts || !shape || !data || !PyTuple_Check(shape) || !PyTuple_Check(data)) {
    PyErr_Format(PyExc_TypeError, "%U: argument '%U' has a malformed __cuda_array_interface__",
                 k->fname, s->name);
    goto done;
  }
  if (!want_ts || strlen(ts) != 3 || strcmp(ts + 1, want_ts) != 0) {
    PyErr_Format(PyExc_TypeError, "%U: argument '%U' expects element type %s, got typestr %s",
                 k->fname, s->name, s->dtype, ts);
    goto done;
  }
  if (PyTuple_GET_SIZE(shape) != s->ndim) {
    PyErr_Format(PyExc_ValueError, "%U: argument '%U' expects rank %d, got rank %zd", k->fname,
                 s->name, s->ndim, PyTuple_GET_SIZE(shape));
    goto done;
  }
  int64_t item = itemsize_of(s->format), expect = 1;
  int has_strides = strides && strides != Py_None;
  for (int i = s->ndim - 1; i >= 0; --i) {
    int64_t n = item_of(shape, i);
    if (n < 0) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "negative size"); goto done; }
    if (check_dim(k, s, i, n, syms, bound) < 0) goto done;
    if (has_strides && n > 1 && item_of(strides, i) != expect * item) {
      PyErr_Format(PyExc_ValueError, "%U: argument '%U' is not C-contiguous on the device",
                   k->fname, s->name);
      goto done;
    }
    d->rest[i] = n;
    d->rest[s->ndim + i] = expect;
    expect *= n;
  }
  void *ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
  if (!ptr && PyErr_Occurred()) goto done;
  d->allocated = d->aligned = ptr;
  d->offset = 0;
  rc = 0;
done:
  Py_DECREF(iface);
  return rc;
}

/* After a device call: raise the GPU runtime's pending error, if any. */
static int check_device_error(PackedKernel *k) {
  char message[4096];
  size_t n = k->take_error(message, sizeof message);
  if (!n) return 0;
  PyErr_Format(PyExc_RuntimeError, "%U: %s", k->fname, message);
  return -1;
}

/* Memory shared by two buffers (empty buffers share nothing). */
static int overlaps(const Py_buffer *a, const Py_buffer *b) {
  const char *a0 = a->buf, *b0 = b->buf;
  return a->len > 0 && b->len > 0 && a0 < b0 + b->len && b0 < a0 + a->len;
}

/* Per call: the host buffers of the memref slots, and what the call adds. */
typedef struct {
  Py_buffer views[MAX_ARGS];
  Py_ssize_t slot[MAX_ARGS]; /* slot index of each view */
  void *temp[MAX_ARGS];      /* output computed into a temporary (shares memory with an input) */
  void *snap[MAX_ARGS];      /* check_inputs: the input's bytes before the call */
  Py_ssize_t n;
} Buffers;

static void release_buffers(Buffers *b) {
  for (Py_ssize_t i = 0; i < b->n; ++i) {
    free(b->temp[i]);
    free(b->snap[i]);
    PyBuffer_Release(&b->views[i]);
  }
}

static void *alloc_aligned(Py_ssize_t len) {
  void *p = NULL;
  if (posix_memalign(&p, 64, (size_t)len) != 0) return NULL;
  return p;
}

/* Route outputs that share memory with an input through a temporary; refuse
 * outputs that share memory with each other. */
static int route_outputs(PackedKernel *k, Buffers *b, Descriptor *descs) {
  for (Py_ssize_t i = 0; i < b->n; ++i) {
    Slot *o = &k->slots[b->slot[i]];
    if (!o->writable) continue;
    int with_input = 0;
    for (Py_ssize_t j = 0; j < b->n; ++j) {
      if (j == i || !overlaps(&b->views[i], &b->views[j])) continue;
      Slot *other = &k->slots[b->slot[j]];
      if (other->writable) {
        PyErr_Format(PyExc_ValueError,
                     "%U: outputs '%U' and '%U' share memory; pass a separate array for each "
                     "result", k->fname, o->name, other->name);
        return -1;
      }
      with_input = 1;
    }
    if (!with_input) continue;
    b->temp[i] = alloc_aligned(b->views[i].len);
    if (!b->temp[i]) { PyErr_NoMemory(); return -1; }
    descs[b->slot[i]].allocated = descs[b->slot[i]].aligned = b->temp[i];
  }
  return 0;
}

static int snapshot_inputs(PackedKernel *k, Buffers *b) {
  for (Py_ssize_t i = 0; i < b->n; ++i) {
    if (k->slots[b->slot[i]].writable || b->views[i].len == 0) continue;
    b->snap[i] = malloc((size_t)b->views[i].len);
    if (!b->snap[i]) { PyErr_NoMemory(); return -1; }
    memcpy(b->snap[i], b->views[i].buf, (size_t)b->views[i].len);
  }
  return 0;
}

/* After the call: compare the inputs with their snapshots, then copy the
 * temporaries into their outputs (which may legitimately be inputs too). */
static int finish_call(PackedKernel *k, Buffers *b) {
  int rc = 0;
  for (Py_ssize_t i = 0; i < b->n && k->check_inputs; ++i) {
    if (b->snap[i] && memcmp(b->snap[i], b->views[i].buf, (size_t)b->views[i].len) != 0) {
      PyErr_Format(PyExc_RuntimeError,
                   "%U: the call modified its input '%U' (DSL_CHECK_INPUTS): a compiled "
                   "function must write only its outputs", k->fname, k->slots[b->slot[i]].name);
      rc = -1;
      break;
    }
  }
  for (Py_ssize_t i = 0; i < b->n; ++i)
    if (b->temp[i]) memcpy(b->views[i].buf, b->temp[i], (size_t)b->views[i].len);
  return rc;
}

static PyObject *kernel_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames) {
  PackedKernel *k = (PackedKernel *)self;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    PyErr_Format(PyExc_TypeError, "%U: the prepared call takes positional arguments only", k->fname);
    return NULL;
  }
  if (nargs != k->nslots) {
    PyErr_Format(PyExc_TypeError, "%U: expected %zd arguments (inputs then outputs), got %zd",
                 k->fname, k->nslots, nargs);
    return NULL;
  }
  Buffers b;
  Descriptor descs[MAX_ARGS];
  void *descptrs[MAX_ARGS];
  Scalar scalars[MAX_ARGS];
  void *packed[MAX_ARGS];
  int64_t syms[MAX_SYMS];
  int bound[MAX_SYMS] = {0};
  b.n = 0;
  int64_t elements = 0;
  int rc = 0;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    Slot *s = &k->slots[i];
    if (s->kind == K_MEMREF && k->take_error) {
      if (marshal_device_memref(k, s, args[i], &descs[i], syms, bound) < 0) goto fail;
      descptrs[i] = &descs[i];
      packed[i] = &descptrs[i];
    } else if (s->kind == K_MEMREF) {
      if (marshal_memref(k, s, args[i], &b.views[b.n], &descs[i], syms, bound) < 0) goto fail;
      elements += b.views[b.n].len;
      b.slot[b.n] = i;
      b.temp[b.n] = b.snap[b.n] = NULL;
      ++b.n;
      descptrs[i] = &descs[i];
      packed[i] = &descptrs[i];
    } else if (s->kind == K_RAW) {
      void *p = PyLong_Check(args[i]) ? PyLong_AsVoidPtr(args[i]) : NULL;
      if (!p) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%U: slot '%U' expects the address of its filled "
                     "storage, got %s", k->fname, s->name, Py_TYPE(args[i])->tp_name);
        goto fail;
      }
      packed[i] = p;
    } else {
      if (marshal_scalar(k, s, args[i], &scalars[i]) < 0) goto fail;
      packed[i] = &scalars[i];
    }
  }
  if (k->noutputs && route_outputs(k, &b, descs) < 0) goto fail;
  if (k->check_inputs && snapshot_inputs(k, &b) < 0) goto fail;
  ++t_calls;
  if (elements >= k->gil_threshold) {
    Py_BEGIN_ALLOW_THREADS
    k->fn(packed);
    Py_END_ALLOW_THREADS
  } else {
    k->fn(packed);
  }
  --t_calls;
  /* A failed run-time check comes first: the outputs hold nothing usable. */
  if ((t_has_error || atomic_load_explicit(&g_pending, memory_order_relaxed)) &&
      raise_pending(k->fname) < 0)
    goto fail;
  if (k->noutputs || k->check_inputs) rc = finish_call(k, &b);
  release_buffers(&b);
  if (rc < 0) return NULL;
  if (k->take_error && check_device_error(k) < 0) return NULL;
  Py_RETURN_NONE;
fail:
  release_buffers(&b);
  return NULL;
}

/*--- construction ------------------------------------------------------------*/

static const char *kind_dtype(int kind) {
  static const char *names[K_COUNT] = {"memref", "int64", "int32", "int16", "int8", "bool",
                                       "float64", "float32", "float16", "bfloat16", "uint64",
                                       "uint32", "uint16", "uint8", "pointer", "raw"};
  return names[kind];
}

static int parse_slot(PackedKernel *k, Slot *s, PyObject *spec) {
  /* spec: (name, kind, format, dims, writable) */
  PyObject *name, *fmt, *dims;
  int kind, writable;
  if (!PyArg_ParseTuple(spec, "UiUOp", &name, &kind, &fmt, &dims, &writable)) return -1;
  if (kind < 0 || kind >= K_COUNT) {
    PyErr_Format(PyExc_ValueError, "slot %R: unknown kind %d", name, kind);
    return -1;
  }
  s->kind = kind;
  s->writable = writable;
  s->name = Py_NewRef(name);
  s->dtype = kind_dtype(kind);
  if (kind != K_MEMREF) return 0;
  const char *f = PyUnicode_AsUTF8(fmt);
  if (!f) return -1;
  s->format = format_char(f);
  s->dtype = format_name(s->format);
  PyObject *seq = PySequence_Fast(dims, "dims must be a sequence");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > MAX_RANK) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "slot %R: rank %zd exceeds the supported %d", name, n, MAX_RANK);
    return -1;
  }
  s->ndim = (int)n;
  for (Py_ssize_t i = 0; i < n; ++i) {
    long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (v == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
    if (v < 0 && (-v - 1) >= PyTuple_GET_SIZE(k->symnames)) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_ValueError, "slot %R: dynamic symbol %lld out of range", name, -v - 1);
      return -1;
    }
    s->dims[i] = v;
  }
  Py_DECREF(seq);
  return 0;
}

static int kernel_init(PyObject *self, PyObject *args, PyObject *kw) {
  PackedKernel *k = (PackedKernel *)self;
  static char *kwlist[] = {"address", "slots", "symbols", "name", "gil_threshold",
                           "device_error", "check_inputs", NULL};
  PyObject *addr, *slots, *symbols, *name, *device_error = Py_None;
  long long threshold = 1 << 16;
  int check_inputs = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO!U|LOp", kwlist, &addr, &slots, &PyTuple_Type,
                                   &symbols, &name, &threshold, &device_error, &check_inputs))
    return -1;
  k->take_error = NULL;
  if (device_error != Py_None) {
    /* address of `size_t take_error(char *, size_t)`: device mode */
    k->take_error = (size_t (*)(char *, size_t))PyLong_AsVoidPtr(device_error);
    if (!k->take_error) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "PackedKernel: null device_error");
      return -1;
    }
  }
  void *fn = PyLong_AsVoidPtr(addr);
  if (!fn) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "PackedKernel: null function address");
    return -1;
  }
  if (PyTuple_GET_SIZE(symbols) > MAX_SYMS) {
    PyErr_Format(PyExc_ValueError, "PackedKernel: at most %d dynamic dimensions", MAX_SYMS);
    return -1;
  }
  PyObject *seq = PySequence_Fast(slots, "slots must be a sequence");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > MAX_ARGS) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "PackedKernel: at most %d parameters, got %zd", MAX_ARGS, n);
    return -1;
  }
  k->fn = (void (*)(void **))fn;
  k->symnames = Py_NewRef(symbols);
  k->fname = Py_NewRef(name);
  k->gil_threshold = threshold;
  k->noutputs = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (parse_slot(k, &k->slots[i], PySequence_Fast_GET_ITEM(seq, i)) < 0) {
      Py_DECREF(seq);
      return -1;
    }
    k->nslots = i + 1;
    k->noutputs += k->slots[i].kind == K_MEMREF && k->slots[i].writable;
  }
  /* device memory is neither compared nor copied here */
  if (k->take_error) k->noutputs = 0;
  k->check_inputs = check_inputs && !k->take_error;
  Py_DECREF(seq);
  k->vectorcall = kernel_vectorcall;
  return 0;
}

static void kernel_dealloc(PyObject *self) {
  PackedKernel *k = (PackedKernel *)self;
  for (Py_ssize_t i = 0; i < k->nslots; ++i) Py_XDECREF(k->slots[i].name);
  Py_XDECREF(k->symnames);
  Py_XDECREF(k->fname);
  Py_TYPE(self)->tp_free(self);
}

static PyObject *kernel_call(PyObject *self, PyObject *args, PyObject *kw) {
  return PyVectorcall_Call(self, args, kw);
}

static PyObject *kernel_get_nslots(PyObject *self, void *unused) {
  return PyLong_FromSsize_t(((PackedKernel *)self)->nslots);
}

static PyObject *kernel_get_check_inputs(PyObject *self, void *unused) {
  return PyBool_FromLong(((PackedKernel *)self)->check_inputs);
}

static PyGetSetDef kernel_getset[] = {
    {"nslots", kernel_get_nslots, NULL, "number of packed arguments", NULL},
    {"check_inputs", kernel_get_check_inputs, NULL,
     "whether each call checks that it left its inputs unchanged", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject PackedKernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dsl_mlir._dispatch.PackedKernel",
    .tp_basicsize = sizeof(PackedKernel),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "PackedKernel(address, slots, symbols, name, gil_threshold=65536, device_error=None,\n"
              "             check_inputs=False)\n\n"
              "Calls `void f(void **)` (MLIR's packed interface) with marshalled arguments.\n"
              "An output sharing memory with an input is computed into a temporary and copied\n"
              "into it after the call; outputs sharing memory with each other are a ValueError.\n"
              "check_inputs: snapshot the host inputs, RuntimeError if the call changed one.\n"
              "device_error: address of the GPU runtime's dslGpuTakeError; memrefs are then\n"
              "device arrays (__cuda_array_interface__) and a pending GPU error is raised\n"
              "as RuntimeError after the call.",
    .tp_new = PyType_GenericNew,
    .tp_init = kernel_init,
    .tp_dealloc = kernel_dealloc,
    .tp_call = kernel_call,
    .tp_vectorcall_offset = offsetof(PackedKernel, vectorcall),
    .tp_getset = kernel_getset,
};

/*--- Dispatcher: the @jit entry -------------------------------------------*/

/* Dispatcher(impl): calls of a @jit function. When the function has a single
 * specialization, `f(*args, out=z)` goes straight to its PackedKernel; every
 * other call (and a TypeError of the kernel, e.g. a DLPack tensor to adapt)
 * goes to `impl(*args, **kwargs)`. Attributes not set on the dispatcher are
 * looked up on `impl`. */
typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject *impl;
  PyObject *kernel; /* NULL until a single specialization exists */
  PyObject *dict;
} Dispatcher;

static PyObject *str_out;

static PyObject *dispatcher_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                       PyObject *kwnames) {
  Dispatcher *d = (Dispatcher *)self;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (d->kernel && kwnames && PyTuple_GET_SIZE(kwnames) == 1 && nargs < MAX_ARGS &&
      (PyTuple_GET_ITEM(kwnames, 0) == str_out ||
       PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), str_out) == 0)) {
    PyObject *out = args[nargs];
    PyObject *stack[MAX_ARGS];
    Py_ssize_t n = nargs;
    memcpy(stack, args, nargs * sizeof(PyObject *));
    if (PyTuple_CheckExact(out)) {
      Py_ssize_t k = PyTuple_GET_SIZE(out);
      if (n + k > MAX_ARGS) goto slow;
      for (Py_ssize_t i = 0; i < k; ++i) stack[n++] = PyTuple_GET_ITEM(out, i);
    } else if (out != Py_None) {
      stack[n++] = out;
    } else {
      goto slow;
    }
    PyObject *res = PyObject_Vectorcall(d->kernel, stack, n, NULL);
    if (res) {
      Py_DECREF(res);
      return Py_NewRef(out);
    }
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
    PyErr_Clear(); /* the general path adapts the arguments or explains */
  }
slow:
  return PyObject_Vectorcall(d->impl, args, nargsf, kwnames);
}

static int dispatcher_init(PyObject *self, PyObject *args, PyObject *kw) {
  Dispatcher *d = (Dispatcher *)self;
  PyObject *impl;
  if (!PyArg_ParseTuple(args, "O:Dispatcher", &impl)) return -1;
  Py_XSETREF(d->impl, Py_NewRef(impl));
  d->vectorcall = dispatcher_vectorcall;
  return 0;
}

static PyObject *dispatcher_set_kernel(PyObject *self, PyObject *kernel) {
  Dispatcher *d = (Dispatcher *)self;
  Py_XSETREF(d->kernel, kernel == Py_None ? NULL : Py_NewRef(kernel));
  Py_RETURN_NONE;
}

static PyObject *dispatcher_getattro(PyObject *self, PyObject *name) {
  PyObject *found = PyObject_GenericGetAttr(self, name);
  if (found || !PyErr_ExceptionMatches(PyExc_AttributeError)) return found;
  PyErr_Clear();
  return PyObject_GetAttr(((Dispatcher *)self)->impl, name);
}

static int dispatcher_traverse(PyObject *self, visitproc visit, void *arg) {
  Dispatcher *d = (Dispatcher *)self;
  Py_VISIT(d->impl);
  Py_VISIT(d->kernel);
  Py_VISIT(d->dict);
  return 0;
}

static int dispatcher_clear(PyObject *self) {
  Dispatcher *d = (Dispatcher *)self;
  Py_CLEAR(d->impl);
  Py_CLEAR(d->kernel);
  Py_CLEAR(d->dict);
  return 0;
}

static void dispatcher_dealloc(PyObject *self) {
  PyObject_GC_UnTrack(self);
  dispatcher_clear(self);
  Py_TYPE(self)->tp_free(self);
}

static PyObject *dispatcher_get_impl(PyObject *self, void *unused) {
  return Py_NewRef(((Dispatcher *)self)->impl);
}

static PyObject *dispatcher_get_kernel(PyObject *self, void *unused) {
  Dispatcher *d = (Dispatcher *)self;
  return Py_NewRef(d->kernel ? d->kernel : Py_None);
}

static PyGetSetDef dispatcher_getset[] = {
    {"impl", dispatcher_get_impl, NULL, "the Python object handling general calls", NULL},
    {"kernel", dispatcher_get_kernel, NULL, "the single specialization's kernel, or None", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* dir(): the dispatcher's own names and those it forwards to its impl (compile, timings...). */
static PyObject *dispatcher_dir(PyObject *self, PyObject *unused) {
  PyObject *own = PyObject_CallMethod((PyObject *)&PyBaseObject_Type, "__dir__", "O", self);
  PyObject *names = own ? PySet_New(own) : NULL;
  PyObject *forwarded = names ? PyObject_Dir(((Dispatcher *)self)->impl) : NULL;
  PyObject *updated = forwarded ? PyObject_CallMethod(names, "update", "O", forwarded) : NULL;
  PyObject *list = updated ? PySequence_List(names) : NULL;
  if (list && PyList_Sort(list) < 0) Py_CLEAR(list);
  Py_XDECREF(updated);
  Py_XDECREF(own);
  Py_XDECREF(names);
  Py_XDECREF(forwarded);
  return list;
}

static PyMethodDef dispatcher_methods[] = {
    {"_set_kernel", dispatcher_set_kernel, METH_O, "install (or with None, remove) the fast kernel"},
    {"__dir__", dispatcher_dir, METH_NOARGS, "the dispatcher's names and its impl's"},
    {NULL, NULL, 0, NULL}};

static PyObject *dispatcher_descr_get(PyObject *self, PyObject *obj, PyObject *type) {
  return Py_NewRef(self); /* behave like a plain function stored on a class: no binding */
}

static PyTypeObject DispatcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dsl_mlir._dispatch.Dispatcher",
    .tp_basicsize = sizeof(Dispatcher),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Dispatcher(impl): the fast entry of a @jit function.",
    .tp_new = PyType_GenericNew,
    .tp_init = dispatcher_init,
    .tp_dealloc = dispatcher_dealloc,
    .tp_traverse = dispatcher_traverse,
    .tp_clear = dispatcher_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Dispatcher, vectorcall),
    .tp_getattro = dispatcher_getattro,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_dictoffset = offsetof(Dispatcher, dict),
    .tp_getset = dispatcher_getset,
    .tp_methods = dispatcher_methods,
    .tp_descr_get = dispatcher_descr_get,
};

static PyMethodDef dispatch_functions[] = {
    {"error_hook_address", py_error_hook_address, METH_NOARGS,
     "address of the error hook that compiled code calls (stored in its __dsl_error_hook)"},
    {"raise_pending_error", py_raise_pending_error, METH_NOARGS,
     "raise the error compiled code recorded in this thread (IndexError/ValueError), if any"},
    {"clear_pending_error", py_clear_pending_error, METH_NOARGS,
     "forget a recorded error"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef dispatch_module = {
    PyModuleDef_HEAD_INIT, "_dispatch",
    "Fast per-call marshalling into MLIR's packed C interface.", -1, dispatch_functions,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__dispatch(void) {
  if (PyType_Ready(&PackedKernelType) < 0 || PyType_Ready(&DispatcherType) < 0) return NULL;
  str_out = PyUnicode_InternFromString("out");
  if (!str_out) return NULL;
  g_cai_name = PyUnicode_InternFromString("__cuda_array_interface__");
  if (!g_cai_name) return NULL;
  PyObject *m = PyModule_Create(&dispatch_module);
  if (!m) return NULL;
  if (PyModule_AddObjectRef(m, "PackedKernel", (PyObject *)&PackedKernelType) < 0 ||
      PyModule_AddObjectRef(m, "Dispatcher", (PyObject *)&DispatcherType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  static const char *kinds[K_COUNT] = {"MEMREF", "I64", "I32", "I16", "I8", "BOOL", "F64", "F32",
                                       "F16", "BF16", "U64", "U32", "U16", "U8", "PTR", "RAW"};
  for (int i = 0; i < K_COUNT; ++i)
    if (PyModule_AddIntConstant(m, kinds[i], i) < 0) { Py_DECREF(m); return NULL; }
  if (PyModule_AddIntConstant(m, "MAX_RANK", MAX_RANK) < 0) { Py_DECREF(m); return NULL; }
  /* FORMATS: buffer format char -> (element type name, itemsize), as the checks above read
   * them; dsl-runtime compares it with dsl-core's dtype table before its first call. */
  PyObject *formats = PyDict_New();
  if (!formats) { Py_DECREF(m); return NULL; }
  for (const char *f = "dfeHhbBiIlL?"; *f; ++f) {
    PyObject *entry = Py_BuildValue("(si)", format_name(*f), itemsize_of(*f));
    PyObject *key = PyUnicode_FromStringAndSize(f, 1);
    int bad = !entry || !key || PyDict_SetItem(formats, key, entry) < 0;
    Py_XDECREF(entry);
    Py_XDECREF(key);
    if (bad) { Py_DECREF(formats); Py_DECREF(m); return NULL; }
  }
  if (PyModule_AddObject(m, "FORMATS", formats) < 0) {
    Py_DECREF(formats);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
