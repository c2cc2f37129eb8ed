/* coil._C: the CPython binding of libcoil, over the public C API
 * (include/coil.h) only.  Python holds the torch.fx and Dynamo glue
 * (coil/backend.py); everything that compiles or runs is here, in C.
 *
 *   compile_source(file, text, target="c", fn=None, dump=None, args=None) -> Program
 *                (args: ["x=f32[2, 3]", ...], as coil_options.args)
 *   Graph(name): .input(name, dtype, shape, strides=None) -> int
 *                .call(op, args, kwargs, origin=None) -> int
 *                .item(value, index) -> int, .output(values), .source(),
 *                .compile(target="c", dump=None) -> Program
 *   Program: .run(inputs, outputs) on objects with __dlpack__ (torch
 *            tensors, numpy arrays) or "dltensor" capsules, .inputs,
 *            .outputs, .code, .dump,
 *            .num_kernels, .compile_ms
 *   build(programs): their code built together ahead of the first runs
 *   has_op(op), set_num_threads(n)
 *   Plan(program, args, outputs, *, device, scratch, launches, stream, current_device, check),
 *   Runner(fallback, to_dlpack, threads=None):
 *            the backend's per-call path (see "Plan and Runner" below):
 *            runner(*args) runs runner.plan where the arguments match it,
 *            else returns fallback(*args)
 *   View(types, shape, strides, sizes, view_strides, offset, make, grad_on, ops):
 *            a view op (or a chain of them) of the backend's graph code,
 *            made from the traced layout without the dispatcher (see "View")
 *
 * Arguments of Graph.call are tagged tuples, so a value and an int never
 * look alike: ("v", id), ("i", int), ("f", float), ("b", bool), ("n",),
 * ("d", dtype name), ("s", str), ("I", [ints]), ("V", [ids]).
 * Dtype names are PyTorch's: "float32", "bfloat16", "int64", "bool"...
 *
 * Errors: coil.ProgramError (not in coil's subset, or wrong: a
 * "file:line:col: error:" message), coil.TensorError (a tensor that does
 * not match what was compiled; also a ValueError), coil.IndexOutOfRange (an
 * index tensor's value out of range when running; also an IndexError, as
 * PyTorch raises), coil.CoilError (the base; also the system compiler or
 * memory). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <coil.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

static PyObject *CoilError, *ProgramError, *TensorError, *IndexError_;

static PyObject *raise(coil_error *err) {
  coil_status st = coil_error_status(err);
  PyObject *type = st == COIL_ERROR_PROGRAM  ? ProgramError
                   : st == COIL_ERROR_TENSOR ? TensorError
                   : st == COIL_ERROR_INDEX  ? IndexError_
                                             : CoilError;
  PyErr_SetString(type, coil_error_message(err));
  coil_error_free(err);
  return NULL;
}

/* ------------------------------------------------------------ dtypes */

static const struct {
  const char *name;
  DLDataType dl;
} dtypes[] = {
    {"bool", {6, 8, 1}},        /* kDLBool in DLPack 0.8 */
    {"int32", {kDLInt, 32, 1}}, {"int64", {kDLInt, 64, 1}}, {"float16", {kDLFloat, 16, 1}},
    {"bfloat16", {kDLBfloat, 16, 1}}, {"float32", {kDLFloat, 32, 1}}, {"float64", {kDLFloat, 64, 1}},
};

static bool dtype_from_name(const char *name, DLDataType *out) {
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    if (!strcmp(dtypes[i].name, name)) { *out = dtypes[i].dl; return true; }
  return false;
}

static const char *dtype_to_name(DLDataType d) {
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    if (dtypes[i].dl.code == d.code && dtypes[i].dl.bits == d.bits && d.lanes == 1) return dtypes[i].name;
  return "unknown";
}

/* ------------------------------------------------------------ Program */

typedef struct {
  PyObject_HEAD
  coil_program *p;
} Program;

static PyTypeObject ProgramType;

static PyObject *wrap_program(coil_program *p) {
  Program *o = PyObject_New(Program, &ProgramType);
  if (!o) { coil_program_free(p); return NULL; }
  o->p = p;
  return (PyObject *)o;
}

static void program_dealloc(Program *o) {
  coil_program_free(o->p);
  PyObject_Free(o);
}

static PyObject *ints_tuple(int n, const int64_t *v) {
  PyObject *t = PyTuple_New(n);
  for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
  return t;
}

static PyObject *info_list(Program *o, bool outputs) {
  int n = outputs ? coil_program_num_outputs(o->p) : coil_program_num_inputs(o->p);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    coil_tensor_info in;
    if (outputs) coil_program_output(o->p, i, &in);
    else coil_program_input(o->p, i, &in);
    PyObject *t = Py_BuildValue("(ssNN)", in.name, dtype_to_name(in.dtype), ints_tuple(in.ndim, in.shape),
                                ints_tuple(in.ndim, in.strides));
    if (!t) { Py_DECREF(l); return NULL; }
    PyList_SET_ITEM(l, i, t);
  }
  return l;
}

static PyObject *program_inputs(Program *o, void *unused) { return info_list(o, false); }
static PyObject *program_outputs(Program *o, void *unused) { return info_list(o, true); }
static PyObject *program_code(Program *o, void *unused) { return PyUnicode_FromString(coil_program_code(o->p)); }
static PyObject *program_dump(Program *o, void *unused) { return PyUnicode_FromString(coil_program_dump(o->p)); }
static PyObject *program_kernels(Program *o, void *unused) { return PyLong_FromLong(coil_program_num_kernels(o->p)); }
static PyObject *program_ms(Program *o, void *unused) { return PyFloat_FromDouble(coil_program_compile_ms(o->p)); }

/* The DLTensor behind obj.__dlpack__(): a "dltensor" capsule, kept in
 * *capsule until the run ends (its destructor gives the tensor back).  obj
 * may be such a capsule itself, read and left to its owner: the backend
 * hands over torch.utils.dlpack.to_dlpack(t), a tenth of the cost of
 * Tensor.__dlpack__'s checks on every call. */
static bool borrow(PyObject *obj, const char *what, Py_ssize_t i, PyObject **capsule, DLTensor *out) {
  if (PyCapsule_CheckExact(obj) && PyCapsule_IsValid(obj, "dltensor"))
    *capsule = Py_NewRef(obj);
  else
    *capsule = PyObject_CallMethod(obj, "__dlpack__", NULL);
  if (!*capsule) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *msg = value ? PyObject_Str(value) : NULL;
    PyErr_Format(TensorError, "%s %zd: cannot be read through DLPack (__dlpack__): %s", what, i,
                 msg ? PyUnicode_AsUTF8(msg) : "no __dlpack__");
    Py_XDECREF(msg);
    Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
    return false;
  }
  DLManagedTensor *m = PyCapsule_GetPointer(*capsule, "dltensor");
  if (!m) {
    PyErr_Clear();
    PyErr_Format(TensorError, "%s %zd: __dlpack__ gave no 'dltensor' capsule (a versioned DLPack 1.x capsule "
                 "is not read by this build)", what, i);
    return false;
  }
  *out = m->dl_tensor;
  return true;
}

static PyObject *program_run(Program *o, PyObject *args) {
  PyObject *ins, *outs;
  if (!PyArg_ParseTuple(args, "OO:run", &ins, &outs)) return NULL;
  PyObject *inseq = PySequence_Fast(ins, "run: inputs must be a sequence");
  if (!inseq) return NULL;
  PyObject *outseq = PySequence_Fast(outs, "run: outputs must be a sequence");
  if (!outseq) { Py_DECREF(inseq); return NULL; }
  Py_ssize_t ni = PySequence_Fast_GET_SIZE(inseq), no = PySequence_Fast_GET_SIZE(outseq);
  PyObject *result = NULL;
  PyObject **caps = PyMem_Calloc((size_t)(ni + no + 1), sizeof *caps);
  DLTensor *t = PyMem_Calloc((size_t)(ni + no + 1), sizeof *t);
  if (!caps || !t) { PyErr_NoMemory(); goto done; }
  for (Py_ssize_t i = 0; i < ni; i++)
    if (!borrow(PySequence_Fast_GET_ITEM(inseq, i), "input", i, &caps[i], &t[i])) goto done;
  for (Py_ssize_t k = 0; k < no; k++)
    if (!borrow(PySequence_Fast_GET_ITEM(outseq, k), "output", k, &caps[ni + k], &t[ni + k])) goto done;
  coil_error *err = NULL;
  coil_status st;
  Py_BEGIN_ALLOW_THREADS
  st = coil_run(o->p, (int)ni, t, (int)no, t + ni, &err);
  Py_END_ALLOW_THREADS
  if (st) { raise(err); goto done; }
  result = Py_NewRef(Py_None);
done:
  for (Py_ssize_t i = 0; caps && i < ni + no; i++) Py_XDECREF(caps[i]);
  PyMem_Free(caps);
  PyMem_Free(t);
  Py_DECREF(inseq);
  Py_DECREF(outseq);
  return result;
}

static PyMethodDef program_methods[] = {
    {"run", (PyCFunction)program_run, METH_VARARGS,
     "run(inputs, outputs): run the kernels; tensors through __dlpack__, outputs contiguous and written in place"},
    {NULL},
};

static PyGetSetDef program_getset[] = {
    {"inputs", (getter)program_inputs, NULL, "[(name, dtype, shape, strides)] of the parameters", NULL},
    {"outputs", (getter)program_outputs, NULL, "[(name, dtype, shape, strides)] of the results", NULL},
    {"code", (getter)program_code, NULL, "the target's code", NULL},
    {"dump", (getter)program_dump, NULL, "the IR dumps asked for", NULL},
    {"num_kernels", (getter)program_kernels, NULL, "kernels the program runs", NULL},
    {"compile_ms", (getter)program_ms, NULL, "milliseconds from source to code", NULL},
    {NULL},
};

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "coil._C.Program",
    .tp_basicsize = sizeof(Program),
    .tp_dealloc = (destructor)program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled coil program.",
    .tp_methods = program_methods,
    .tp_getset = program_getset,
};

static PyObject *compile_source(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"file", "text", "target", "fn", "dump", "args", NULL};
  const char *file, *text, *target = "c", *fn = NULL, *dump = NULL;
  PyObject *specs = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "ss|szzO:compile_source", names, &file, &text, &target, &fn, &dump,
                                   &specs))
    return NULL;
  PyObject *seq = specs == Py_None ? PyTuple_New(0) : PySequence_Fast(specs, "compile_source: args is a list of str");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **argv = PyMem_Calloc((size_t)n + 1, sizeof *argv);
  if (!argv) { Py_DECREF(seq); return PyErr_NoMemory(); }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyUnicode_Check(item) || !(argv[i] = PyUnicode_AsUTF8(item))) {
      PyMem_Free(argv);
      Py_DECREF(seq);
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "compile_source: args is a list of str");
      return NULL;
    }
  }
  coil_options opts = {.target = target, .fn = fn, .dump = dump, .args = argv, .nargs = (int)n};
  coil_program *p = NULL;
  coil_error *err = NULL;
  coil_status st;
  Py_BEGIN_ALLOW_THREADS
  st = coil_compile_source(file, text, &opts, &p, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(argv);
  Py_DECREF(seq);
  if (st) return raise(err);
  return wrap_program(p);
}

/* ------------------------------------------------------------ Graph */

typedef struct {
  PyObject_HEAD
  coil_graph *g;
} Graph;

static int graph_init(Graph *o, PyObject *args, PyObject *kw) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s:Graph", &name)) return -1;
  coil_graph_free(o->g);
  if (!(o->g = coil_graph_new(name))) {
    PyErr_Format(PyExc_ValueError, "Graph: '%s' is not a name a function can have", name);
    return -1;
  }
  return 0;
}

static void graph_dealloc(Graph *o) {
  coil_graph_free(o->g);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

static bool int64_seq(PyObject *seq, int64_t *out, int max, int *n, const char *what) {
  PyObject *f = PySequence_Fast(seq, what);
  if (!f) return false;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(f);
  if (len > max) {
    Py_DECREF(f);
    PyErr_Format(PyExc_ValueError, "%s: at most %d entries", what, max);
    return false;
  }
  for (Py_ssize_t i = 0; i < len; i++) {
    out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(f, i));
    if (out[i] == -1 && PyErr_Occurred()) { Py_DECREF(f); return false; }
  }
  *n = (int)len;
  Py_DECREF(f);
  return true;
}

static PyObject *graph_input(Graph *o, PyObject *args) {
  const char *name, *dtype;
  PyObject *shape, *strides = Py_None;
  if (!PyArg_ParseTuple(args, "ssO|O:input", &name, &dtype, &shape, &strides)) return NULL;
  DLDataType dt;
  if (!dtype_from_name(dtype, &dt)) return PyErr_Format(ProgramError, "parameter %s: dtype %s is not one coil compiles", name, dtype);
  int64_t sh[64], st[64];
  int n, ns = 0;
  if (!int64_seq(shape, sh, 64, &n, "input: shape")) return NULL;
  if (strides != Py_None) {
    if (!int64_seq(strides, st, 64, &ns, "input: strides")) return NULL;
    if (ns != n) return PyErr_Format(PyExc_ValueError, "input %s: %d strides for %d dims", name, ns, n);
  }
  coil_value v;
  coil_error *err = NULL;
  if (coil_graph_input(o->g, name, dt, n, sh, strides == Py_None ? NULL : st, &v, &err)) return raise(err);
  return PyLong_FromLong(v);
}

/* The tagged tuples of the module's comment, into coil_args.  Lists'
 * storage lives in the arrays handed in (freed by the caller). */
typedef struct ArgStore {
  int64_t *ints;
  coil_value *vals;
  const char **strs; /* borrowed UTF-8 of the tuples, alive while they are */
} ArgStore;

static bool to_arg(PyObject *tag, coil_arg *a, ArgStore *st, int slot) {
  if (!PyTuple_Check(tag) || PyTuple_GET_SIZE(tag) < 1 || !PyUnicode_Check(PyTuple_GET_ITEM(tag, 0))) {
    PyErr_SetString(PyExc_TypeError, "Graph.call: each argument is a tagged tuple such as ('v', 3) or ('f', 1.0)");
    return false;
  }
  const char *k = PyUnicode_AsUTF8(PyTuple_GET_ITEM(tag, 0));
  PyObject *x = PyTuple_GET_SIZE(tag) > 1 ? PyTuple_GET_ITEM(tag, 1) : Py_None;
  if (!k) return false;
  switch (k[0]) {
  case 'v': a->kind = COIL_ARG_VALUE; a->value = (coil_value)PyLong_AsLong(x); break;
  case 'i': a->kind = COIL_ARG_INT; a->i = PyLong_AsLongLong(x); break;
  case 'b': a->kind = COIL_ARG_BOOL; a->i = PyObject_IsTrue(x); break;
  case 'f': a->kind = COIL_ARG_FLOAT; a->f = PyFloat_AsDouble(x); break;
  case 'n': a->kind = COIL_ARG_NONE; break;
  case 'd': {
    const char *name = PyUnicode_Check(x) ? PyUnicode_AsUTF8(x) : NULL;
    if (!name || !dtype_from_name(name, &a->dtype)) {
      PyErr_Format(ProgramError, "dtype %S is not one coil compiles", x);
      return false;
    }
    a->kind = COIL_ARG_DTYPE;
    break;
  }
  case 's':
    if (!PyUnicode_Check(x)) { PyErr_SetString(PyExc_TypeError, "Graph.call: ('s', str)"); return false; }
    a->kind = COIL_ARG_STRING;
    a->s = st->strs[slot] = PyUnicode_AsUTF8(x);
    if (!a->s) return false;
    break;
  case 'I':
  case 'V': {
    PyObject *f = PySequence_Fast(x, "Graph.call: a list argument");
    if (!f) return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    if (n > 64) { Py_DECREF(f); PyErr_SetString(PyExc_ValueError, "Graph.call: lists of at most 64"); return false; }
    for (Py_ssize_t i = 0; i < n; i++) {
      long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(f, i));
      if (k[0] == 'I') st->ints[slot * 64 + i] = v;
      else st->vals[slot * 64 + i] = (coil_value)v;
    }
    Py_DECREF(f);
    if (k[0] == 'I') { a->kind = COIL_ARG_INTS; a->ints.data = st->ints + slot * 64; a->ints.n = (int)n; }
    else { a->kind = COIL_ARG_VALUES; a->values.data = st->vals + slot * 64; a->values.n = (int)n; }
    break;
  }
  default:
    PyErr_Format(PyExc_TypeError, "Graph.call: unknown argument tag '%s'", k);
    return false;
  }
  return !PyErr_Occurred();
}

static PyObject *graph_call(Graph *o, PyObject *args) {
  const char *op, *origin = NULL;
  PyObject *pos, *kw;
  if (!PyArg_ParseTuple(args, "sOO|z:call", &op, &pos, &kw, &origin)) return NULL;
  PyObject *posf = PySequence_Fast(pos, "Graph.call: args must be a sequence");
  if (!posf) return NULL;
  if (!PyDict_Check(kw)) { Py_DECREF(posf); PyErr_SetString(PyExc_TypeError, "Graph.call: kwargs must be a dict"); return NULL; }
  Py_ssize_t np = PySequence_Fast_GET_SIZE(posf), nk = PyDict_Size(kw), n = np + nk;
  PyObject *result = NULL;
  coil_arg *a = PyMem_Calloc((size_t)n + 1, sizeof *a);
  const char **kwn = PyMem_Calloc((size_t)nk + 1, sizeof *kwn);
  ArgStore st = {PyMem_Calloc((size_t)(n + 1) * 64, sizeof(int64_t)), PyMem_Calloc((size_t)(n + 1) * 64, sizeof(coil_value)),
                 PyMem_Calloc((size_t)n + 1, sizeof(char *))};
  if (!a || !kwn || !st.ints || !st.vals || !st.strs) { PyErr_NoMemory(); goto done; }
  for (Py_ssize_t i = 0; i < np; i++)
    if (!to_arg(PySequence_Fast_GET_ITEM(posf, i), &a[i], &st, (int)i)) goto done;
  PyObject *key, *val;
  Py_ssize_t it = 0, j = 0;
  while (PyDict_Next(kw, &it, &key, &val)) {
    if (!PyUnicode_Check(key) || !(kwn[j] = PyUnicode_AsUTF8(key))) {
      PyErr_SetString(PyExc_TypeError, "Graph.call: keyword names are strings");
      goto done;
    }
    if (!to_arg(val, &a[np + j], &st, (int)(np + j))) goto done;
    j++;
  }
  coil_value v;
  coil_error *err = NULL;
  if (coil_graph_call(o->g, op, (int)np, a, (int)nk, kwn, a + np, origin, &v, &err)) { raise(err); goto done; }
  result = PyLong_FromLong(v);
done:
  PyMem_Free(a);
  PyMem_Free(kwn);
  PyMem_Free(st.ints);
  PyMem_Free(st.vals);
  PyMem_Free(st.strs);
  Py_DECREF(posf);
  return result;
}

static PyObject *graph_item(Graph *o, PyObject *args) {
  int v, i;
  if (!PyArg_ParseTuple(args, "ii:item", &v, &i)) return NULL;
  coil_value out;
  coil_error *err = NULL;
  if (coil_graph_item(o->g, v, i, &out, &err)) return raise(err);
  return PyLong_FromLong(out);
}

static PyObject *graph_output(Graph *o, PyObject *args) {
  PyObject *vals;
  if (!PyArg_ParseTuple(args, "O:output", &vals)) return NULL;
  int64_t v[256];
  int n;
  if (!int64_seq(vals, v, 256, &n, "output: values")) return NULL;
  coil_value cv[256];
  for (int i = 0; i < n; i++) cv[i] = (coil_value)v[i];
  coil_error *err = NULL;
  if (coil_graph_output(o->g, n, cv, &err)) return raise(err);
  Py_RETURN_NONE;
}

static PyObject *graph_source(Graph *o, PyObject *unused) { return PyUnicode_FromString(coil_graph_source(o->g)); }

static PyObject *graph_compile(Graph *o, PyObject *args, PyObject *kw) {
  static char *names[] = {"target", "dump", "autotune", NULL};
  const char *target = "c", *dump = NULL;
  int autotune = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|szp:compile", names, &target, &dump, &autotune)) return NULL;
  coil_options opts = {.target = target, .dump = dump, .autotune = autotune};
  coil_program *p = NULL;
  coil_error *err = NULL;
  coil_status st;
  Py_BEGIN_ALLOW_THREADS
  st = coil_compile_graph(o->g, &opts, &p, &err);
  Py_END_ALLOW_THREADS
  if (st) return raise(err);
  return wrap_program(p);
}

static PyMethodDef graph_methods[] = {
    {"input", (PyCFunction)graph_input, METH_VARARGS, "input(name, dtype, shape, strides=None) -> value"},
    {"call", (PyCFunction)graph_call, METH_VARARGS, "call(op, args, kwargs, origin=None) -> value"},
    {"item", (PyCFunction)graph_item, METH_VARARGS, "item(value, index) -> value"},
    {"output", (PyCFunction)graph_output, METH_VARARGS, "output(values)"},
    {"source", (PyCFunction)graph_source, METH_NOARGS, "the program as coil's Python subset"},
    {"compile", (PyCFunction)(void (*)(void))graph_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(target='c', dump=None, autotune=False) -> Program (autotune: triton-gpu's module tunes its tiles)"},
    {NULL},
};

static PyTypeObject GraphType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "coil._C.Graph",
    .tp_basicsize = sizeof(Graph),
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A coil graph built node by node (include/coil.h).",
    .tp_methods = graph_methods,
    .tp_init = (initproc)graph_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------ Native launches
 *
 * A compiled Triton kernel's launcher (CompiledKernel.run) is Python in
 * Triton 3.x: 5-8 us a launch on the H200's host (docs/gpu.md), most of
 * it Python around the driver's own cuLaunchKernel.  A step of a
 * model issues tens of launches, and a small model's step is bound by the
 * host, so a Plan calls the driver itself where it safely can.
 *
 * Safely: coil's kernels take pointers only (every other argument is a
 * constexpr, compiled in), and the backend asks for a native launch only
 * for a kernel that needs nothing a plain launch lacks (one CTA a program,
 * no cooperative grid, no programmatic dependent launch, no global or
 * profile scratch, no tensor descriptors as arguments).  What Triton
 * appends to the parameters differs between its versions (a global and a
 * profile scratch pointer, both null here), so the Plan asks the driver for
 * the compiled function's parameters (cuFuncGetParamInfo, CUDA 12.4): every
 * one must be a pointer, and those past the kernel's own may number at most
 * two.  Where anything differs, or the driver or that call is missing, the
 * launch goes through Triton's launcher as before.
 *
 * The driver is reached through dlopen (libcuda, which PyTorch and Triton
 * have already loaded into the process), so the binding builds and runs
 * on machines without CUDA; its types are declared here, not taken from
 * cuda.h, which is not among the build's dependencies. */

typedef int cu_result; /* CUresult: 0 is CUDA_SUCCESS */
static struct {
  bool tried;
  cu_result (*launch)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned shared, void *stream, void **params, void **extra);
  cu_result (*param_info)(void *f, size_t index, size_t *offset, size_t *size);
  cu_result (*current_context)(void **ctx);
  cu_result (*error_name)(cu_result r, const char **name);
} cu;

static bool cu_loaded(void) {
  if (!cu.tried) {
    cu.tried = true;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      *(void **)&cu.launch = dlsym(lib, "cuLaunchKernel");
      *(void **)&cu.param_info = dlsym(lib, "cuFuncGetParamInfo");
      *(void **)&cu.current_context = dlsym(lib, "cuCtxGetCurrent");
      *(void **)&cu.error_name = dlsym(lib, "cuGetErrorName");
    }
    if (!cu.launch || !cu.param_info || !cu.current_context || !cu.error_name) cu.launch = NULL;
  }
  return cu.launch != NULL;
}

enum { NATIVE_MAX_EXTRA = 2 };

struct native {
  void *function;        /* CUfunction, or NULL */
  unsigned grid[3], threads, shared;
  int nparams;           /* the function's parameters: the pointers, then null extras */
};

/* The native launch of a kernel whose parameters the launcher takes as
 * slots (-1: a constexpr, not a parameter), from (handle, threads, shared);
 * .function stays NULL where the driver's view of the function differs. */
static struct native native_launch(PyObject *spec, PyObject *grid, PyObject *slots) {
  struct native n = {0};
  unsigned long long handle;
  unsigned threads, shared;
  if (spec == Py_None || !cu_loaded()) return n;
  if (!PyArg_ParseTuple(spec, "KII", &handle, &threads, &shared)) { PyErr_Clear(); return n; }
  int pointers = 0;
  for (Py_ssize_t a = 0; a < PyTuple_GET_SIZE(slots); a++) pointers += PyLong_AsLong(PyTuple_GET_ITEM(slots, a)) >= 0;
  int count = 0;
  for (;; count++) {
    size_t offset, size;
    if (cu.param_info((void *)(uintptr_t)handle, (size_t)count, &offset, &size) != 0) break;
    if (size != sizeof(uint64_t) || offset != (size_t)count * sizeof(uint64_t)) return n;
    if (count > pointers + NATIVE_MAX_EXTRA) return n;
  }
  if (count < pointers || count > pointers + NATIVE_MAX_EXTRA) return n;
  for (int d = 0; d < 3; d++) {
    long g = PyLong_AsLong(PyTuple_GET_ITEM(grid, d));
    if (g < 0 || g > UINT32_MAX) { PyErr_Clear(); return n; }
    n.grid[d] = (unsigned)g;
  }
  n.function = (void *)(uintptr_t)handle;
  n.threads = threads;
  n.shared = shared;
  n.nparams = count;
  return n;
}

/* Queues a native launch: addr holds every buffer's address, slots which
 * one each parameter takes. */
static bool native_run(const struct native *n, PyObject *slots, const uint64_t *addr, void *stream) {
  uint64_t vals[64 + NATIVE_MAX_EXTRA] = {0}, *v = vals;
  void *params_stack[64 + NATIVE_MAX_EXTRA], **params = params_stack;
  if (n->nparams > 64 + NATIVE_MAX_EXTRA) {
    v = PyMem_Calloc((size_t)n->nparams, sizeof *v);
    params = PyMem_Calloc((size_t)n->nparams, sizeof *params);
    if (!v || !params) { PyMem_Free(v); PyMem_Free(params); PyErr_NoMemory(); return false; }
  }
  int j = 0;
  for (Py_ssize_t a = 0; a < PyTuple_GET_SIZE(slots); a++) {
    long k = PyLong_AsLong(PyTuple_GET_ITEM(slots, a));
    if (k >= 0) v[j++] = addr[k];
  }
  for (int i = 0; i < n->nparams; i++) params[i] = &v[i]; /* past j: the null scratch pointers */
  cu_result r = 0;
  if (n->grid[0] && n->grid[1] && n->grid[2])
    r = cu.launch(n->function, n->grid[0], n->grid[1], n->grid[2], n->threads, 1, 1, n->shared, stream, params, NULL);
  if (v != vals) { PyMem_Free(v); PyMem_Free(params); }
  if (r != 0) {
    const char *name = NULL;
    cu.error_name(r, &name);
    PyErr_Format(PyExc_RuntimeError, "coil: cuLaunchKernel failed: %s (%d)", name ? name : "unknown error", r);
    return false;
  }
  return true;
}

/* ------------------------------------------------------------ Plan and Runner
 *
 * The torch.compile backend's per-call path, in C: a Runner is what the
 * backend's generated code calls for a coil group, with the group's
 * arguments; its Plan (one specialization: a Program, the arguments it was
 * compiled for, and how to allocate each result) runs them when every
 * argument matches it, and the Runner's fallback (Python: specialize,
 * recompile, or run as ATen) gets them otherwise.  So the call that repeats
 * costs one C call: no Python frame, no key tuple, no list.
 *
 * A tensor argument is read through to_dlpack (torch.utils.dlpack's, a
 * "dltensor" capsule, against several microseconds for __dlpack__'s
 * checks) and checked against what the program was compiled for as
 * coil_run checks it (host memory, dtype, shape, strides where a dim has
 * more than one element); an int argument (a size of a dynamic graph) must
 * equal the one compiled.  Results are allocated by the Plan's allocators
 * (alloc(*alloc_args) -> a tensor with the compiled dtype and shape, laid
 * out so that the program's contiguous result is its memory) and written
 * through their data_ptr(): the allocator is the backend's, trusted to
 * give what it was asked for.
 *
 * A Plan with launches runs a program on a GPU, as the Triton module coil
 * emits for it would: the inputs must be on that device (device=(DLPack
 * device type, id)), and the CUDA device current when called must be it
 * (else the fallback runs); the results and the kernels' other buffers
 * (scratch: allocators as outputs') are allocated, and each launch calls
 * its launcher (a compiled Triton kernel's launcher, CompiledKernel.run)
 * with (grid x, y, z, stream(), *head, *arguments), an argument being
 * buffer k's address where slots[i] == k >= 0 (inputs, then results, then
 * scratch) and consts[i] where slots[i] == -1.  Triton's launch hooks
 * (head holds None for them) are not called.  A launch may also carry
 * native=(CUfunction handle, threads a block, dynamic shared bytes): the
 * Plan then calls the CUDA driver's cuLaunchKernel itself (see "Native
 * launches"), and its launcher only where that is not possible.  No
 * synchronisation: the
 * launches are queued on the stream, as Triton's own calls queue them;
 * except with check=(k, fn): after the launches, fn(scratch buffer k), which
 * raises where the kernels flagged an error there (an index out of range:
 * reading the flag back is a synchronisation, as coil_run's is). */

typedef struct {
  PyObject_HEAD
  PyObject *program;    /* the Program */
  Py_ssize_t nargs;     /* the arguments the group takes */
  PyObject *args;       /* tuple: None for a tensor (the next input), an int that must equal */
  int ninputs, noutputs;
  coil_tensor_info *in; /* the program's inputs, pointing into it */
  coil_tensor_info *out;
  PyObject *allocs;     /* tuple of (alloc, alloc_args) per result */
  DLDevice device;      /* where the inputs must be */
  PyObject *scratch;    /* tuple of (alloc, alloc_args): the launches' other buffers */
  PyObject *launches;   /* tuple of (launcher, grid, head, slots, consts), or NULL: coil_run runs it */
  PyObject *stream;     /* () -> int: the stream to launch on */
  PyObject *current;    /* () -> int: the current device, which must be device.device_id */
  Py_ssize_t check_at;  /* the scratch buffer check reads */
  PyObject *check;      /* called with it after the launches, or NULL */
  Py_ssize_t maxargs;   /* the longest launcher call */
  struct native *native; /* per launch; .function NULL: through its launcher */
  Py_ssize_t nnative;    /* launches with a native launch */
} Plan;

static PyTypeObject PlanType;

static void plan_dealloc(Plan *o) {
  Py_XDECREF(o->program);
  Py_XDECREF(o->args);
  Py_XDECREF(o->allocs);
  Py_XDECREF(o->scratch);
  Py_XDECREF(o->launches);
  Py_XDECREF(o->check);
  Py_XDECREF(o->stream);
  Py_XDECREF(o->current);
  PyMem_Free(o->in);
  PyMem_Free(o->out);
  PyMem_Free(o->native);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

/* Whether every entry of allocs is (alloc, alloc_args tuple); raises if not. */
static bool allocators_ok(PyObject *allocs) {
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(allocs); k++) {
    PyObject *a = PyTuple_GET_ITEM(allocs, k);
    if (!PyTuple_Check(a) || PyTuple_GET_SIZE(a) != 2 || !PyCallable_Check(PyTuple_GET_ITEM(a, 0)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(a, 1))) {
      PyErr_SetString(PyExc_TypeError, "Plan: outputs and scratch hold (alloc, alloc_args tuple) per buffer");
      return false;
    }
  }
  return true;
}

static PyObject *plan_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *names[] = {"program", "args", "outputs", "device", "scratch", "launches", "stream", "current_device",
                          "check", NULL};
  PyObject *prog, *spec, *outs, *device = Py_None, *scratch = NULL, *launches = Py_None, *stream = Py_None,
                                *current = Py_None, *check = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OO|$OOOOOO:Plan", names, &ProgramType, &prog, &spec, &outs, &device,
                                   &scratch, &launches, &stream, &current, &check))
    return NULL;
  DLDevice where = {kDLCPU, 0};
  if (device != Py_None && !PyArg_ParseTuple(device, "ii:Plan device", &where.device_type, &where.device_id))
    return NULL;
  bool launching = launches != Py_None;
  if (launching && (!PyCallable_Check(stream) || !PyCallable_Check(current))) {
    PyErr_SetString(PyExc_TypeError, "Plan: launches need stream and current_device, callables");
    return NULL;
  }
  Plan *o = (Plan *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  o->device = where;
  coil_program *p = ((Program *)prog)->p;
  o->program = Py_NewRef(prog);
  o->ninputs = coil_program_num_inputs(p);
  o->noutputs = coil_program_num_outputs(p);
  o->in = PyMem_Calloc((size_t)o->ninputs + 1, sizeof *o->in);
  o->out = PyMem_Calloc((size_t)o->noutputs + 1, sizeof *o->out);
  if (!o->in || !o->out) { Py_DECREF(o); return PyErr_NoMemory(); }
  for (int i = 0; i < o->ninputs; i++) coil_program_input(p, i, &o->in[i]);
  for (int k = 0; k < o->noutputs; k++) coil_program_output(p, k, &o->out[k]);
  if (!(o->args = PySequence_Tuple(spec))) { Py_DECREF(o); return NULL; }
  o->nargs = PyTuple_GET_SIZE(o->args);
  int tensors = 0;
  for (Py_ssize_t i = 0; i < o->nargs; i++) {
    PyObject *a = PyTuple_GET_ITEM(o->args, i);
    if (a == Py_None) tensors++;
    else if (!PyLong_CheckExact(a)) {
      Py_DECREF(o);
      PyErr_SetString(PyExc_TypeError, "Plan: args holds None (a tensor) or an int per argument");
      return NULL;
    }
  }
  if (tensors != o->ninputs) {
    Py_DECREF(o);
    return PyErr_Format(PyExc_ValueError, "Plan: %d tensor arguments for a program of %d inputs", tensors, o->ninputs);
  }
  if (!(o->allocs = PySequence_Tuple(outs))) { Py_DECREF(o); return NULL; }
  if (PyTuple_GET_SIZE(o->allocs) != o->noutputs) {
    Py_DECREF(o);
    return PyErr_Format(PyExc_ValueError, "Plan: %zd allocators for a program of %d outputs", PyTuple_GET_SIZE(o->allocs),
                        o->noutputs);
  }
  if (!allocators_ok(o->allocs)) { Py_DECREF(o); return NULL; }
  if (!(o->scratch = scratch ? PySequence_Tuple(scratch) : PyTuple_New(0))) { Py_DECREF(o); return NULL; }
  if (!allocators_ok(o->scratch)) { Py_DECREF(o); return NULL; }
  if (check != Py_None) {
    PyObject *fn = NULL;
    if (!launching || !PyArg_ParseTuple(check, "nO:Plan check", &o->check_at, &fn) || !PyCallable_Check(fn) ||
        o->check_at < 0 || o->check_at >= PyTuple_GET_SIZE(o->scratch)) {
      Py_DECREF(o);
      PyErr_Clear();
      PyErr_SetString(PyExc_TypeError, "Plan: check is (a scratch buffer's index, a callable), with launches");
      return NULL;
    }
    o->check = Py_NewRef(fn);
  }
  if (!launching) return (PyObject *)o;
  o->stream = Py_NewRef(stream);
  o->current = Py_NewRef(current);
  if (!(o->launches = PySequence_Tuple(launches))) { Py_DECREF(o); return NULL; }
  Py_ssize_t nbufs = o->ninputs + o->noutputs + PyTuple_GET_SIZE(o->scratch);
  if (!(o->native = PyMem_Calloc((size_t)PyTuple_GET_SIZE(o->launches) + 1, sizeof *o->native))) {
    Py_DECREF(o);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o->launches); i++) {
    PyObject *l = PyTuple_GET_ITEM(o->launches, i);
    Py_ssize_t len = PyTuple_Check(l) ? PyTuple_GET_SIZE(l) : 0;
    if ((len != 5 && len != 6) || !PyCallable_Check(PyTuple_GET_ITEM(l, 0)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(l, 1)) || PyTuple_GET_SIZE(PyTuple_GET_ITEM(l, 1)) != 3 ||
        !PyTuple_Check(PyTuple_GET_ITEM(l, 2)) || !PyTuple_Check(PyTuple_GET_ITEM(l, 3)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(l, 4)) ||
        PyTuple_GET_SIZE(PyTuple_GET_ITEM(l, 3)) != PyTuple_GET_SIZE(PyTuple_GET_ITEM(l, 4))) {
      Py_DECREF(o);
      PyErr_SetString(PyExc_TypeError, "Plan: launches holds (launcher, (x, y, z), head, slots, consts[, native]) per "
                                       "launch, slots and consts of one length");
      return NULL;
    }
    PyObject *slots = PyTuple_GET_ITEM(l, 3);
    for (Py_ssize_t a = 0; a < PyTuple_GET_SIZE(slots); a++) {
      long k = PyLong_AsLong(PyTuple_GET_ITEM(slots, a));
      if ((k == -1 && PyErr_Occurred()) || k < -1 || k >= nbufs) {
        Py_DECREF(o);
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError))
          PyErr_Format(PyExc_ValueError, "Plan: launch %zd's slot %zd is not -1 or a buffer in [0, %zd)", i, a, nbufs);
        return NULL;
      }
    }
    Py_ssize_t n = 4 + PyTuple_GET_SIZE(PyTuple_GET_ITEM(l, 2)) + PyTuple_GET_SIZE(slots);
    if (n > o->maxargs) o->maxargs = n;
    if (len == 6) o->native[i] = native_launch(PyTuple_GET_ITEM(l, 5), PyTuple_GET_ITEM(l, 1), slots);
    o->nnative += o->native[i].function != NULL;
  }
  return (PyObject *)o;
}

static PyObject *plan_program(Plan *o, void *unused) { return Py_NewRef(o->program); }

static PyObject *plan_native(Plan *o, void *unused) { return PyLong_FromSsize_t(o->nnative); }

static PyGetSetDef plan_getset[] = {
    {"program", (getter)plan_program, NULL, "the Program", NULL},
    {"native", (getter)plan_native, NULL, "how many of its launches call the CUDA driver themselves", NULL},
    {NULL},
};

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "coil._C.Plan",
    .tp_basicsize = sizeof(Plan),
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Plan(program, args, outputs, *, device=None, scratch=(), launches=None, stream=None, "
              "current_device=None, check=None): one specialization a Runner runs (with launches: on a GPU, through Triton's "
              "launchers).",
    .tp_getset = plan_getset,
    .tp_new = plan_new,
};

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject *fallback;  /* called with the arguments where the plan does not serve them */
  PyObject *to_dlpack; /* tensor -> "dltensor" capsule */
  PyObject *threads;   /* () -> int: OpenMP threads for a run, or None */
  PyObject *plan;      /* a Plan, or None */
  long long runs, fallbacks;
} Runner;

/* Whether t is what the program's input was compiled for, on device
 * (coil_run's check_tensor, which runs again, raising, in coil_run). */
static bool matches(const DLTensor *t, const coil_tensor_info *in, DLDevice device) {
  if (t->device.device_type != device.device_type || t->device.device_id != device.device_id ||
      t->dtype.code != in->dtype.code || t->dtype.bits != in->dtype.bits ||
      t->dtype.lanes != 1 || t->ndim != in->ndim)
    return false;
  bool empty = false;
  for (int d = 0; d < in->ndim; d++) {
    if (t->shape[d] != in->shape[d]) return false;
    empty |= in->shape[d] == 0;
  }
  if (empty) return true;
  int64_t span = 1;
  for (int d = in->ndim - 1; d >= 0; d--) {
    int64_t st = t->strides ? t->strides[d] : span;
    if (in->shape[d] > 1 && st != in->strides[d]) return false;
    span *= in->shape[d];
  }
  return true;
}

#define RUNNER_STACK 16

static PyObject *data_ptr_name; /* "data_ptr", interned */

/* A call of f() that returns an int: -1 with an exception set on failure. */
static long call_long(PyObject *f) {
  PyObject *v = PyObject_CallNoArgs(f);
  if (!v) return -1;
  long n = PyLong_AsLong(v);
  Py_DECREF(v);
  return n;
}

/* The plan's launches, queued on the stream: t holds the inputs and the
 * results; the scratch buffers are allocated here and dropped once every
 * launch is queued (PyTorch's allocator hands their memory to later work
 * on the same stream only, which runs after these launches). */
static bool launch_all(Plan *pl, const DLTensor *t) {
  int nt = pl->ninputs + pl->noutputs;
  Py_ssize_t ns = PyTuple_GET_SIZE(pl->scratch), nb = nt + ns;
  PyObject *ptr_stack[2 * RUNNER_STACK], **ptrs = ptr_stack, *vec_stack[4 * RUNNER_STACK], **vec = vec_stack;
  PyObject *scratch = NULL, *stream = NULL;
  uint64_t addr_stack[2 * RUNNER_STACK], *addr = addr_stack;
  void *raw_stream = NULL;
  bool ok = false, native = pl->nnative > 0;
  if (nb > 2 * RUNNER_STACK) {
    ptrs = PyMem_Calloc((size_t)nb, sizeof *ptrs);
    addr = PyMem_Calloc((size_t)nb, sizeof *addr);
  }
  if (pl->maxargs > 4 * RUNNER_STACK) vec = PyMem_Calloc((size_t)pl->maxargs, sizeof *vec);
  if (!ptrs || !vec || !addr) { PyErr_NoMemory(); goto done; }
  memset(ptrs, 0, (size_t)nb * sizeof *ptrs);
  for (int i = 0; i < nt; i++) {
    addr[i] = (uint64_t)(uintptr_t)((char *)t[i].data + t[i].byte_offset);
    if (!(ptrs[i] = PyLong_FromVoidPtr((void *)(uintptr_t)addr[i]))) goto done;
  }
  if (!(scratch = PyTuple_New(ns))) goto done;
  for (Py_ssize_t k = 0; k < ns; k++) {
    PyObject *a = PyTuple_GET_ITEM(pl->scratch, k);
    PyObject *o = PyObject_Call(PyTuple_GET_ITEM(a, 0), PyTuple_GET_ITEM(a, 1), NULL);
    if (!o) goto done;
    PyTuple_SET_ITEM(scratch, k, o);
    if (!(ptrs[nt + k] = PyObject_CallMethodNoArgs(o, data_ptr_name))) goto done;
    addr[nt + k] = (uint64_t)(uintptr_t)PyLong_AsVoidPtr(ptrs[nt + k]);
    if (!addr[nt + k] && PyErr_Occurred()) goto done;
  }
  if (!(stream = PyObject_CallNoArgs(pl->stream))) goto done;
  if (native) { /* a thread without a current context (none made by PyTorch yet) goes through the launchers */
    void *ctx = NULL;
    raw_stream = PyLong_AsVoidPtr(stream);
    if (!raw_stream && PyErr_Occurred()) goto done;
    native = cu.current_context(&ctx) == 0 && ctx;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pl->launches); i++) {
    PyObject *l = PyTuple_GET_ITEM(pl->launches, i), *grid = PyTuple_GET_ITEM(l, 1), *head = PyTuple_GET_ITEM(l, 2);
    PyObject *slots = PyTuple_GET_ITEM(l, 3), *consts = PyTuple_GET_ITEM(l, 4);
    if (native && pl->native[i].function) {
      if (!native_run(&pl->native[i], slots, addr, raw_stream)) goto done;
      continue;
    }
    Py_ssize_t n = 0;
    for (int d = 0; d < 3; d++) vec[n++] = PyTuple_GET_ITEM(grid, d);
    vec[n++] = stream;
    for (Py_ssize_t h = 0; h < PyTuple_GET_SIZE(head); h++) vec[n++] = PyTuple_GET_ITEM(head, h);
    for (Py_ssize_t a = 0; a < PyTuple_GET_SIZE(slots); a++) {
      long k = PyLong_AsLong(PyTuple_GET_ITEM(slots, a)); /* checked by plan_new */
      vec[n++] = k < 0 ? PyTuple_GET_ITEM(consts, a) : ptrs[k];
    }
    PyObject *res = PyObject_Vectorcall(PyTuple_GET_ITEM(l, 0), vec, (size_t)n, NULL);
    if (!res) goto done;
    Py_DECREF(res);
  }
  if (pl->check) {
    PyObject *res = PyObject_CallOneArg(pl->check, PyTuple_GET_ITEM(scratch, pl->check_at));
    if (!res) goto done;
    Py_DECREF(res);
  }
  ok = true;
done:
  for (Py_ssize_t i = 0; ptrs && i < nb; i++) Py_XDECREF(ptrs[i]);
  if (ptrs != ptr_stack) PyMem_Free(ptrs);
  if (addr != addr_stack) PyMem_Free(addr);
  if (vec != vec_stack) PyMem_Free(vec);
  Py_XDECREF(scratch);
  Py_XDECREF(stream);
  return ok;
}

static PyObject *runner_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  Runner *r = (Runner *)self;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (r->plan == Py_None || kwnames) goto fallback;
  Plan *pl = (Plan *)r->plan;
  if (nargs != pl->nargs) goto fallback;
  /* Ints first: they cost nothing to compare. */
  for (Py_ssize_t i = 0; i < nargs; i++) {
    PyObject *want = PyTuple_GET_ITEM(pl->args, i);
    if (want == Py_None) continue;
    if (!PyLong_Check(args[i])) goto fallback;
    int eq = PyObject_RichCompareBool(args[i], want, Py_EQ);
    if (eq < 0) return NULL;
    if (!eq) goto fallback;
  }
  if (pl->launches) { /* a GPU's launches go to the current device: it must be the plan's */
    long current = call_long(pl->current);
    if (current == -1 && PyErr_Occurred()) return NULL;
    if (current != pl->device.device_id) goto fallback;
  }
  Py_INCREF(pl); /* the plan may be replaced while the run has the GIL released */
  PyObject *result = NULL, *caps_stack[RUNNER_STACK], **caps = caps_stack, *outs = NULL;
  DLTensor t_stack[RUNNER_STACK], *t = t_stack;
  int ni = pl->ninputs, no = pl->noutputs, got = 0;
  bool fall = false;
  if (ni + no > RUNNER_STACK) {
    caps = PyMem_Calloc((size_t)ni + 1, sizeof *caps);
    t = PyMem_Calloc((size_t)(ni + no) + 1, sizeof *t);
    if (!caps || !t) { PyErr_NoMemory(); goto done; }
  }
  for (Py_ssize_t i = 0; i < nargs; i++) {
    if (PyTuple_GET_ITEM(pl->args, i) != Py_None) continue;
    PyObject *cap = PyObject_CallOneArg(r->to_dlpack, args[i]);
    if (!cap) { /* not a tensor to_dlpack takes: the fallback says what it is */
      PyErr_Clear();
      fall = true;
      goto done;
    }
    caps[got++] = cap;
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    if (!m) { PyErr_Clear(); fall = true; goto done; }
    t[got - 1] = m->dl_tensor;
    if (!matches(&t[got - 1], &pl->in[got - 1], pl->device)) { fall = true; goto done; }
  }
  if (!pl->launches && r->threads != Py_None) {
    PyObject *n = PyObject_CallNoArgs(r->threads);
    if (!n) goto done;
    long v = PyLong_AsLong(n);
    Py_DECREF(n);
    if (v == -1 && PyErr_Occurred()) goto done;
    coil_set_num_threads((int)v);
  }
  if (!(outs = PyTuple_New(no))) goto done;
  for (int k = 0; k < no; k++) {
    PyObject *a = PyTuple_GET_ITEM(pl->allocs, k);
    PyObject *o = PyObject_Call(PyTuple_GET_ITEM(a, 0), PyTuple_GET_ITEM(a, 1), NULL);
    if (!o) goto done;
    PyTuple_SET_ITEM(outs, k, o);
    PyObject *ptr = PyObject_CallMethodNoArgs(o, data_ptr_name);
    if (!ptr) goto done;
    void *data = PyLong_AsVoidPtr(ptr);
    Py_DECREF(ptr);
    if (!data && PyErr_Occurred()) goto done;
    const coil_tensor_info *in = &pl->out[k];
    t[ni + k] = (DLTensor){.data = data, .device = pl->device, .ndim = in->ndim, .dtype = in->dtype,
                           .shape = (int64_t *)in->shape, .strides = (int64_t *)in->strides};
  }
  if (pl->launches) {
    if (!launch_all(pl, t)) goto done;
    r->runs++;
    result = Py_NewRef(outs);
    goto done;
  }
  coil_error *err = NULL;
  coil_status st;
  coil_program *p = ((Program *)pl->program)->p;
  Py_BEGIN_ALLOW_THREADS
  st = coil_run(p, ni, t, no, t + ni, &err);
  Py_END_ALLOW_THREADS
  if (st) { raise(err); goto done; }
  r->runs++;
  result = Py_NewRef(outs);
done:
  for (int i = 0; i < got; i++) Py_DECREF(caps[i]);
  if (caps != caps_stack) PyMem_Free(caps);
  if (t != t_stack) PyMem_Free(t);
  Py_XDECREF(outs);
  Py_DECREF(pl);
  if (!fall) return result;
fallback:
  r->fallbacks++;
  return PyObject_Vectorcall(r->fallback, args, nargsf, kwnames);
}

static PyObject *runner_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *names[] = {"fallback", "to_dlpack", "threads", NULL};
  PyObject *fallback, *to_dlpack, *threads = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:Runner", names, &fallback, &to_dlpack, &threads)) return NULL;
  if (!PyCallable_Check(fallback) || !PyCallable_Check(to_dlpack) || (threads != Py_None && !PyCallable_Check(threads))) {
    PyErr_SetString(PyExc_TypeError, "Runner: fallback, to_dlpack and threads are callables");
    return NULL;
  }
  Runner *r = (Runner *)type->tp_alloc(type, 0);
  if (!r) return NULL;
  r->vectorcall = runner_vectorcall;
  r->fallback = Py_NewRef(fallback);
  r->to_dlpack = Py_NewRef(to_dlpack);
  r->threads = Py_NewRef(threads);
  r->plan = Py_NewRef(Py_None);
  return (PyObject *)r;
}

static int runner_traverse(Runner *r, visitproc visit, void *arg) {
  Py_VISIT(r->fallback);
  Py_VISIT(r->to_dlpack);
  Py_VISIT(r->threads);
  return 0;
}

static int runner_clear(Runner *r) {
  Py_CLEAR(r->fallback);
  Py_CLEAR(r->to_dlpack);
  Py_CLEAR(r->threads);
  return 0;
}

static void runner_dealloc(Runner *r) {
  PyObject_GC_UnTrack(r);
  runner_clear(r);
  Py_CLEAR(r->plan);
  Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyObject *runner_get_plan(Runner *r, void *unused) { return Py_NewRef(r->plan); }

static int runner_set_plan(Runner *r, PyObject *v, void *unused) {
  if (!v || (v != Py_None && !PyObject_TypeCheck(v, &PlanType))) {
    PyErr_SetString(PyExc_TypeError, "Runner.plan: a Plan or None");
    return -1;
  }
  Py_SETREF(r->plan, Py_NewRef(v));
  return 0;
}

static PyObject *runner_counts(Runner *r, void *unused) { return Py_BuildValue("(LL)", r->runs, r->fallbacks); }

static PyGetSetDef runner_getset[] = {
    {"plan", (getter)runner_get_plan, (setter)runner_set_plan, "the Plan a matching call runs, or None", NULL},
    {"counts", (getter)runner_counts, NULL, "(runs of the plan, calls of the fallback)", NULL},
    {NULL},
};

static PyObject *runner_call(PyObject *self, PyObject *args, PyObject *kw) {
  return PyVectorcall_Call(self, args, kw);
}

static PyTypeObject RunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "coil._C.Runner",
    .tp_basicsize = sizeof(Runner),
    .tp_dealloc = (destructor)runner_dealloc,
    .tp_vectorcall_offset = offsetof(Runner, vectorcall),
    .tp_call = runner_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Runner(fallback, to_dlpack, threads=None): runner(*args) runs .plan where the arguments match it, "
              "else returns fallback(*args).",
    .tp_traverse = (traverseproc)runner_traverse,
    .tp_clear = (inquiry)runner_clear,
    .tp_getset = runner_getset,
    .tp_new = runner_new,
};

/* ------------------------------------------------------------ View
 *
 * A view op of the backend's graph code (permute, view, slice, ...; a chain
 * of them where each feeds only the next) as one C call.  Through its
 * OpOverload a view costs a Python frame and the dispatcher's schema
 * matching, 3-4 us, for a result known when the graph was traced: where the
 * tensor has the exact type, shape and strides it was traced with, the
 * view's sizes and strides are the traced ones and its storage offset is
 * the tensor's plus the traced difference, so make(x, sizes, strides,
 * offset) (Dynamo's _reinterpret_tensor, as Inductor's code makes views, a
 * tenth of the cost) gives the same tensor.  Any other tensor (another
 * layout, a subclass), and a tensor that requires grad while grad mode is
 * on (where the view would have to carry autograd's history), goes through
 * the ops themselves: x = op(x, *args, **kwargs) for each, as the graph
 * says. */

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject *types;     /* tuple of the exact types taken */
  PyObject *shape;     /* tuple the tensor's shape must equal */
  PyObject *strides;   /* tuple its stride() must equal */
  PyObject *make;      /* make(x, sizes, strides, offset) -> the view */
  PyObject *make_args; /* (sizes, strides, offset) */
  PyObject *grad_on;   /* () -> bool: torch.is_grad_enabled */
  PyObject *ops;       /* tuple of (op, args tuple, kwargs dict or None) */
  long long fast, slow;
} View;

static PyObject *shape_name, *stride_name, *requires_grad_name; /* interned */

/* 1: the traced layout, the view can be made; 0: not; -1: an error. */
static int view_fits(View *v, PyObject *x) {
  PyObject *type = (PyObject *)Py_TYPE(x);
  bool known = false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v->types); i++) known |= PyTuple_GET_ITEM(v->types, i) == type;
  if (!known) return 0;
  PyObject *rg = PyObject_GetAttr(x, requires_grad_name);
  if (!rg) return -1;
  int needs = PyObject_IsTrue(rg);
  Py_DECREF(rg);
  if (needs < 0) return -1;
  if (needs) {
    PyObject *on = PyObject_CallNoArgs(v->grad_on);
    if (!on) return -1;
    int t = PyObject_IsTrue(on);
    Py_DECREF(on);
    if (t) return t < 0 ? -1 : 0;
  }
  PyObject *shape = PyObject_GetAttr(x, shape_name);
  if (!shape) return -1;
  int eq = PyObject_RichCompareBool(shape, v->shape, Py_EQ);
  Py_DECREF(shape);
  if (eq <= 0) return eq;
  PyObject *strides = PyObject_CallMethodNoArgs(x, stride_name);
  if (!strides) return -1;
  eq = PyObject_RichCompareBool(strides, v->strides, Py_EQ);
  Py_DECREF(strides);
  return eq;
}

static PyObject *view_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  View *v = (View *)self;
  if (PyVectorcall_NARGS(nargsf) != 1 || kwnames) {
    PyErr_SetString(PyExc_TypeError, "View: one tensor");
    return NULL;
  }
  PyObject *x = args[0];
  int fits = view_fits(v, x);
  if (fits < 0) return NULL;
  if (fits) {
    PyObject *margs[4] = {x, PyTuple_GET_ITEM(v->make_args, 0), PyTuple_GET_ITEM(v->make_args, 1),
                          PyTuple_GET_ITEM(v->make_args, 2)};
    v->fast++;
    return PyObject_Vectorcall(v->make, margs, 4, NULL);
  }
  v->slow++;
  PyObject *cur = Py_NewRef(x);
  for (Py_ssize_t i = 0; cur && i < PyTuple_GET_SIZE(v->ops); i++) {
    PyObject *step = PyTuple_GET_ITEM(v->ops, i);
    PyObject *rest = PyTuple_GET_ITEM(step, 1), *kw = PyTuple_GET_ITEM(step, 2);
    Py_ssize_t n = PyTuple_GET_SIZE(rest);
    PyObject *call = PyTuple_New(n + 1);
    if (!call) { Py_CLEAR(cur); break; }
    PyTuple_SET_ITEM(call, 0, cur); /* the reference to cur goes to the tuple */
    for (Py_ssize_t k = 0; k < n; k++) PyTuple_SET_ITEM(call, k + 1, Py_NewRef(PyTuple_GET_ITEM(rest, k)));
    cur = PyObject_Call(PyTuple_GET_ITEM(step, 0), call, kw == Py_None ? NULL : kw);
    Py_DECREF(call);
  }
  return cur;
}

static PyObject *view_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *names[] = {"types", "shape", "strides", "sizes", "view_strides", "offset", "make", "grad_on", "ops", NULL};
  PyObject *types, *shape, *strides, *sizes, *vstrides, *offset, *make, *grad_on, *ops;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!O!O!O!O!OOO!:View", names, &PyTuple_Type, &types, &PyTuple_Type,
                                   &shape, &PyTuple_Type, &strides, &PyTuple_Type, &sizes, &PyTuple_Type, &vstrides,
                                   &PyLong_Type, &offset, &make, &grad_on, &PyTuple_Type, &ops))
    return NULL;
  if (!PyCallable_Check(make) || !PyCallable_Check(grad_on)) {
    PyErr_SetString(PyExc_TypeError, "View: make and grad_on are callables");
    return NULL;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(types); i++)
    if (!PyType_Check(PyTuple_GET_ITEM(types, i))) {
      PyErr_SetString(PyExc_TypeError, "View: types is a tuple of types");
      return NULL;
    }
  if (PyTuple_GET_SIZE(ops) == 0) {
    PyErr_SetString(PyExc_ValueError, "View: at least one op");
    return NULL;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ops); i++) {
    PyObject *s = PyTuple_GET_ITEM(ops, i);
    if (!PyTuple_Check(s) || PyTuple_GET_SIZE(s) != 3 || !PyCallable_Check(PyTuple_GET_ITEM(s, 0)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(s, 1)) ||
        (PyTuple_GET_ITEM(s, 2) != Py_None && !PyDict_Check(PyTuple_GET_ITEM(s, 2)))) {
      PyErr_SetString(PyExc_TypeError, "View: ops holds (op, args tuple, kwargs dict or None) per op");
      return NULL;
    }
  }
  View *v = (View *)type->tp_alloc(type, 0);
  if (!v) return NULL;
  v->vectorcall = view_vectorcall;
  v->types = Py_NewRef(types);
  v->shape = Py_NewRef(shape);
  v->strides = Py_NewRef(strides);
  v->make = Py_NewRef(make);
  v->grad_on = Py_NewRef(grad_on);
  v->ops = Py_NewRef(ops);
  if (!(v->make_args = PyTuple_Pack(3, sizes, vstrides, offset))) { Py_DECREF(v); return NULL; }
  return (PyObject *)v;
}

static int view_traverse(View *v, visitproc visit, void *arg) {
  Py_VISIT(v->types);
  Py_VISIT(v->make);
  Py_VISIT(v->grad_on);
  Py_VISIT(v->ops);
  return 0;
}

static int view_clear(View *v) {
  Py_CLEAR(v->types);
  Py_CLEAR(v->make);
  Py_CLEAR(v->grad_on);
  Py_CLEAR(v->ops);
  return 0;
}

static void view_dealloc(View *v) {
  PyObject_GC_UnTrack(v);
  view_clear(v);
  Py_CLEAR(v->shape);
  Py_CLEAR(v->strides);
  Py_CLEAR(v->make_args);
  Py_TYPE(v)->tp_free((PyObject *)v);
}

static PyObject *view_counts(View *v, void *unused) { return Py_BuildValue("(LL)", v->fast, v->slow); }

static PyGetSetDef view_getset[] = {
    {"counts", (getter)view_counts, NULL, "(views made from the traced layout, calls through the ops)", NULL},
    {NULL},
};

static PyObject *view_call(PyObject *self, PyObject *args, PyObject *kw) { return PyVectorcall_Call(self, args, kw); }

static PyTypeObject ViewType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "coil._C.View",
    .tp_basicsize = sizeof(View),
    .tp_dealloc = (destructor)view_dealloc,
    .tp_vectorcall_offset = offsetof(View, vectorcall),
    .tp_call = view_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "View(types, shape, strides, sizes, view_strides, offset, make, grad_on, ops): view(x) is "
              "make(x, sizes, view_strides, offset) where x has one of types, shape and strides (and needs no "
              "autograd history), else the ops applied in turn.",
    .tp_traverse = (traverseproc)view_traverse,
    .tp_clear = (inquiry)view_clear,
    .tp_getset = view_getset,
    .tp_new = view_new,
};

/* ------------------------------------------------------------ module */

static PyObject *build(PyObject *self, PyObject *args) {
  PyObject *list;
  if (!PyArg_ParseTuple(args, "O:build", &list)) return NULL;
  PyObject *seq = PySequence_Fast(list, "build: a list of Programs");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  coil_program **ps = PyMem_Calloc((size_t)n + 1, sizeof *ps);
  if (!ps) { Py_DECREF(seq); return PyErr_NoMemory(); }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyObject_TypeCheck(o, &ProgramType)) {
      PyMem_Free(ps);
      Py_DECREF(seq);
      PyErr_SetString(PyExc_TypeError, "build: a list of Programs");
      return NULL;
    }
    ps[i] = ((Program *)o)->p;
  }
  coil_error *err = NULL;
  coil_status st;
  Py_BEGIN_ALLOW_THREADS
  st = coil_build(ps, (int)n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(ps);
  Py_DECREF(seq);  /* the Programs stayed alive in it until here */
  if (st) return raise(err);
  Py_RETURN_NONE;
}

static PyObject *has_op(PyObject *self, PyObject *args) {
  const char *op;
  if (!PyArg_ParseTuple(args, "s:has_op", &op)) return NULL;
  return PyBool_FromLong(coil_has_op(op));
}

static PyObject *set_num_threads(PyObject *self, PyObject *args) {
  int n;
  if (!PyArg_ParseTuple(args, "i:set_num_threads", &n)) return NULL;
  coil_set_num_threads(n);
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"compile_source", (PyCFunction)(void (*)(void))compile_source, METH_VARARGS | METH_KEYWORDS,
     "compile_source(file, text, target='c', fn=None, dump=None, args=None) -> Program"},
    {"has_op", has_op, METH_VARARGS, "has_op(op) -> bool: a spelling coil compiles ('aten.add.Tensor')"},
    {"build", build, METH_VARARGS, "build(programs): build their code ahead of the first runs, together (one cc run for C)"},
    {"set_num_threads", set_num_threads, METH_VARARGS, "the OpenMP threads this thread's runs use"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "coil._C",
    .m_doc = "libcoil's binding (include/coil.h).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__C(void) {
  if (PyType_Ready(&ProgramType) < 0 || PyType_Ready(&GraphType) < 0 || PyType_Ready(&PlanType) < 0 ||
      PyType_Ready(&RunnerType) < 0 || PyType_Ready(&ViewType) < 0)
    return NULL;
  if (!(data_ptr_name = PyUnicode_InternFromString("data_ptr")) || !(shape_name = PyUnicode_InternFromString("shape")) ||
      !(stride_name = PyUnicode_InternFromString("stride")) ||
      !(requires_grad_name = PyUnicode_InternFromString("requires_grad")))
    return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  CoilError = PyErr_NewExceptionWithDoc("coil.CoilError", "An error from libcoil.", NULL, NULL);
  ProgramError = PyErr_NewExceptionWithDoc("coil.ProgramError",
                                           "A program not in coil's subset, or wrong (file:line:col: error:).",
                                           CoilError, NULL);
  PyObject *bases = PyTuple_Pack(2, CoilError, PyExc_ValueError);
  TensorError = PyErr_NewExceptionWithDoc("coil.TensorError", "A tensor that does not match the compiled program.",
                                          bases, NULL);
  Py_XDECREF(bases);
  bases = PyTuple_Pack(2, CoilError, PyExc_IndexError);
  IndexError_ = PyErr_NewExceptionWithDoc("coil.IndexOutOfRange", "An index tensor's value out of range, found when running (as PyTorch's IndexError).",
                                          bases, NULL);
  Py_XDECREF(bases);
  if (!CoilError || !ProgramError || !TensorError || !IndexError_ || PyModule_AddObjectRef(m, "IndexOutOfRange", IndexError_) < 0 ||
      PyModule_AddObjectRef(m, "CoilError", CoilError) < 0 || PyModule_AddObjectRef(m, "ProgramError", ProgramError) < 0 ||
      PyModule_AddObjectRef(m, "TensorError", TensorError) < 0 ||
      PyModule_AddObjectRef(m, "Program", (PyObject *)&ProgramType) < 0 ||
      PyModule_AddObjectRef(m, "Graph", (PyObject *)&GraphType) < 0 ||
      PyModule_AddObjectRef(m, "Plan", (PyObject *)&PlanType) < 0 ||
      PyModule_AddObjectRef(m, "Runner", (PyObject *)&RunnerType) < 0 ||
      PyModule_AddObjectRef(m, "View", (PyObject *)&ViewType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  PyModule_AddIntConstant(m, "API_VERSION", COIL_API_VERSION);
  return m;
}
